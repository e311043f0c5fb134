"""Concurrency through a real server: appends never share nor skip a seq and never interleave; edits made
from the same revision never overwrite each other (ETag and If-Match)."""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import psycopg
import pytest
from django.db import connection

from memoryadmin.conversations.models import Message
from memoryadmin.memories.models import MemoryRevision

THREADS = 6
# The session-deletion races run this many times each (the slow suite; RACE_TRIALS=100 for the report).
RACE_TRIALS = int(os.environ.get("RACE_TRIALS", "25"))
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


def _backend_waiting_on_a_lock(probe, *, other_than: int) -> int:
    """The pid of the server's backend once it waits for a row lock (a lock wait, not a timing guess)."""
    for _ in range(600):
        row = probe.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> %s "
            "AND wait_event_type = 'Lock'",
            [other_than],
        ).fetchone()
        if row:
            return row[0]
        time.sleep(0.05)
    raise AssertionError("the request never waited for the row held")


def _chain_locks_held(probe, pid: int, namespace_id: int) -> int:
    # The chain's lock is one bigint key (0x6D61 << 32 | namespace id): pg_locks shows its halves.
    return probe.execute(
        "SELECT count(*) FROM pg_locks WHERE pid = %s AND locktype = 'advisory' AND granted "
        "AND classid = %s AND objid = %s AND objsubid = 1",
        [pid, 0x6D61, namespace_id],
    ).fetchone()[0]


@pytest.mark.parametrize("held", ["memory", "messages"])
def test_deleting_a_session_with_its_memories_takes_the_audit_lock_last(live_server, namespace, make_key, held):
    """A writer of one memory (or of a run's messages) locks its rows, then the audit chain. Deleting a session
    with its memories must not hold the chain while it waits for such rows, or the two deadlock (a 503)."""
    raw = make_key(namespace)[1]
    headers = {"Authorization": f"Bearer {raw}"}
    with httpx.Client(base_url=live_server.url, headers=headers, timeout=60) as client:
        client.post(
            "/api/v1/sessions/s1/messages",
            json={"user_id": "alice", "messages": [{"role": "user", "content": "hi", "run_id": "r1"}]},
        ).raise_for_status()
        ids = [
            client.post(
                "/api/v1/memories", json={"user_id": "alice", "text": f"Alice fact {n}", "session_id": "s1"}
            ).json()["id"]
            for n in range(3)
        ]
    settings = connection.settings_dict
    conninfo = {"dbname": settings["NAME"], "host": settings["HOST"], "port": settings["PORT"] or 5432}
    with (
        psycopg.connect(user=settings["USER"], **conninfo, autocommit=True) as probe,
        psycopg.connect(user=settings["USER"], **conninfo) as holder,
    ):
        if held == "memory":
            # What a PATCH holds before it audits: the row of a memory the deletion reaches after another.
            holder.execute("SELECT id FROM memories_memory WHERE id = %s FOR UPDATE", [sorted(ids)[1]])
        else:
            holder.execute("SELECT id FROM conversations_message WHERE run_id = 'r1' FOR UPDATE")
        holder_pid = holder.info.backend_pid
        with ThreadPoolExecutor(1) as pool:
            answer = pool.submit(
                httpx.delete,
                f"{live_server.url}/api/v1/sessions/s1",
                params={"memories": "delete"},
                headers=headers,
                timeout=60,
            )
            waiting = _backend_waiting_on_a_lock(probe, other_than=holder_pid)
            chain_locks_while_waiting = _chain_locks_held(probe, waiting, namespace.pk)
            holder.rollback()
            status = answer.result().status_code
    assert chain_locks_while_waiting == 0
    assert status == 204


@pytest.mark.slow
@pytest.mark.parametrize("rival", ["patch", "delete_run"])
def test_a_session_deleted_with_its_memories_while_they_change_answers_no_5xx(live_server, namespace, make_key, rival):
    """The two races of a session's deletion: editing one of its memories, deleting one run's messages."""
    raw = make_key(namespace)[1]
    headers = {"Authorization": f"Bearer {raw}"}
    statuses: list[int] = []
    with httpx.Client(base_url=live_server.url, headers=headers, timeout=60) as client:
        for trial in range(RACE_TRIALS):
            session = f"race{trial}"
            client.post(
                f"/api/v1/sessions/{session}/messages",
                json={
                    "user_id": "alice",
                    "messages": [{"role": "user", "content": f"hi {n}", "run_id": f"r{n % 2}"} for n in range(4)],
                },
            ).raise_for_status()
            ids = [
                client.post(
                    "/api/v1/memories",
                    json={"user_id": "alice", "text": f"Alice fact {trial} {n}", "session_id": session},
                ).json()["id"]
                for n in range(4)
            ]
            start = threading.Barrier(2)

            def delete_session(session: str = session, start: threading.Barrier = start) -> int:
                with httpx.Client(base_url=live_server.url, headers=headers, timeout=60) as own:
                    start.wait()
                    return own.delete(f"/api/v1/sessions/{session}", params={"memories": "delete"}).status_code

            def change(session: str = session, ids: list[str] = ids, start: threading.Barrier = start) -> int:
                with httpx.Client(base_url=live_server.url, headers=headers, timeout=60) as own:
                    start.wait()
                    if rival == "patch":
                        return own.patch(f"/api/v1/memories/{ids[-1]}", json={"topics": ["x"]}).status_code
                    return own.delete(f"/api/v1/sessions/{session}/messages", params={"run_id": "r1"}).status_code

            with ThreadPoolExecutor(2) as pool:
                statuses.extend(f.result() for f in [pool.submit(delete_session), pool.submit(change)])
            assert not Message.objects.filter(session__session_id=session).exists()
    assert all(status < 500 for status in statuses), statuses
