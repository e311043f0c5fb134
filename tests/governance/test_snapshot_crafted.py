"""Crafted snapshots: what a restore writes stays within its person, its memories stay editable, and a
forgotten text comes back in no field."""

from __future__ import annotations

import hashlib

import orjson

from memoryadmin.memories.models import Memory, MemoryEvidence, MemoryRevision, Pin
from tests.governance.test_snapshots import restore


def remember(api, text: str, user_id: str = "alice", **fields) -> dict:
    response = api.post("/api/v1/memories", {"user_id": user_id, "text": text, **fields})
    assert response.status_code == 201, response.content
    return response.json()


def parts(body: bytes) -> tuple[dict, list[dict]]:
    lines = [orjson.loads(line) for line in body.splitlines()]
    return lines[0], lines[1:-1]


def sealed(header: dict, records: list[dict]) -> bytes:
    lines = [orjson.dumps(header) + b"\n", *(orjson.dumps(r) + b"\n" for r in records)]
    body = b"".join(lines)
    return body + orjson.dumps({"type": "end", "records": len(records), "sha256": hashlib.sha256(body).hexdigest()})


def exported(api, path: str = "/api/v1/snapshots/export") -> tuple[dict, list[dict]]:
    response = api.get(path)
    assert response.status_code == 200, response.content
    return parts(b"".join(response.streaming_content))


def one(records: list[dict], kind: str) -> dict:
    return next(r for r in records if r["type"] == kind)


def test_a_persons_snapshot_writes_nothing_into_another_persons_memory(api, namespace, make_person) -> None:
    make_person("alice")
    bob = remember(api, "Bob likes coffee", user_id="bob")
    header, records = exported(api, "/api/v1/subjects/alice/export")
    assert header["user_id"] == "alice"
    # Alice's pin, revision and evidence, pointed at Bob's memory.
    crafted = [
        {**one(records, "revision"), "memory_id": bob["id"], "revision": 1, "text": "Bob likes tea"},
        {**one(records, "evidence"), "memory_id": bob["id"]},
        {**one(records, "pin"), "memory_id": bob["id"]},
    ]
    sessions_and_messages = [r for r in records if r["type"] in ("session", "message")]
    answer = restore(api, sealed(header, sessions_and_messages + crafted), dry_run=False)
    assert answer.status_code == 200, answer.content
    assert not Pin.objects.filter(memory_id=bob["id"]).exists()
    assert list(MemoryRevision.objects.filter(memory_id=bob["id"]).values_list("text", flat=True)) == [
        "Bob likes coffee"
    ]
    assert not MemoryEvidence.objects.filter(memory_id=bob["id"]).exists()
    assert {kind: answer.json()["by_type"][kind]["skipped"] for kind in ("revision", "evidence", "pin")} == {
        "revision": 1,
        "evidence": 1,
        "pin": 1,
    }


def test_a_restored_revision_count_leaves_the_memory_editable(api, namespace) -> None:
    memory = remember(api, "Alice likes tea")
    header, records = exported(api)
    huge = [{**r, "revision": 2**31 - 1} if r["type"] == "memory" else r for r in records]
    answer = restore(api, sealed(header, huge), dry_run=False)
    assert answer.status_code == 422, answer.content
    # Revision records beyond the memory's own revision are not history it has.
    ahead = [
        *records,
        {**one(records, "revision"), "revision": 2, "text": "Alice likes green tea"},
        {**one(records, "revision"), "revision": 3, "text": "Alice likes black tea"},
    ]
    answer = restore(api, sealed(header, ahead), dry_run=False)
    assert answer.status_code == 200, answer.content
    assert answer.json()["by_type"]["revision"]["skipped"] == 2
    edited = api.patch(f"/api/v1/memories/{memory['id']}", {"text": "Alice likes coffee"})
    assert edited.status_code == 200, edited.content
    assert edited.json()["revision"] == 2


def test_a_forgotten_text_comes_back_in_no_field_of_a_restore(api, namespace) -> None:
    forgotten = remember(api, "Bob likes chess", user_id="bob")
    kept = remember(api, "Bob likes go", user_id="bob")
    assert api.post(f"/api/v1/memories/{kept['id']}/pin", {"reason": "keep"}).status_code == 200
    header, records = exported(api)
    assert api.delete(f"/api/v1/memories/{forgotten['id']}").status_code == 204
    Memory.objects.filter(pk=kept["id"]).delete()
    memory = next(r for r in records if r["type"] == "memory" and r["id"] == kept["id"])
    revision = next(r for r in records if r["type"] == "revision" and r["memory_id"] == kept["id"])
    pin = one(records, "pin")
    hidden = "bob likes  CHESS"  # the forgotten text, as a person would type it again
    for crafted in (
        [{**memory, "metadata": {"note": {"said": hidden}}}],
        [{**memory, "topics": [hidden]}],
        [{**memory, "entities": [hidden]}],
        [{**memory, "subject": hidden}],
        [{**memory, "text": "Bob likes ch\u00a0ess"}],
        [memory, {**revision, "reason": hidden}],
        [memory, {**pin, "reason": hidden}],
    ):
        answer = restore(api, sealed(header, crafted), dry_run=False)
        assert answer.status_code == 200, answer.content
        rows = [
            *Memory.objects.filter(namespace=namespace).values_list(
                "text", "metadata", "topics", "entities", "subject"
            ),
            *MemoryRevision.objects.filter(memory__namespace=namespace).values_list("reason", flat=True),
            *Pin.objects.filter(memory__namespace=namespace).values_list("reason", flat=True),
        ]
        assert "chess" not in str(rows).lower().replace("\\xa0", ""), crafted
        Memory.objects.filter(pk=kept["id"]).delete()


def test_a_text_with_nul_is_refused_for_what_it_is(api, namespace) -> None:
    remember(api, "Alice keeps bees")
    header, records = exported(api)
    memory = one(records, "memory")
    memory["text"] = "Alice keeps\x00bees"
    response = restore(api, sealed(header, records), dry_run=True)
    assert response.status_code == 422, response.content
    message = response.json()["error"]["message"]
    line = records.index(memory) + 2
    assert message == f"line {line}: text must not contain NUL characters"
