from __future__ import annotations

import uuid

from memoryadmin.memories.models import Memory, MemoryStatus, Pin, Tombstone
from memoryadmin.memories.services import memory_create
from tests.conftest import SYSTEM


def remember(namespace, text: str, **kwargs) -> Memory:
    return memory_create(namespace=namespace, user_id="alice", text=text, actor=SYSTEM, **kwargs).memory


def bulk(api, action: str, ids, **body):
    return api.post("/api/v1/memories/bulk", {"action": action, "ids": [str(i) for i in ids], **body})


def test_it_pins_and_unpins_many(api, namespace) -> None:
    memories = [remember(namespace, f"fact {i}") for i in range(3)]
    r = bulk(api, "pin", [m.pk for m in memories], reason="important")
    assert r.status_code == 200
    assert r.json() == {"done": [str(m.pk) for m in memories], "failed": []}
    assert Pin.objects.count() == 3
    bulk(api, "unpin", [memories[0].pk])
    assert Pin.objects.count() == 2


def test_each_id_succeeds_or_fails_on_its_own(api, namespace, other_namespace) -> None:
    plain = remember(namespace, "plain fact")
    pinned = remember(namespace, "pinned fact", pinned=True)
    foreign = memory_create(namespace=other_namespace, user_id="alice", text="foreign", actor=SYSTEM).memory
    missing = uuid.uuid4()
    r = bulk(api, "forget", [plain.pk, pinned.pk, foreign.pk, missing, "junk"])
    body = r.json()
    assert body["done"] == [str(plain.pk)]
    failures = {f["id"]: f["error"]["code"] for f in body["failed"]}
    assert failures == {
        str(pinned.pk): "pinned",
        str(foreign.pk): "not_found",
        str(missing): "not_found",
        "junk": "invalid_id",
    }
    assert Memory.objects.filter(pk__in=[pinned.pk, foreign.pk]).count() == 2
    assert Tombstone.objects.filter(namespace=namespace).count() == 1


def test_it_reviews_many(api, namespace) -> None:
    a = remember(namespace, "candidate a", status=MemoryStatus.CANDIDATE)
    b = remember(namespace, "candidate b", status=MemoryStatus.CANDIDATE)
    active = remember(namespace, "active c")
    r = bulk(api, "approve", [a.pk, active.pk])
    assert r.json()["done"] == [str(a.pk)]
    assert r.json()["failed"][0]["error"]["code"] == "not_candidate"
    r = bulk(api, "reject", [b.pk])
    assert r.json()["done"] == [str(b.pk)]
    assert Tombstone.objects.get().reason == "rejected"


def test_it_limits_the_batch(api) -> None:
    assert bulk(api, "pin", [uuid.uuid4() for _ in range(1001)]).status_code == 422
    assert bulk(api, "pin", []).status_code == 422
    assert bulk(api, "explode", [uuid.uuid4()]).status_code == 422


def test_a_thousand_ids_are_fine(api, namespace) -> None:
    ids = [uuid.uuid4() for _ in range(1000)]
    r = bulk(api, "pin", ids)
    assert r.status_code == 200
    assert len(r.json()["failed"]) == 1000
