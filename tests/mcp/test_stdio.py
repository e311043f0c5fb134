"""`manage.py mcp_stdio`: the same tools over standard input and output, driven by the SDK's client."""

from __future__ import annotations

import subprocess
import sys

import anyio
import pytest
from django.core.management import CommandError, call_command
from mcp import Client, StdioServerParameters

from memoryadmin.audit.models import AuditEvent
from memoryadmin.tenancy.services import api_key_revoke
from tests.asgi_server import ROOT, server_environ
from tests.conftest import SYSTEM

pytestmark = pytest.mark.django_db(transaction=True)


def stdio(key: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["manage.py", "mcp_stdio", "--key", key],
        env=server_environ(),
        cwd=str(ROOT),
    )


def test_it_serves_the_tools_for_its_key_and_sees_a_revocation_at_once(namespace, make_key) -> None:
    key, raw = make_key(namespace)

    async def scenario() -> tuple[set[str], dict, dict, dict]:
        async with Client(stdio(raw)) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            added = await client.call_tool("add_memory", {"user_id": "alice", "text": "Alice sails"})
            found = (await client.call_tool("search_memory", {"query": "sails"})).structured_content
            await anyio.to_thread.run_sync(lambda: api_key_revoke(key=key, actor=SYSTEM))
            refused = await client.call_tool("search_memory", {"query": "sails"})
            assert refused.is_error
            return names, added.structured_content, found, refused.structured_content

    names, added, found, refused = anyio.run(scenario)
    assert len(names) == 9
    assert [hit["memory"]["id"] for hit in found["items"]] == [added["memory"]["id"]]
    assert refused["error"]["code"] == "unauthorized"
    event = AuditEvent.objects.get(action="memory.create", target_id=added["memory"]["id"])
    assert (event.actor, event.data["via"]) == (key.prefix, "mcp")


def test_it_will_not_start_with_a_revoked_key(namespace, make_key) -> None:
    key, raw = make_key(namespace)
    api_key_revoke(key=key, actor=SYSTEM)
    done = subprocess.run(
        [sys.executable, "manage.py", "mcp_stdio", "--key", raw],
        cwd=ROOT,
        env=server_environ(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode != 0
    assert "this API key is unknown or revoked" in done.stderr
    assert done.stdout == ""


def test_it_needs_a_key(monkeypatch, db) -> None:
    monkeypatch.delenv("MEMORYADMIN_API_KEY", raising=False)
    with pytest.raises(CommandError, match="an API key is needed"):
        call_command("mcp_stdio")
