from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from memoryadmin.audit.models import AuditEvent
from memoryadmin.conversations.models import Message, Session
from memoryadmin.conversations.working_memory import working_memory_put
from memoryadmin.memories.models import Memory, MemoryEvidence, Tombstone
from memoryadmin.memories.services import memory_create, memory_pin
from tests.conftest import SYSTEM


def put_session(api, session_id: str = "s1", **body):
    body.setdefault("user_id", "alice")
    return api.put(f"/api/v1/sessions/{session_id}", body)


def append(api, session_id: str = "s1", *contents: str, **body):
    body.setdefault("user_id", "alice")
    body["messages"] = [{"role": "user", "content": c} for c in contents or ("hello",)]
    return api.post(f"/api/v1/sessions/{session_id}/messages", body)


def test_it_creates_a_session(api) -> None:
    r = put_session(api, agent_id="bot", metadata={"channel": "web"})
    assert r.status_code == 201
    body = r.json()
    assert body["session_id"] == "s1"
    assert body["user_id"] == "alice"
    assert body["agent_id"] == "bot"
    assert body["metadata"] == {"channel": "web"}
    assert body["message_count"] == 0
    assert body["last_message_at"] is None
    assert body["created_at"].endswith("Z")


def test_it_updates_a_session(api) -> None:
    put_session(api)
    r = put_session(api, metadata={"x": 1})
    assert r.status_code == 200
    assert r.json()["metadata"] == {"x": 1}


def test_a_session_keeps_its_user(api) -> None:
    put_session(api)
    r = put_session(api, user_id="mallory")
    assert r.status_code == 409
    assert r.json()["error"]["code"] == "user_mismatch"


def test_it_refuses_malformed_ids(api) -> None:
    for bad in ("-starts-with-dash", "has%20space", "x" * 129, "new%0Aline", "nul%00"):
        r = api.put(f"/api/v1/sessions/{bad}", {"user_id": "alice"})
        assert r.status_code in (400, 404), bad
        if r.status_code == 400:
            assert r.json()["error"]["code"] == "invalid_id"
    r = put_session(api, user_id="bad user")
    assert r.status_code == 400
    assert r.json()["error"]["code"] == "invalid_id"
    r = api.put("/api/v1/sessions/bad%20id", {"user_id": "alice"})
    assert r.status_code == 400


def test_it_gets_a_session(api) -> None:
    append(api, "s1", "a", "b")
    r = api.get("/api/v1/sessions/s1")
    assert r.status_code == 200
    assert r.json()["message_count"] == 2
    assert r.json()["last_message_at"] is not None


def test_it_answers_404_for_a_missing_session(api) -> None:
    r = api.get("/api/v1/sessions/nope")
    assert r.status_code == 404
    assert r.json()["error"]["code"] == "not_found"


def test_it_lists_sessions_newest_activity_first(api, django_assert_max_num_queries) -> None:
    for name in ("s1", "s2", "s3"):
        put_session(api, name)
    append(api, "s1", "later")
    put_session(api, "b1", user_id="bob")
    with django_assert_max_num_queries(3):
        r = api.get("/api/v1/sessions?user_id=alice&limit=2")
    assert r.status_code == 200
    body = r.json()
    assert [s["session_id"] for s in body["items"]] == ["s1", "s3"]
    assert body["next_cursor"]
    r = api.get(f"/api/v1/sessions?user_id=alice&limit=2&cursor={body['next_cursor']}")
    assert [s["session_id"] for s in r.json()["items"]] == ["s2"]
    assert r.json()["next_cursor"] is None


def test_the_session_list_keeps_its_query_count_flat(api, django_assert_max_num_queries) -> None:
    for i in range(30):
        put_session(api, f"s{i}")
    with django_assert_max_num_queries(3):
        r = api.get("/api/v1/sessions?limit=200")
    assert len(r.json()["items"]) == 30


def test_it_refuses_a_bad_cursor_and_limit(api) -> None:
    assert api.get("/api/v1/sessions?cursor=garbage").status_code == 400
    assert api.get("/api/v1/sessions?limit=0").status_code == 422
    assert api.get("/api/v1/sessions?limit=201").status_code == 422


def test_it_deletes_a_session_with_messages_and_state(api, namespace, redis_client) -> None:
    append(api, "s1", "I like green tea")
    working_memory_put(namespace_id=namespace.pk, session_id="s1", state={"a": 1}, ttl_seconds=60)
    message = Message.objects.get()
    memory = memory_create(
        namespace=namespace,
        user_id="alice",
        text="Alice likes green tea",
        actor=SYSTEM,
        session_id="s1",
        evidence_message_ids=[message.pk],
    ).memory
    r = api.delete("/api/v1/sessions/s1")
    assert r.status_code == 204
    assert not Session.objects.exists()
    assert not Message.objects.exists()
    assert not MemoryEvidence.objects.exists()
    assert Memory.objects.filter(pk=memory.pk).exists()
    assert not redis_client.exists(f"wm:{namespace.pk}:s1")
    assert AuditEvent.objects.filter(action="session.delete").count() == 1
    assert api.get("/api/v1/sessions/s1").status_code == 404


def test_it_deletes_a_session_with_its_memories_when_asked(api, namespace) -> None:
    append(api, "s1", "I like green tea")
    message = Message.objects.get()
    taken = memory_create(
        namespace=namespace,
        user_id="alice",
        text="Alice likes green tea",
        actor=SYSTEM,
        evidence_message_ids=[message.pk],
    ).memory
    named = memory_create(namespace=namespace, user_id="alice", text="Alice is in s1", actor=SYSTEM, session_id="s1")
    pinned = memory_create(
        namespace=namespace, user_id="alice", text="Alice has a cat", actor=SYSTEM, session_id="s1"
    ).memory
    memory_pin(memory=pinned, actor=SYSTEM)
    other = memory_create(namespace=namespace, user_id="alice", text="Alice lives in Lisbon", actor=SYSTEM).memory
    r = api.delete("/api/v1/sessions/s1?memories=delete&reason=cleanup")
    assert r.status_code == 204
    remaining = set(Memory.objects.values_list("pk", flat=True))
    assert remaining == {pinned.pk, other.pk}
    assert Tombstone.objects.count() == 2
    assert taken.pk not in remaining and named.memory.pk not in remaining


def test_forced_session_deletion_forgets_pinned_memories_too(api, namespace) -> None:
    put_session(api)
    pinned = memory_create(
        namespace=namespace, user_id="alice", text="Alice has a cat", actor=SYSTEM, session_id="s1", pinned=True
    ).memory
    assert api.delete("/api/v1/sessions/s1?memories=delete&force=true").status_code == 204
    assert not Memory.objects.filter(pk=pinned.pk).exists()


def test_deleting_a_missing_session_is_404(api) -> None:
    assert api.delete("/api/v1/sessions/nope").status_code == 404


def test_a_session_without_messages_sorts_by_creation(api) -> None:
    put_session(api, "old")
    Session.objects.filter(session_id="old").update(last_activity_at=timezone.now() - timedelta(days=1))
    put_session(api, "new")
    assert [s["session_id"] for s in api.get("/api/v1/sessions").json()["items"]] == ["new", "old"]
