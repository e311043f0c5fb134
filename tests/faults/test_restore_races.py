"""Findings of the integrity audit, through HTTP: races with a restore or a create, and crafted snapshots."""

from __future__ import annotations

import json
import time

import httpx
import pytest
from django.db import connection

from memoryadmin.conversations.models import Session
from memoryadmin.core.fingerprints import text_fingerprint
from memoryadmin.memories.models import Memory, MemoryRevision, Tombstone
from memoryadmin.memories.services import NewMemory, memory_create_many
from tests.conftest import SYSTEM
from tests.faults.test_races import in_threads
from tests.governance.test_snapshots import lines_of

pytestmark = pytest.mark.django_db(transaction=True)


def client(live_server, raw_key: str) -> httpx.Client:
    return httpx.Client(
        base_url=f"{live_server.url}/api/v1", headers={"Authorization": f"Bearer {raw_key}"}, timeout=120
    )


def say(http: httpx.Client, session_id: str, user_id: str, content: str) -> None:
    body = {"user_id": user_id, "messages": [{"role": "user", "content": content}]}
    assert http.post(f"/sessions/{session_id}/messages", json=body).status_code == 201


def export(http: httpx.Client, path: str = "/snapshots/export") -> bytes:
    response = http.get(path)
    assert response.status_code == 200, response.text
    return response.content


def restore(http: httpx.Client, body: bytes, *, dry_run: bool = False) -> httpx.Response:
    return http.post(
        f"/snapshots/restore?dry_run={'true' if dry_run else 'false'}",
        content=body,
        headers={"Content-Type": "application/x-ndjson"},
    )


def filler(namespace, user_id: str, count: int) -> None:
    """Many memories, so that a restore of them takes a while."""
    memory_create_many(
        namespace=namespace,
        actor=SYSTEM,
        items=[NewMemory(user_id=user_id, text=f"{user_id} noted item number {i}") for i in range(count)],
    )


def rebuilt(body: bytes, change) -> bytes:
    """The snapshot with its records changed by `change(records)`, the trailer recomputed."""
    import hashlib

    lines = lines_of(body)
    header, records = lines[0], change(lines[1:-1])
    out = [json.dumps(header).encode() + b"\n"] + [json.dumps(r).encode() + b"\n" for r in records]
    digest = hashlib.sha256(b"".join(out)).hexdigest()
    return b"".join(out) + json.dumps({"type": "end", "records": len(records), "sha256": digest}).encode() + b"\n"


def test_a_forget_during_a_restore_never_leaves_the_memory_beside_its_tombstone(live_server, namespace, make_key):
    """Finding 9: tombstones were looked up only during validation."""
    http = client(live_server, make_key(namespace)[1])
    secret = http.post("/memories", json={"user_id": "alice", "text": "Alice keeps a secret plan"}).json()
    filler(namespace, "alice", 2000)
    body = export(http)
    connection.close()
    for _ in range(2):

        def forget_meanwhile() -> int:
            time.sleep(0.3)
            with client(live_server, http.headers["Authorization"].split()[1]) as other:
                return other.delete(f"/memories/{secret['id']}").status_code

        restored, forgotten = in_threads(lambda: restore(http, body), forget_meanwhile)
        assert restored.status_code == 200, restored
        assert forgotten in (204, 404)
        fingerprint = text_fingerprint("Alice keeps a secret plan")
        held = Memory.objects.filter(namespace=namespace, user_id="alice", fingerprint=fingerprint).exists()
        stoned = Tombstone.objects.filter(namespace=namespace, user_id="alice", fingerprint=fingerprint).exists()
        assert stoned and not held, "the forgotten memory came back beside its tombstone"


def test_an_erasure_during_a_restore_brings_nobody_back(live_server, namespace, make_key):
    """Finding 8: the erasure ledger was read once, before anything was applied."""
    from memoryadmin.governance.erasure import erasure_execute, erasure_request

    http = client(live_server, make_key(namespace)[1])
    say(http, "alice-chat", "alice", "hi")
    filler(namespace, "alice", 2000)
    body = export(http)
    connection.close()

    def erase_meanwhile():
        time.sleep(0.3)
        erasure = erasure_request(namespace=namespace, user_id="alice", actor=SYSTEM, enqueue=False)
        return erasure_execute(erasure_id=erasure.pk)

    restored, erased = in_threads(lambda: restore(http, body), erase_meanwhile)
    assert restored.status_code == 200, restored
    assert erased.status == "completed", erased.error
    assert erased.receipt["verification"]["rows_remaining"] == 0
    assert not Memory.objects.filter(namespace=namespace, user_id="alice").exists()
    assert not Session.objects.filter(namespace=namespace, user_id="alice").exists()
    # And a later restore of the same file brings nothing back either.
    assert restore(http, body).status_code == 200
    assert not Memory.objects.filter(namespace=namespace, user_id="alice").exists()


def test_a_create_racing_a_forget_of_the_same_text_never_outlives_its_tombstone(live_server, namespace, make_key):
    """Finding 10: memory_create checked the tombstone, then the existing row, with nothing in between."""
    raw = make_key(namespace)[1]
    for round_no in range(25):
        text = f"Alice fact {round_no}"
        with client(live_server, raw) as http:
            memory = http.post("/memories", json={"user_id": "alice", "text": text}).json()

        def forget(memory_id=memory["id"]) -> int:
            with client(live_server, raw) as http:
                return http.delete(f"/memories/{memory_id}").status_code

        def create(text=text) -> int:
            with client(live_server, raw) as http:
                return http.post("/memories", json={"user_id": "alice", "text": text}).status_code

        forgotten, created = in_threads(forget, create)
        assert forgotten == 204, (round_no, forgotten, created)
        assert created in (200, 409), (round_no, forgotten, created)
        fingerprint = text_fingerprint(text)
        assert not Memory.objects.filter(namespace=namespace, user_id="alice", fingerprint=fingerprint).exists()


def test_a_restore_refuses_times_that_do_not_exist_in_utc_and_runaway_counters(live_server, namespace, make_key):
    """Finding 11: a created_at of 0001-01-01T00:00:00+14:00 was stored and broke the person's reads and erasure."""
    http = client(live_server, make_key(namespace)[1])
    say(http, "alice-chat", "alice", "hi")
    http.post("/memories", json={"user_id": "alice", "text": "Alice likes tea"})
    body = export(http)

    def early(records):
        return [{**r, "created_at": "0001-01-01T00:00:00+14:00"} if r["type"] == "memory" else r for r in records]

    def runaway(records):
        return [{**r, "message_count": 2**31 - 1} if r["type"] == "session" else r for r in records]

    for change, field in ((early, "created_at"), (runaway, "message_count")):
        answer = restore(http, rebuilt(body, change))
        assert answer.status_code == 422, answer.text
        assert answer.json()["error"]["code"] == "invalid_snapshot" and field in answer.json()["error"]["message"]
    assert http.get("/memories?user_id=alice").status_code == 200


def test_a_crafted_restore_cannot_bring_forgotten_text_back_as_history(live_server, namespace, make_key):
    """Finding 17: revision records were not checked against tombstones."""
    http = client(live_server, make_key(namespace)[1])
    gone = http.post("/memories", json={"user_id": "alice", "text": "Alice owes money to Bob"}).json()
    kept = http.post("/memories", json={"user_id": "alice", "text": "Alice likes tea"}).json()
    assert http.delete(f"/memories/{gone['id']}").status_code == 204
    body = export(http)

    def smuggle(records):
        revision = next(r for r in records if r["type"] == "revision" and r["memory_id"] == kept["id"])
        return [*records, {**revision, "revision": 2, "text": "Alice owes money to Bob"}]

    assert restore(http, rebuilt(body, smuggle)).status_code == 200
    texts = set(MemoryRevision.objects.filter(memory_id=kept["id"]).values_list("text", flat=True))
    assert texts == {"Alice likes tea"}


def test_a_persons_snapshot_cannot_write_into_another_persons_session(live_server, namespace, make_key):
    """Finding 17: message records carry no user_id, so a one-person snapshot could fill bob's session."""
    http = client(live_server, make_key(namespace)[1])
    say(http, "alice-chat", "alice", "hi")
    say(http, "bob-chat", "bob", "yo")
    body = export(http, "/subjects/alice/export")

    def into_bob(records):
        message = next(r for r in records if r["type"] == "message")
        return [*records, {**message, "id": "999999", "session_id": "bob-chat", "seq": 7, "content": "planted"}]

    assert restore(http, rebuilt(body, into_bob)).status_code == 200
    bob = http.get("/sessions/bob-chat/messages").json()["items"]
    assert [m["content"] for m in bob] == ["yo"]


def test_a_dry_run_does_not_tell_whether_an_id_exists_in_another_namespace(
    live_server, namespace, other_namespace, make_key
):
    """Finding 17: a memory id held by another namespace was reported "skipped" instead of "created"."""
    ours, theirs = client(live_server, make_key(namespace)[1]), client(live_server, make_key(other_namespace)[1])
    elsewhere = theirs.post("/memories", json={"user_id": "carol", "text": "Carol plays the oboe"}).json()
    ours.post("/memories", json={"user_id": "alice", "text": "Alice likes tea"})
    body = export(ours)

    def with_id(memory_id: str):
        def change(records):
            out = []
            for r in records:
                if r["type"] == "memory":
                    out.append({**r, "id": memory_id, "text": "Alice plays the oboe"})
                elif r["type"] in ("revision", "evidence", "pin"):
                    out.append({**r, "memory_id": memory_id})
                else:
                    out.append(r)
            return out

        return change

    taken = restore(ours, rebuilt(body, with_id(elsewhere["id"])), dry_run=True).json()
    free = restore(ours, rebuilt(body, with_id("0b5e3c55-3a3f-4c7c-9a8e-2a2d3f4b5c6d")), dry_run=True).json()
    assert taken["by_type"] == free["by_type"] and taken["counts"] == free["counts"]
    applied = restore(ours, rebuilt(body, with_id(elsewhere["id"])))
    assert applied.status_code == 200
    assert theirs.get(f"/memories/{elsewhere['id']}").json()["text"] == "Carol plays the oboe"
    assert Memory.objects.filter(namespace=namespace, text="Alice plays the oboe").exists()
