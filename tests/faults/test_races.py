"""Races between real threads, each with its own database connection: pin against forget,
concurrent edits of one memory, and an erasure racing appends and extraction."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from django.db import connection

from memoryadmin.audit.models import AuditEvent
from memoryadmin.audit.services import verify_audit_chain
from memoryadmin.conversations.models import Message, Session
from memoryadmin.conversations.services import NewMessage, session_append_messages
from memoryadmin.core.errors import Conflict, NotFound
from memoryadmin.core.redis_client import get_redis
from memoryadmin.extraction.models import ExtractionRun
from memoryadmin.extraction.services import extraction_run, extraction_schedule
from memoryadmin.governance.erasure import erasure_execute, erasure_request, receipt_verify
from memoryadmin.governance.models import ErasureRequest
from memoryadmin.memories.models import Memory, MemoryEvidence, MemoryRevision, MemorySource, Pin, Tombstone
from memoryadmin.memories.services import memory_create, memory_forget, memory_pin
from tests.conftest import SYSTEM

pytestmark = pytest.mark.django_db(transaction=True)


def in_threads(*jobs: Callable[[], object]) -> list[object]:
    """Run the jobs at the same moment, each in its own thread and connection; results or exceptions."""
    start = threading.Barrier(len(jobs))

    def run(job: Callable[[], object]) -> object:
        try:
            start.wait()
            return job()
        except Exception as exc:
            return exc
        finally:
            connection.close()

    with ThreadPoolExecutor(len(jobs)) as pool:
        return list(pool.map(run, jobs))


def test_pin_racing_forget_ends_one_way_or_the_other(namespace) -> None:
    for round_no in range(12):
        memory = memory_create(namespace=namespace, user_id="alice", text=f"Alice fact {round_no}", actor=SYSTEM).memory
        pinned, forgotten = in_threads(
            lambda m=memory: memory_pin(memory=m, actor=SYSTEM),
            lambda m=memory: memory_forget(memory=m, actor=SYSTEM),
        )
        exists = Memory.objects.filter(pk=memory.pk).exists()
        if isinstance(forgotten, Tombstone):
            # Forget won: the pin found nothing to pin, and no pin or memory is left behind.
            assert isinstance(pinned, NotFound), pinned
            assert not exists
        else:
            # Pin won: the forget without force was refused, the memory stays pinned.
            assert isinstance(forgotten, Conflict) and forgotten.code == "pinned", forgotten
            assert exists and Pin.objects.filter(memory_id=memory.pk).exists()
        actions = set(AuditEvent.objects.filter(target_id=str(memory.pk)).values_list("action", flat=True))
        assert actions == ({"memory.create", "memory.forget"} if not exists else {"memory.create", "memory.pin"})
    assert not Pin.objects.exclude(memory__in=Memory.objects.all()).exists()
    assert verify_audit_chain(namespace.pk).ok


def test_concurrent_edits_of_one_memory_lose_no_revision(live_server, namespace, make_key) -> None:
    memory = memory_create(namespace=namespace, user_id="alice", text="Alice likes tea", actor=SYSTEM).memory
    raw = make_key(namespace)[1]
    editors = 8
    start = threading.Barrier(editors)

    def edit(n: int) -> httpx.Response:
        with httpx.Client(headers={"Authorization": f"Bearer {raw}"}, timeout=60) as client:
            start.wait()
            return client.patch(
                f"{live_server.url}/api/v1/memories/{memory.pk}",
                json={"text": f"Alice likes tea number {n}", "topics": [f"t{n}"]},
            )

    with ThreadPoolExecutor(editors) as pool:
        responses = list(pool.map(edit, range(editors)))

    assert [r.status_code for r in responses] == [200] * editors
    assert sorted(r.json()["revision"] for r in responses) == list(range(2, editors + 2))
    memory.refresh_from_db()
    assert memory.revision == editors + 1
    revisions = list(MemoryRevision.objects.filter(memory=memory).order_by("revision"))
    assert [r.revision for r in revisions] == list(range(1, editors + 2))
    # The stored text is the one the last revision recorded.
    assert revisions[-1].text == memory.text
    assert AuditEvent.objects.filter(action="memory.update", target_id=str(memory.pk)).count() == editors
    assert verify_audit_chain(namespace.pk).ok


def alice_leftovers(namespace) -> dict[str, int]:
    return {
        "sessions": Session.objects.filter(namespace=namespace, user_id="alice").count(),
        "messages": Message.objects.filter(session__namespace=namespace, session__user_id="alice").count(),
        "memories": Memory.objects.filter(namespace=namespace, user_id="alice").count(),
        "tombstones": Tombstone.objects.filter(namespace=namespace, user_id="alice").count(),
        "runs": ExtractionRun.objects.filter(session__namespace=namespace, session__user_id="alice").count(),
    }


def assert_no_orphans(namespace) -> None:
    sessions = dict(Session.objects.filter(namespace=namespace).values_list("pk", "session_id"))
    # An extracted memory keeps its evidence, or at least the session it came from.
    for memory in Memory.objects.filter(namespace=namespace, source=MemorySource.EXTRACTION):
        has_evidence = MemoryEvidence.objects.filter(memory=memory).exists()
        assert has_evidence or memory.session_id in sessions.values(), f"orphan memory {memory.text!r}"
    # Every session's messages are numbered 1..n without holes.
    for pk in sessions:
        seqs = list(Message.objects.filter(session_id=pk).order_by("seq").values_list("seq", flat=True))
        assert seqs == list(range(1, len(seqs) + 1))
    # No Redis key of a session that is gone.
    redis = get_redis()
    for key in redis.keys(f"wm:{namespace.pk}:*"):
        assert key.split(":", 2)[2] in sessions.values(), key
    for key in redis.keys(f"extract:{namespace.pk}:*"):
        assert int(key.rsplit(":", 1)[1]) in sessions, key


def test_an_erasure_racing_appends_and_extraction_leaves_no_orphans(namespace) -> None:
    for n in range(3):
        session_append_messages(
            namespace=namespace,
            session_id=f"chat-{n}",
            user_id="alice",
            messages=[NewMessage(role="user", content=f"I live in city {n}. I like sport {n}.")],
        )
    stop = threading.Event()
    counts = {"appends": 0, "runs": 0}

    def appender() -> None:
        n = 0
        try:
            while not stop.is_set():
                n += 1
                try:
                    session_append_messages(
                        namespace=namespace,
                        session_id=f"chat-{n % 3}",
                        user_id="alice",
                        messages=[NewMessage(role="user", content=f"I like hobby number {n}.")],
                    )
                    counts["appends"] += 1
                except Exception:  # noqa: S112 - a refusal while the session is being erased is fine
                    continue
        finally:
            connection.close()

    def extractor() -> None:
        try:
            while not stop.is_set():
                for session in Session.objects.filter(namespace=namespace).select_related("namespace"):
                    run = extraction_schedule(session=session, delay=0)
                    if run is not None and extraction_run(run=run) is not None:
                        counts["runs"] += 1
        finally:
            connection.close()

    threads = [threading.Thread(target=appender), threading.Thread(target=extractor)]
    for thread in threads:
        thread.start()
    try:
        # The erasure starts once both writers are under way, however slowly a busy machine starts them.
        deadline = time.monotonic() + 60
        while not (counts["appends"] and counts["runs"]):
            assert time.monotonic() < deadline, counts
            time.sleep(0.02)
        first = erasure_execute(erasure_id=erasure_request(namespace=namespace, user_id="alice", actor=SYSTEM).pk)
        time.sleep(0.3)
    finally:
        stop.set()
        for thread in threads:
            thread.join(30)

    assert counts["appends"] > 0 and counts["runs"] > 0, counts
    # The erasure either completed or refused to call itself complete while data kept arriving.
    assert first.status in ("completed", "failed"), first.status
    if first.status == "completed":
        assert receipt_verify(first.receipt)
    assert_no_orphans(namespace)

    # Once the writers have stopped, an erasure leaves nothing about alice at all.
    last = erasure_execute(erasure_id=erasure_request(namespace=namespace, user_id="alice", actor=SYSTEM).pk)
    assert last.status == "completed", last.error
    assert set(alice_leftovers(namespace).values()) == {0}
    assert get_redis().keys(f"wm:{namespace.pk}:*") == []
    assert get_redis().keys(f"extract:{namespace.pk}:*") == []
    assert ErasureRequest.objects.filter(namespace=namespace, status="completed").exists()
    assert verify_audit_chain(namespace.pk).ok
