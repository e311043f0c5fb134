from __future__ import annotations

import uuid

from memoryadmin.audit.models import AuditEvent
from memoryadmin.conversations.services import NewMessage, session_append_messages
from memoryadmin.memories.models import Memory, MemoryStatus, Pin, Tombstone
from memoryadmin.memories.services import memory_create
from tests.conftest import SYSTEM


def create(api, text: str = "Alice likes green tea", **body):
    body.setdefault("user_id", "alice")
    return api.post("/api/v1/memories", {"text": text, **body})


def candidate(namespace, text: str = "Alice might like jazz") -> Memory:
    return memory_create(
        namespace=namespace, user_id="alice", text=text, actor=SYSTEM, status=MemoryStatus.CANDIDATE
    ).memory


def test_it_creates_a_memory(api) -> None:
    r = create(
        api,
        session_id="s1",
        agent_id="bot",
        memory_type="preference",
        topics=["drinks"],
        entities=["green tea"],
        metadata={"source": "chat"},
    )
    assert r.status_code == 201
    assert "X-Deduplicated" not in r
    body = r.json()
    assert set(body) == {
        "id",
        "text",
        "user_id",
        "session_id",
        "agent_id",
        "memory_type",
        "status",
        "topics",
        "entities",
        "metadata",
        "pinned",
        "source",
        "created_at",
        "updated_at",
        "last_accessed_at",
        "revision",
        "subject",
        "attribute",
        "event_date",
        "event_date_precision",
        "stated_at",
        "superseded_by",
        "superseded_at",
    }
    assert body["text"] == "Alice likes green tea"
    assert body["memory_type"] == "preference"
    assert body["status"] == "active"
    assert body["source"] == "api"
    assert body["pinned"] is False
    assert body["revision"] == 1
    assert body["session_id"] == "s1"
    assert uuid.UUID(body["id"])


def test_it_creates_a_pinned_memory(api) -> None:
    assert create(api, pinned=True).json()["pinned"] is True


def test_the_same_text_is_deduplicated(api) -> None:
    first = create(api).json()
    r = create(api, "  ALICE likes green-tea!! ")
    assert r.status_code == 200
    assert r["X-Deduplicated"] == "true"
    assert r.json()["id"] == first["id"]
    assert create(api, user_id="bob").status_code == 201


def test_a_forgotten_text_stays_forgotten(api) -> None:
    memory_id = create(api).json()["id"]
    assert api.delete(f"/api/v1/memories/{memory_id}?reason=asked").status_code == 204
    r = create(api, "alice likes GREEN tea")
    assert r.status_code == 409
    assert r.json()["error"]["code"] == "tombstoned"
    tombstone = Tombstone.objects.get()
    assert tombstone.reason == "forgotten"
    assert tombstone.text == ""


def test_it_validates_a_new_memory(api) -> None:
    cases = [
        {"text": "", "user_id": "alice"},
        {"text": "   ", "user_id": "alice"},
        {"text": "nul \u0000", "user_id": "alice"},
        {"text": "x" * 4097, "user_id": "alice"},
        {"text": "ok", "user_id": "alice", "memory_type": "gossip"},
        {"text": "ok", "user_id": "alice", "topics": ["t" * 101]},
        {"text": "ok", "user_id": "alice", "metadata": {"a": "\u0000"}},
        {"text": "ok"},
        {"text": 5, "user_id": "alice"},
    ]
    for body in cases:
        r = api.post("/api/v1/memories", body)
        assert r.status_code == 422, (body, r.content)
        assert r.json()["error"]["code"] == "validation_error"
        assert r.json()["error"]["details"]
    r = api.post("/api/v1/memories", {"text": "ok", "user_id": "not valid"})
    assert r.status_code == 400
    assert r.json()["error"]["code"] == "invalid_id"


def test_it_gets_a_memory(api) -> None:
    memory_id = create(api).json()["id"]
    r = api.get(f"/api/v1/memories/{memory_id}")
    assert r.status_code == 200
    assert r.json()["id"] == memory_id
    assert api.get(f"/api/v1/memories/{uuid.uuid4()}").status_code == 404
    r = api.get("/api/v1/memories/not-a-uuid")
    assert r.status_code == 400
    assert r.json()["error"]["code"] == "invalid_id"


def test_it_lists_memories_newest_first(api, namespace, django_assert_max_num_queries) -> None:
    ids = [create(api, f"fact {i}").json()["id"] for i in range(5)]
    create(api, "bob fact", user_id="bob")
    api.post(f"/api/v1/memories/{ids[0]}/pin", {})
    candidate(namespace)
    with django_assert_max_num_queries(3):
        r = api.get("/api/v1/memories?user_id=alice&status=active&limit=3")
    body = r.json()
    assert [m["id"] for m in body["items"]] == ids[::-1][:3]
    r = api.get(f"/api/v1/memories?user_id=alice&status=active&limit=3&cursor={body['next_cursor']}")
    assert [m["id"] for m in r.json()["items"]] == ids[::-1][3:]
    assert r.json()["next_cursor"] is None
    assert [m["id"] for m in api.get("/api/v1/memories?pinned=true").json()["items"]] == [ids[0]]
    assert [m["status"] for m in api.get("/api/v1/memories?status=candidate").json()["items"]] == ["candidate"]
    assert len(api.get("/api/v1/memories?memory_type=semantic").json()["items"]) == 7
    assert api.get("/api/v1/memories?status=bogus").status_code == 422


def test_the_memory_list_keeps_its_query_count_flat(api, namespace, django_assert_max_num_queries) -> None:
    for i in range(40):
        memory_create(namespace=namespace, user_id="alice", text=f"fact {i}", actor=SYSTEM, pinned=i % 2 == 0)
    api.get("/api/v1/memories?limit=1")
    with django_assert_max_num_queries(2):
        r = api.get("/api/v1/memories?limit=200")
    assert len(r.json()["items"]) == 40
    assert sum(m["pinned"] for m in r.json()["items"]) == 20


def test_it_edits_a_memory_and_keeps_revisions(api, django_assert_max_num_queries) -> None:
    memory_id = create(api, topics=["drinks"]).json()["id"]
    r = api.patch(
        f"/api/v1/memories/{memory_id}",
        {"text": "Alice loves green tea", "topics": ["drinks", "mornings"], "reason": "more precise"},
    )
    assert r.status_code == 200
    assert r.json()["revision"] == 2
    assert r.json()["text"] == "Alice loves green tea"
    api.patch(f"/api/v1/memories/{memory_id}", {"memory_type": "preference", "metadata": {"k": 1}})
    with django_assert_max_num_queries(3):
        r = api.get(f"/api/v1/memories/{memory_id}/revisions")
    items = r.json()["items"]
    assert [i["revision"] for i in items] == [1, 2, 3]
    assert items[1]["reason"] == "more precise"
    assert items[1]["actor"].startswith("api_key:")
    assert items[2]["memory_type"] == "preference"
    assert set(items[0]) >= {"revision", "text", "topics", "entities", "metadata", "actor", "reason", "created_at"}


def test_an_edit_cannot_bring_back_a_forgotten_text(api) -> None:
    gone = create(api, "Alice smokes").json()["id"]
    api.delete(f"/api/v1/memories/{gone}")
    memory_id = create(api).json()["id"]
    r = api.patch(f"/api/v1/memories/{memory_id}", {"text": "alice smokes"})
    assert r.status_code == 409
    assert r.json()["error"]["code"] == "tombstoned"
    other = create(api, "Alice lives in Lisbon").json()["id"]
    r = api.patch(f"/api/v1/memories/{other}", {"text": "Alice likes green tea."})
    assert r.status_code == 409
    assert r.json()["error"]["code"] == "duplicate"


def test_editing_a_missing_memory_is_404(api) -> None:
    assert api.patch(f"/api/v1/memories/{uuid.uuid4()}", {"text": "x"}).status_code == 404


def test_it_shows_evidence(api, namespace, django_assert_max_num_queries) -> None:
    _, messages = session_append_messages(
        namespace=namespace,
        session_id="s1",
        user_id="alice",
        messages=[NewMessage(role="user", content="I like green tea"), NewMessage(role="user", content="a lot")],
    )
    memory = memory_create(
        namespace=namespace,
        user_id="alice",
        text="Alice likes green tea",
        actor=SYSTEM,
        evidence_message_ids=[m.pk for m in messages],
    ).memory
    api.get("/api/v1/memories?limit=1")
    with django_assert_max_num_queries(3):
        r = api.get(f"/api/v1/memories/{memory.pk}/evidence")
    assert r.status_code == 200
    items = r.json()["items"]
    assert [(i["session_id"], i["seq"], i["role"], i["content"]) for i in items] == [
        ("s1", 1, "user", "I like green tea"),
        ("s1", 2, "user", "a lot"),
    ]
    assert items[0]["message_id"] == str(messages[0].pk)
    direct = create(api, "Alice lives in Lisbon").json()["id"]
    assert api.get(f"/api/v1/memories/{direct}/evidence").json() == {"items": []}


def test_pinned_memories_need_force_to_be_forgotten(api) -> None:
    memory_id = create(api).json()["id"]
    r = api.post(f"/api/v1/memories/{memory_id}/pin", {"reason": "core fact"})
    assert r.status_code == 200
    assert r.json()["pinned"] is True
    assert Pin.objects.get().reason == "core fact"
    r = api.delete(f"/api/v1/memories/{memory_id}")
    assert r.status_code == 409
    assert r.json()["error"]["code"] == "pinned"
    assert api.delete(f"/api/v1/memories/{memory_id}?force=true").status_code == 204
    assert not Memory.objects.exists()
    assert AuditEvent.objects.filter(action="memory.forget", data__forced=True).count() == 1


def test_it_pins_without_a_body_and_unpins(api) -> None:
    memory_id = create(api).json()["id"]
    r = api.client.generic("POST", f"/api/v1/memories/{memory_id}/pin", b"", headers=api.headers)
    assert r.status_code == 200
    assert r.json()["pinned"] is True
    assert api.post(f"/api/v1/memories/{memory_id}/pin", {}).json()["pinned"] is True
    r = api.delete(f"/api/v1/memories/{memory_id}/pin")
    assert r.status_code == 200
    assert r.json()["pinned"] is False
    assert api.delete(f"/api/v1/memories/{memory_id}").status_code == 204


def test_it_approves_a_candidate(api, namespace) -> None:
    memory = candidate(namespace)
    r = api.post(f"/api/v1/memories/{memory.pk}/approve", {})
    assert r.status_code == 200
    assert r.json()["status"] == "active"
    r = api.post(f"/api/v1/memories/{memory.pk}/approve", {})
    assert r.status_code == 409
    assert r.json()["error"]["code"] == "not_candidate"


def test_it_rejects_a_candidate_for_good(api, namespace) -> None:
    memory = candidate(namespace)
    r = api.post(f"/api/v1/memories/{memory.pk}/reject", {"reason": "not true"})
    assert r.status_code == 204
    tombstone = Tombstone.objects.get()
    assert tombstone.reason == "rejected"
    assert tombstone.text == "Alice might like jazz"
    assert create(api, "Alice might like jazz").status_code == 409
    active = create(api, "Alice lives in Lisbon").json()["id"]
    assert api.post(f"/api/v1/memories/{active}/reject", {}).status_code == 409


def test_forgetting_a_missing_memory_is_404(api) -> None:
    missing = uuid.uuid4()
    for method, path in [
        ("delete", f"/api/v1/memories/{missing}"),
        ("post", f"/api/v1/memories/{missing}/pin"),
        ("delete", f"/api/v1/memories/{missing}/pin"),
        ("post", f"/api/v1/memories/{missing}/approve"),
        ("post", f"/api/v1/memories/{missing}/reject"),
        ("get", f"/api/v1/memories/{missing}/revisions"),
        ("get", f"/api/v1/memories/{missing}/evidence"),
    ]:
        response = api.post(path, {}) if method == "post" else getattr(api, method)(path)
        assert response.status_code == 404, (method, path)
