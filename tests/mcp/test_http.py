"""MCP over streamable HTTP at /mcp, with the SDK's own client against the ASGI app served by uvicorn."""

from __future__ import annotations

import uuid

import httpx
import pytest
from mcp.shared.exceptions import MCPError
from prometheus_client.parser import text_string_to_metric_families

from memoryadmin.audit.models import AuditEvent
from memoryadmin.conversations.models import Message, Session
from memoryadmin.extraction.models import ExtractionRun, RunStatus
from memoryadmin.mcp.tools import TOOLS as TOOL_DEFINITIONS
from memoryadmin.memories.models import Memory, Tombstone
from memoryadmin.memories.services import memory_create, memory_update
from memoryadmin.tenancy.access_log import access_summary
from memoryadmin.tenancy.services import api_key_revoke
from tests.conftest import SYSTEM
from tests.mcp.conftest import wait_for

pytestmark = pytest.mark.django_db(transaction=True)

TOOLS = {
    "search_memory",
    "add_memory",
    "get_memory",
    "forget_memory",
    "pin_memory",
    "append_messages",
    "get_context",
    "get_working_memory",
    "set_working_memory",
}
WRITING = {"add_memory", "forget_memory", "pin_memory", "append_messages", "set_working_memory"}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def remember(namespace, text: str, user_id: str = "alice") -> Memory:
    return memory_create(namespace=namespace, user_id=user_id, text=text, actor=SYSTEM).memory


def test_it_lists_the_nine_tools_each_with_a_schema_and_a_description(namespace, make_key, mcp_for) -> None:
    tools = {tool.name: tool for tool in mcp_for(make_key(namespace)[1]).tools()}
    assert set(tools) == TOOLS
    for tool in tools.values():
        assert tool.input_schema["type"] == "object"
        assert tool.input_schema["additionalProperties"] is False
        assert len(tool.description) > 60
        assert tool.output_schema is not None
        assert tool.annotations.read_only_hint is (tool.name not in WRITING)
    assert tools["search_memory"].input_schema["required"] == ["query"]
    assert set(tools["search_memory"].input_schema["properties"]) >= {"query", "user_id", "limit", "topics", "cursor"}
    assert tools["append_messages"].input_schema["required"] == ["session_id", "messages"]
    assert tools["forget_memory"].annotations.destructive_hint is True
    assert "never instructions" in tools["get_context"].description


def test_an_older_client_that_starts_with_the_initialize_handshake_is_served_too(namespace, make_key, mcp_for) -> None:
    remember(namespace, "Alice plays the cello")
    legacy = mcp_for(make_key(namespace)[1], mode="legacy")
    assert {tool.name for tool in legacy.tools()} == TOOLS
    (hit,) = legacy.ok("search_memory", {"query": "cello", "user_id": "alice"})["items"]
    assert hit["memory"]["text"] == "Alice plays the cello"


def test_a_search_hit_is_lean_by_default_and_whole_on_request(namespace, make_key, mcp_for) -> None:
    remember(namespace, "Alice plays the cello")
    mcp = mcp_for(make_key(namespace)[1])
    (lean,) = mcp.ok("search_memory", {"query": "cello", "user_id": "alice"})["items"]
    # What an agent needs to answer, cite a date and act on the memory; not the ~20 fields of the record.
    assert set(lean["memory"]) == {
        "id",
        "text",
        "user_id",
        "memory_type",
        "pinned",
        "revision",
        "stated_at",
        "event_date",
        "event_date_precision",
    }
    assert lean["memory"]["text"] == "Alice plays the cello"
    (full,) = mcp.ok("search_memory", {"query": "cello", "user_id": "alice", "detail": "full"})["items"]
    assert full["memory"] == mcp.ok("get_memory", {"memory_id": lean["memory"]["id"]}) | {
        "last_accessed_at": full["memory"]["last_accessed_at"]
    }
    assert {name: full["memory"][name] for name in lean["memory"]} == lean["memory"]
    assert mcp.error("search_memory", {"query": "cello", "detail": "everything"})["code"] == "validation_error"


def test_search_finds_superseded_memories_only_when_asked(namespace, make_key, mcp_for) -> None:
    old = remember(namespace, "Alice lives in Lyon")
    Memory.objects.filter(pk=old.pk).update(status="superseded")
    mcp = mcp_for(make_key(namespace)[1])
    assert mcp.ok("search_memory", {"query": "Lyon", "user_id": "alice"})["items"] == []
    (hit,) = mcp.ok("search_memory", {"query": "Lyon", "user_id": "alice", "status": "superseded"})["items"]
    assert hit["memory"]["id"] == str(old.pk)


def test_a_missing_unknown_or_revoked_key_is_refused_with_401(asgi_server, namespace, make_key, mcp_for) -> None:
    key, raw = make_key(namespace)
    api_key_revoke(key=key, actor=SYSTEM)
    for headers in ({}, {"Authorization": "Bearer ma_nope_nope"}, {"Authorization": f"Bearer {raw}"}):
        response = httpx.post(f"{asgi_server.url}/mcp", json=INITIALIZE, headers={**MCP_HEADERS, **headers})
        assert response.status_code == 401
        assert response.json()["error"]["code"] == "unauthorized"
        assert response.headers["WWW-Authenticate"].startswith("Bearer")
    # The SDK's client gives up on the refused connection with an error of its own.
    with pytest.raises(BaseExceptionGroup) as refused:
        mcp_for(raw).tools()
    assert refused.group_contains(MCPError, depth=None)


def test_a_full_round_trip_append_extract_search_context_forget(namespace, make_key, mcp_for, celery_worker) -> None:
    mcp = mcp_for(make_key(namespace)[1])
    appended = mcp.ok(
        "append_messages",
        {
            "session_id": "chat-1",
            "user_id": "alice",
            "messages": [
                {"role": "user", "content": "Hi! I live in Lyon and I'm allergic to peanuts."},
                {"role": "assistant", "content": "Noted."},
            ],
        },
    )
    assert [m["seq"] for m in appended["messages"]] == [1, 2]

    session = Session.objects.get(namespace=namespace, session_id="chat-1")
    wait_for(lambda: ExtractionRun.objects.filter(session=session, status=RunStatus.SUCCEEDED).exists())
    assert set(Memory.objects.filter(namespace=namespace).values_list("text", flat=True)) == {
        "User lives in Lyon",
        "User is allergic to peanuts",
    }

    (hit,) = mcp.ok("search_memory", {"query": "peanuts", "user_id": "alice"})["items"]
    assert hit["memory"]["text"] == "User is allergic to peanuts"
    assert hit["score"] > 0

    context = mcp.ok("get_context", {"session_id": "chat-1", "query": "peanut allergy"})
    assert [m["text"] for m in context["memories"]] == ["User is allergic to peanuts"]
    assert [m["seq"] for m in context["messages"]] == [1, 2]
    assert '- "User is allergic to peanuts"' in context["prompt"]

    assert mcp.ok("forget_memory", {"memory_id": hit["memory"]["id"], "reason": "asked"}) == {
        "memory_id": hit["memory"]["id"],
        "forgotten": True,
    }
    assert mcp.ok("search_memory", {"query": "peanuts", "user_id": "alice"})["items"] == []
    assert mcp.error("get_memory", {"memory_id": hit["memory"]["id"]})["code"] == "not_found"
    assert mcp.error("add_memory", {"user_id": "alice", "text": "User is allergic to peanuts"})["code"] == "tombstoned"
    assert Tombstone.objects.filter(namespace=namespace, user_id="alice", reason="forgotten").count() == 1

    # Said again in a new conversation, the forgotten fact is suppressed by extraction too.
    mcp.ok(
        "append_messages",
        {
            "session_id": "chat-2",
            "user_id": "alice",
            "messages": [{"role": "user", "content": "I'm allergic to peanuts."}],
        },
    )
    later = Session.objects.get(namespace=namespace, session_id="chat-2")
    (run,) = wait_for(lambda: list(ExtractionRun.objects.filter(session=later, status=RunStatus.SUCCEEDED)))
    assert run.counts["suppressed"] == 1
    assert not Memory.objects.filter(namespace=namespace, text="User is allergic to peanuts").exists()


def test_another_namespaces_objects_do_not_exist(namespace, other_namespace, make_key, mcp_for) -> None:
    theirs = remember(namespace, "Alice's door code is 4521")
    mcp_for(make_key(namespace)[1]).ok(
        "append_messages", {"session_id": "s1", "user_id": "alice", "messages": [{"role": "user", "content": "hi"}]}
    )
    outsider = mcp_for(make_key(other_namespace)[1])

    for tool, arguments in [
        ("get_memory", {"memory_id": str(theirs.pk)}),
        ("forget_memory", {"memory_id": str(theirs.pk), "force": True}),
        ("pin_memory", {"memory_id": str(theirs.pk)}),
        ("get_context", {"session_id": "s1"}),
        ("get_working_memory", {"session_id": "s1"}),
        ("set_working_memory", {"session_id": "s1", "state": {"x": 1}}),
    ]:
        assert outsider.error(tool, arguments)["code"] == "not_found", tool
    assert outsider.ok("search_memory", {"query": "door code", "user_id": "alice"})["items"] == []
    # The same session id in the outsider's namespace is a session of its own.
    outsider.ok(
        "append_messages", {"session_id": "s1", "user_id": "alice", "messages": [{"role": "user", "content": "yo"}]}
    )
    assert Memory.objects.filter(pk=theirs.pk).exists()
    assert Message.objects.filter(session__namespace=namespace).count() == 1


def test_a_key_is_offered_only_the_tools_its_scopes_allow(namespace, make_key, mcp_for) -> None:
    reader = {tool.name for tool in mcp_for(make_key(namespace, "read")[1]).tools()}
    writer = {tool.name for tool in mcp_for(make_key(namespace, "read,write")[1]).tools()}
    assert reader == {tool.name for tool in TOOL_DEFINITIONS.values() if tool.scope == "read"}
    assert writer == set(TOOL_DEFINITIONS) and reader < writer


def test_a_read_only_key_is_refused_on_every_writing_tool(namespace, make_key, mcp_for) -> None:
    memory = remember(namespace, "Alice likes tea")
    reader = mcp_for(make_key(namespace, "read")[1])
    before = (Memory.objects.count(), Message.objects.count(), AuditEvent.objects.count())
    for tool, arguments in [
        ("add_memory", {"user_id": "alice", "text": "Alice likes coffee"}),
        ("forget_memory", {"memory_id": str(memory.pk)}),
        ("pin_memory", {"memory_id": str(memory.pk)}),
        ("append_messages", {"session_id": "s1", "user_id": "alice", "messages": [{"role": "user", "content": "x"}]}),
        ("set_working_memory", {"session_id": "s1", "state": {"x": 1}}),
    ]:
        error = reader.error(tool, arguments)
        assert (error["code"], error["message"]) == ("forbidden", "This API key lacks the 'write' scope."), tool
    assert (Memory.objects.count(), Message.objects.count(), AuditEvent.objects.count()) == before
    assert reader.ok("get_memory", {"memory_id": str(memory.pk)})["text"] == "Alice likes tea"
    assert len(reader.ok("search_memory", {"query": "tea"})["items"]) == 1


def test_errors_carry_the_api_codes_and_details(namespace, make_key, mcp_for) -> None:
    mcp = mcp_for(make_key(namespace)[1])
    pinned = memory_create(namespace=namespace, user_id="alice", text="Keep me", actor=SYSTEM, pinned=True).memory

    bad_id = mcp.error("search_memory", {"query": "x", "user_id": "not an id!"})
    assert bad_id["code"] == "invalid_id"
    assert bad_id["details"]["fields"][0]["field"] == "user_id"
    invalid = mcp.error("search_memory", {"query": "x", "limit": 500, "colour": "red"})
    assert invalid["code"] == "validation_error"
    assert {f["field"] for f in invalid["details"]["fields"]} == {"limit", "colour"}
    assert mcp.error("forget_memory", {"memory_id": str(pinned.pk)})["code"] == "pinned"
    malformed = mcp.error("get_memory", {"memory_id": "not-a-uuid"})
    assert (malformed["code"], malformed["details"]["fields"][0]["field"]) == ("invalid_id", "memory_id")
    assert mcp.error("get_memory", {"memory_id": str(uuid.uuid4())})["code"] == "not_found"
    # Fields are named as the REST API names them, with the same {"field", "message"} shape.
    robot = {"session_id": "s", "user_id": "alice", "messages": [{"role": "robot", "content": "beep"}]}
    assert [(f["field"], set(f)) for f in mcp.error("append_messages", robot)["details"]["fields"]] == [
        ("messages[0].role", {"field", "message"})
    ]
    new_session = {"session_id": "fresh", "messages": [{"role": "user", "content": "hello"}]}
    assert mcp.error("append_messages", new_session)["code"] == "user_id_required"
    mcp.ok("append_messages", {**new_session, "user_id": "alice"})
    assert mcp.error("get_working_memory", {"session_id": "fresh"})["code"] == "not_found"
    nul = mcp.error("add_memory", {"user_id": "alice", "text": "bad\x00text"})
    assert nul["code"] == "validation_error"
    assert nul["details"]["fields"] == [{"field": "text", "message": "must not be blank nor contain NUL characters"}]
    assert mcp.error("set_working_memory", {"session_id": "fresh", "state": {}, "merge": True})["code"] == "not_found"


def test_forgetting_from_a_revision_that_is_no_longer_current_changes_nothing(namespace, make_key, mcp_for) -> None:
    mcp = mcp_for(make_key(namespace)[1])
    memory = remember(namespace, "Alice works in Paris")
    memory_update(memory=memory, actor=SYSTEM, text="Alice works in Lyon")

    stale = mcp.error("forget_memory", {"memory_id": str(memory.pk), "revision": 1})
    assert (stale["code"], stale["details"]["revision"]) == ("precondition_failed", 2)
    assert Memory.objects.filter(pk=memory.pk).exists()
    assert not Tombstone.objects.filter(namespace=namespace).exists()
    assert mcp.ok("forget_memory", {"memory_id": str(memory.pk), "revision": 2})["forgotten"] is True
    assert not Memory.objects.filter(pk=memory.pk).exists()


def test_writes_are_audited_as_the_key_marked_as_coming_through_mcp(namespace, make_key, mcp_for) -> None:
    key, raw = make_key(namespace)
    mcp = mcp_for(raw)
    memory_id = mcp.ok("add_memory", {"user_id": "alice", "text": "Alice's cat is called Miso"})["memory"]["id"]
    mcp.ok("pin_memory", {"memory_id": memory_id, "reason": "important"})
    mcp.ok("forget_memory", {"memory_id": memory_id, "force": True})
    events = AuditEvent.objects.filter(namespace=namespace, target_id=memory_id).order_by("id")
    assert [(e.action, e.actor_type, e.actor, e.data.get("via")) for e in events] == [
        ("memory.create", "api_key", key.prefix, "mcp"),
        ("memory.pin", "api_key", key.prefix, "mcp"),
        ("memory.forget", "api_key", key.prefix, "mcp"),
    ]


def test_calls_are_counted_in_the_keys_access_log(asgi_server, namespace, make_key, mcp_for) -> None:
    key, raw = make_key(namespace)
    reader_key, reader_raw = make_key(namespace, "read")
    mcp = mcp_for(raw)
    for _ in range(3):
        mcp.ok("search_memory", {"query": "anything"})
    mcp.error("get_memory", {"memory_id": str(uuid.uuid4())})
    mcp_for(reader_raw).error("add_memory", {"user_id": "alice", "text": "x"})

    summary = access_summary(key_hash=key.key_hash)
    assert summary.rows == [("MCP search_memory", 200, 3), ("MCP get_memory", 404, 1)]
    assert (summary.last_call.endpoint, summary.last_call.status) == ("MCP get_memory", 404)
    assert access_summary(key_hash=reader_key.key_hash).rows == [("MCP add_memory", 403, 1)]
    # And timed by tool in the metrics, as the REST API's routes are.
    metrics = {
        (sample.labels["route"], sample.labels["status"]): sample.value
        for family in text_string_to_metric_families(httpx.get(f"{asgi_server.url}/metrics").text)
        for sample in family.samples
        if sample.name == "memoryadmin_http_request_duration_seconds_count"
    }
    assert metrics[("MCP search_memory", "200")] == 3
    assert (metrics[("MCP get_memory", "404")], metrics[("MCP add_memory", "403")]) == (1, 1)


def test_an_unknown_tool_is_a_protocol_error(namespace, make_key, mcp_for) -> None:
    with pytest.raises(BaseExceptionGroup) as refused:
        mcp_for(make_key(namespace)[1]).call("drop_everything", {})
    assert refused.group_contains(MCPError, match="Unknown tool: drop_everything", depth=None)


def test_a_host_outside_allowed_hosts_is_refused(asgi_server, namespace, make_key) -> None:
    _, raw = make_key(namespace)
    response = httpx.post(
        f"{asgi_server.url}/mcp",
        json=INITIALIZE,
        headers={**MCP_HEADERS, "Authorization": f"Bearer {raw}", "Host": "evil.example"},
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "bad_request"


def test_no_request_holds_an_endless_event_stream_open(asgi_server, namespace, make_key) -> None:
    """A stateless server has nothing to push: GET /mcp is 405 at once (as MCP allows), not a stream kept
    open for ever, a file descriptor and a buffer each, as many as a key cares to open."""
    _, raw = make_key(namespace)
    headers = {"Accept": "text/event-stream", "Authorization": f"Bearer {raw}"}
    with httpx.Client(timeout=10) as client:
        for _ in range(3):
            response = client.get(f"{asgi_server.url}/mcp", headers=headers)
            assert response.status_code == 405
            assert response.headers["Allow"] == "POST"
            assert response.json()["error"]["code"] == "method_not_allowed"
        deleted = client.delete(f"{asgi_server.url}/mcp", headers=headers)
        assert deleted.status_code == 405


def test_the_rest_api_is_served_by_the_same_process(asgi_server, namespace, make_key) -> None:
    _, raw = make_key(namespace)
    remember(namespace, "Alice runs marathons")
    response = httpx.post(
        f"{asgi_server.url}/api/v1/memories/search",
        json={"query": "marathons"},
        headers={"Authorization": f"Bearer {raw}"},
    )
    assert response.status_code == 200
    assert [h["memory"]["text"] for h in response.json()["items"]] == ["Alice runs marathons"]


def test_numbers_and_booleans_are_read_as_strictly_as_the_rest_api_reads_them(namespace, make_key, mcp_for) -> None:
    mcp = mcp_for(make_key(namespace)[1])
    mcp.ok("append_messages", {"session_id": "s1", "user_id": "alice", "messages": [{"role": "user", "content": "hi"}]})
    loose = [
        ("set_working_memory", {"session_id": "s1", "state": {"a": 1}, "ttl_seconds": True}, "ttl_seconds"),
        ("set_working_memory", {"session_id": "s1", "state": {"a": 1}, "ttl_seconds": "60"}, "ttl_seconds"),
        ("search_memory", {"query": "x", "limit": True}, "limit"),
        ("search_memory", {"query": "x", "pinned": 1}, "pinned"),
        ("add_memory", {"user_id": "alice", "text": "User likes tea", "pinned": "yes"}, "pinned"),
    ]
    for tool, arguments, field in loose:
        error = mcp.error(tool, arguments)
        assert (error["code"], [f["field"] for f in error["details"]["fields"]]) == ("validation_error", [field])
    assert mcp.ok("set_working_memory", {"session_id": "s1", "state": {"a": 1}, "ttl_seconds": 60})["ttl_seconds"] == 60


def test_a_number_beyond_64_bits_is_refused_in_working_memory(namespace, make_key, mcp_for) -> None:
    mcp = mcp_for(make_key(namespace)[1])
    mcp.ok("append_messages", {"session_id": "s1", "user_id": "alice", "messages": [{"role": "user", "content": "hi"}]})
    mcp.ok("set_working_memory", {"session_id": "s1", "state": {"a": 1}})
    for state in ({"big": 10**30}, {"nested": [{"big": -(10**20)}]}):
        error = mcp.error("set_working_memory", {"session_id": "s1", "state": state})
        assert error["code"] in {"validation_error", "invalid_input"}
    assert mcp.ok("get_working_memory", {"session_id": "s1"})["state"] == {"a": 1}


def test_a_session_id_is_exemplified_as_a_conversation_not_a_person(namespace, make_key, mcp_for) -> None:
    tools = {tool.name: tool for tool in mcp_for(make_key(namespace)[1]).tools()}
    for name in ("search_memory", "add_memory", "append_messages", "get_context"):
        examples = tools[name].input_schema["properties"]["session_id"].get("examples") or []
        options = tools[name].input_schema["properties"]["session_id"].get("anyOf", [])
        examples = examples + [e for option in options for e in option.get("examples", [])]
        assert examples and "alice" not in examples, (name, examples)
    assert "web-search" not in tools["search_memory"].input_schema["properties"]["query"]["description"]
