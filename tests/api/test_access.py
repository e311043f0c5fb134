"""Who may call what: keys, scopes, revocation, and the namespace wall."""

from __future__ import annotations

import pytest
from django.utils import timezone

from memoryadmin.conversations.services import NewMessage, session_append_messages
from memoryadmin.conversations.working_memory import working_memory_put
from memoryadmin.memories.models import Memory, MemoryStatus, Pin
from memoryadmin.memories.services import memory_create
from memoryadmin.tenancy.services import api_key_revoke
from tests.conftest import SYSTEM, ApiClient

READS = [
    ("get", "/api/v1/sessions/{sid}", None),
    ("get", "/api/v1/sessions/{sid}/messages", None),
    ("get", "/api/v1/sessions/{sid}/state", None),
    ("get", "/api/v1/sessions/{sid}/context", None),
    ("get", "/api/v1/memories/{mid}", None),
    ("get", "/api/v1/memories/{mid}/revisions", None),
    ("get", "/api/v1/memories/{mid}/evidence", None),
]
# Upserts: in another namespace they make that namespace's own session of the same name.
UPSERTS = [
    ("put", "/api/v1/sessions/{sid}", {"user_id": "alice"}),
    ("post", "/api/v1/sessions/{sid}/messages", {"messages": [{"role": "user", "content": "x"}]}),
]
WRITES = [
    ("delete", "/api/v1/sessions/{sid}", None),
    ("delete", "/api/v1/sessions/{sid}/messages?run_id=r1", None),
    ("put", "/api/v1/sessions/{sid}/state", {"state": {"a": 1}}),
    ("patch", "/api/v1/sessions/{sid}/state", {"state": {"a": 2}}),
    ("delete", "/api/v1/sessions/{sid}/state", None),
    ("patch", "/api/v1/memories/{mid}", {"text": "changed"}),
    ("delete", "/api/v1/memories/{mid}?force=true", None),
    ("post", "/api/v1/memories/{mid}/pin", {}),
    ("delete", "/api/v1/memories/{mid}/pin", None),
    ("post", "/api/v1/memories/{mid}/approve", {}),
    ("post", "/api/v1/memories/{mid}/reject", {}),
]
# Routes without an id in the path.
READ_LISTS = [
    ("get", "/api/v1/sessions", None),
    ("get", "/api/v1/memories", None),
    ("post", "/api/v1/memories/search", {"query": "tea"}),
]
WRITE_LISTS = [
    ("post", "/api/v1/memories", {"text": "tea", "user_id": "alice"}),
    ("post", "/api/v1/memories/bulk", {"action": "pin", "ids": ["00000000-0000-0000-0000-000000000000"]}),
]


@pytest.fixture
def world(namespace):
    """A session with a message, working memory and a candidate memory with evidence, in `namespace`."""
    session, messages = session_append_messages(
        namespace=namespace,
        session_id="s1",
        user_id="alice",
        messages=[NewMessage(role="user", content="I like tea", run_id="r1")],
    )
    working_memory_put(namespace_id=namespace.pk, session_id="s1", state={"a": 1}, ttl_seconds=60)
    memory = memory_create(
        namespace=namespace,
        user_id="alice",
        text="Alice likes tea",
        actor=SYSTEM,
        status=MemoryStatus.CANDIDATE,
        evidence_message_ids=[messages[0].pk],
        pinned=True,
    ).memory
    return {"sid": session.session_id, "mid": str(memory.pk)}


def call(client: ApiClient, method: str, path: str, body, world):
    path = path.format(**world)
    if body is None:
        return getattr(client, method)(path)
    return getattr(client, method)(path, body)


@pytest.mark.parametrize(("method", "path", "body"), READS + WRITES)
def test_another_namespace_gets_404_on_every_route_with_an_id(world, other_api, method, path, body) -> None:
    r = call(other_api, method, path, body, world)
    assert r.status_code == 404, r.content
    assert r.json()["error"]["code"] == "not_found"


def test_the_wall_leaves_everything_in_place(world, other_api, namespace, redis_client) -> None:
    for method, path, body in READS + WRITES:
        call(other_api, method, path, body, world)
    memory = Memory.objects.get()
    assert memory.text == "Alice likes tea"
    assert Pin.objects.filter(memory=memory).exists()
    assert redis_client.exists(f"wm:{namespace.pk}:s1")
    assert api_lists_are_empty(other_api)


def api_lists_are_empty(client: ApiClient) -> bool:
    return (
        client.get("/api/v1/sessions").json()["items"] == []
        and client.get("/api/v1/memories").json()["items"] == []
        and client.post("/api/v1/memories/search", {"query": "tea", "status": "any"}).json()["items"] == []
    )


def test_an_upsert_from_another_namespace_makes_its_own_session(world, other_api, api) -> None:
    r = other_api.put("/api/v1/sessions/s1", {"user_id": "mallory"})
    assert r.status_code == 201
    assert r.json()["message_count"] == 0
    r = other_api.post("/api/v1/sessions/s1/messages", {"messages": [{"role": "user", "content": "x"}]})
    assert r.json()["messages"][0]["seq"] == 1
    mine = api.get("/api/v1/sessions/s1").json()
    assert (mine["user_id"], mine["message_count"]) == ("alice", 1)


@pytest.mark.parametrize(("method", "path", "body"), UPSERTS + WRITES + WRITE_LISTS)
def test_a_read_only_key_gets_403_on_writes(world, namespace, make_key, method, path, body) -> None:
    reader = ApiClient(make_key(namespace, "read")[1])
    r = call(reader, method, path, body, world)
    assert r.status_code == 403, r.content
    assert r.json()["error"]["code"] == "forbidden"


@pytest.mark.parametrize(("method", "path", "body"), READS + READ_LISTS)
def test_a_read_only_key_reads(world, namespace, make_key, method, path, body) -> None:
    reader = ApiClient(make_key(namespace, "read")[1])
    assert call(reader, method, path, body, world).status_code == 200


@pytest.mark.parametrize(("method", "path", "body"), READS + READ_LISTS)
def test_a_write_only_key_gets_403_on_reads(world, namespace, make_key, method, path, body) -> None:
    writer = ApiClient(make_key(namespace, "write")[1])
    assert call(writer, method, path, body, world).status_code == 403


@pytest.mark.parametrize(("method", "path", "body"), READS + UPSERTS + WRITES + READ_LISTS + WRITE_LISTS)
def test_it_requires_a_key(world, anon_api, method, path, body) -> None:
    r = call(anon_api, method, path, body, world)
    assert r.status_code == 401
    assert r.json()["error"]["code"] == "unauthorized"


def test_a_wrong_or_revoked_key_is_401(namespace, make_key) -> None:
    key, raw = make_key(namespace)
    assert ApiClient(raw + "x").get("/api/v1/sessions").status_code == 401
    api_key_revoke(key=key, actor=SYSTEM)
    assert ApiClient(raw).get("/api/v1/sessions").status_code == 401


def test_a_console_session_cookie_grants_no_api_rights(namespace, admin_client) -> None:
    assert admin_client.get("/api/v1/sessions").status_code == 401


def test_last_use_is_written_at_most_once_a_minute(
    namespace, make_key, django_assert_max_num_queries, monkeypatch
) -> None:
    key, raw = make_key(namespace)
    client = ApiClient(raw)
    client.get("/api/v1/sessions")
    key.refresh_from_db()
    first = key.last_used_at
    assert first is not None
    with django_assert_max_num_queries(2):
        client.get("/api/v1/sessions")
    key.refresh_from_db()
    assert key.last_used_at == first
    # Two minutes on: the next request writes its use again, whether its process read the key or kept it.
    later = first + timezone.timedelta(minutes=2)
    monkeypatch.setattr(timezone, "now", lambda: later)
    client.get("/api/v1/sessions")
    key.refresh_from_db()
    assert key.last_used_at == later
    monkeypatch.setattr(timezone, "now", lambda: later + timezone.timedelta(seconds=30))
    client.get("/api/v1/sessions")
    key.refresh_from_db()
    assert key.last_used_at == later
