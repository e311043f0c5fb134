"""Concurrency through a real server: appends never share nor skip a seq and never interleave; edits made
from the same revision never overwrite each other (ETag and If-Match)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import httpx

from memoryadmin.conversations.models import Message
from memoryadmin.memories.models import MemoryRevision

THREADS = 6
APPENDS_PER_THREAD = 8
BATCH = 3


def test_concurrent_appends_never_share_or_skip_a_seq(live_server, namespace, make_key) -> None:
    _, raw = make_key(namespace)
    headers = {"Authorization": f"Bearer {raw}"}
    url = f"{live_server.url}/api/v1/sessions/busy/messages"

    def worker(thread: int) -> list[list[int]]:
        seqs = []
        with httpx.Client(headers=headers, timeout=30) as client:
            for n in range(APPENDS_PER_THREAD):
                body = {
                    "user_id": "alice",
                    "messages": [{"role": "user", "content": f"t{thread} a{n} m{i}"} for i in range(BATCH)],
                }
                response = client.post(url, json=body)
                assert response.status_code == 201, response.text
                seqs.append([m["seq"] for m in response.json()["messages"]])
        return seqs

    with ThreadPoolExecutor(THREADS) as pool:
        batches = [batch for result in pool.map(worker, range(THREADS)) for batch in result]

    total = THREADS * APPENDS_PER_THREAD * BATCH
    all_seqs = sorted(seq for batch in batches for seq in batch)
    assert all_seqs == list(range(1, total + 1))
    for batch in batches:
        assert batch == list(range(batch[0], batch[0] + BATCH))
    stored = list(Message.objects.order_by("seq").values_list("seq", "content"))
    assert [seq for seq, _ in stored] == list(range(1, total + 1))
    # Within each batch the stored order is the order sent.
    for batch in batches:
        contents = [content for seq, content in stored if seq in batch]
        assert [c.rsplit(" ", 1)[1] for c in contents] == [f"m{i}" for i in range(BATCH)]
        assert len({c.rsplit(" ", 1)[0] for c in contents}) == 1


def test_memory_answers_carry_the_etag_of_their_revision(api) -> None:
    created = api.post("/api/v1/memories", {"user_id": "alice", "text": "Alice likes tea"})
    memory_id = created.json()["id"]
    assert created["ETag"] == '"1"'
    assert api.get(f"/api/v1/memories/{memory_id}")["ETag"] == '"1"'
    edited = api.patch(f"/api/v1/memories/{memory_id}", {"text": "Alice likes green tea"})
    assert (edited["ETag"], edited.json()["revision"]) == ('"2"', 2)
    assert api.post(f"/api/v1/memories/{memory_id}/pin")["ETag"] == '"2"'


def test_a_second_edit_from_the_same_revision_is_412_and_overwrites_nothing(api) -> None:
    memory_id = api.post("/api/v1/memories", {"user_id": "alice", "text": "Alice likes tea"}).json()["id"]
    seen = api.get(f"/api/v1/memories/{memory_id}")["ETag"]
    first = api.patch(f"/api/v1/memories/{memory_id}", {"text": "Alice likes green tea"}, headers={"If-Match": seen})
    assert first.status_code == 200
    second = api.patch(f"/api/v1/memories/{memory_id}", {"text": "Alice likes black tea"}, headers={"If-Match": seen})
    assert second.status_code == 412
    error = second.json()["error"]
    assert (error["code"], error["details"]["revision"]) == ("precondition_failed", 2)
    assert second["ETag"] == '"2"'
    current = api.get(f"/api/v1/memories/{memory_id}").json()
    assert (current["text"], current["revision"]) == ("Alice likes green tea", 2)
    # From the current revision the change goes through.
    third = api.patch(f"/api/v1/memories/{memory_id}", {"text": "Alice likes black tea"}, headers={"If-Match": '"2"'})
    assert (third.status_code, third.json()["revision"]) == (200, 3)


def test_a_delete_from_a_stale_revision_is_412_and_the_memory_stays(api) -> None:
    memory_id = api.post("/api/v1/memories", {"user_id": "alice", "text": "Alice likes tea"}).json()["id"]
    api.patch(f"/api/v1/memories/{memory_id}", {"text": "Alice likes green tea"})
    stale = api.delete(f"/api/v1/memories/{memory_id}", headers={"If-Match": '"1"'})
    assert (stale.status_code, stale.json()["error"]["code"]) == (412, "precondition_failed")
    assert api.get(f"/api/v1/memories/{memory_id}").status_code == 200
    assert api.delete(f"/api/v1/memories/{memory_id}", headers={"If-Match": '"2"'}).status_code == 204
    assert api.get(f"/api/v1/memories/{memory_id}").status_code == 404


def test_if_match_star_asks_only_that_it_exists_and_a_malformed_tag_is_400(api) -> None:
    memory_id = api.post("/api/v1/memories", {"user_id": "alice", "text": "Alice likes tea"}).json()["id"]
    assert (
        api.patch(f"/api/v1/memories/{memory_id}", {"topics": ["drinks"]}, headers={"If-Match": "*"}).status_code == 200
    )
    for bad in ("2", 'W/"2"', '"2", "3"', "abc"):
        response = api.patch(f"/api/v1/memories/{memory_id}", {"topics": ["x"]}, headers={"If-Match": bad})
        assert (response.status_code, response.json()["error"]["code"]) == (400, "invalid_precondition"), bad
    assert api.get(f"/api/v1/memories/{memory_id}").json()["topics"] == ["drinks"]


def test_concurrent_editors_of_one_revision_make_exactly_one_change(live_server, namespace, make_key) -> None:
    raw = make_key(namespace)[1]
    headers = {"Authorization": f"Bearer {raw}"}
    with httpx.Client(base_url=live_server.url, headers=headers, timeout=30) as client:
        created = client.post("/api/v1/memories", json={"user_id": "alice", "text": "Alice likes tea"})
    url = f"{live_server.url}/api/v1/memories/{created.json()['id']}"
    editors = 6
    start = threading.Barrier(editors)

    def edit(n: int) -> httpx.Response:
        with httpx.Client(headers={**headers, "If-Match": created.headers["ETag"]}, timeout=30) as client:
            start.wait()
            return client.patch(url, json={"text": f"Alice likes tea number {n}"})

    with ThreadPoolExecutor(editors) as pool:
        statuses = sorted(r.status_code for r in pool.map(edit, range(editors)))
    assert statuses == [200] + [412] * (editors - 1)
    assert MemoryRevision.objects.filter(memory_id=created.json()["id"]).count() == 2
