"""Extraction runs in-process: the write path, evidence, idempotence, tombstones, review, races."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.utils import timezone

from memoryadmin.conversations.models import Message, MessageKind
from memoryadmin.conversations.services import NewMessage, session_append_messages, session_delete
from memoryadmin.extraction.models import ExtractionRun, RunStatus
from memoryadmin.extraction.services import extraction_run, extraction_schedule
from memoryadmin.extraction.strategies import STRATEGIES, StrategyError
from memoryadmin.extraction.strategies.rules import RulesStrategy
from memoryadmin.governance.erasure import erasure_execute, erasure_request
from memoryadmin.memories.models import Memory, MemoryEvidence, MemoryStatus, Tombstone, TombstoneReason
from memoryadmin.memories.queries import memories_search
from memoryadmin.memories.services import (
    memory_approve,
    memory_create,
    memory_forget,
    memory_pin,
    memory_reject,
)
from tests.conftest import SYSTEM
from tests.extraction.conftest import say


def extract(session) -> ExtractionRun | None:
    """Schedule and run the session's extraction right here."""
    return extraction_run(run=extraction_schedule(session=session, delay=0))


def memories(namespace, **filters) -> list[str]:
    return sorted(Memory.objects.filter(namespace=namespace, **filters).values_list("text", flat=True))


def with_hook(monkeypatch, hook: Callable[[object], None]) -> None:
    """Make the rules strategy call `hook(batch)` once it has its candidates (a run in mid-flight)."""

    class Hooked(RulesStrategy):
        def extract(self, batch):
            candidates = super().extract(batch)
            hook(batch)
            return candidates

    monkeypatch.setitem(STRATEGIES, "rules", Hooked)


def test_a_run_writes_memories_with_evidence_and_marks_every_message(namespace) -> None:
    session, said = say(namespace, "Hi! I live in Lyon.", "What's the weather like?")
    session, answered = session_append_messages(
        namespace=namespace,
        session_id="s1",
        messages=[
            NewMessage(role="assistant", content="Sunny. I love jazz, by the way."),
            NewMessage(role="user", content="I love jazz too.", kind=MessageKind.MESSAGE),
        ],
    )
    run = extract(session)
    assert run.status == RunStatus.SUCCEEDED
    assert (run.from_seq, run.to_seq) == (1, 4)
    assert run.counts == {
        "candidates": 2,
        "created": 2,
        "updated": 0,
        "duplicates": 0,
        "suppressed": 0,
        "superseded": 0,
    }
    assert run.duration_ms is not None and run.finished_at is not None
    lyon = Memory.objects.get(namespace=namespace, text="User lives in Lyon")
    assert (lyon.user_id, lyon.session_id, lyon.source, lyon.status) == ("alice", "s1", "extraction", "active")
    assert lyon.metadata == {"rule": "place", "run_id": str(run.pk)}
    assert lyon.topics == ["location"] and lyon.entities == ["Lyon"]
    assert list(lyon.evidence.values_list("message_id", flat=True)) == [said[0].pk]
    jazz = Memory.objects.get(namespace=namespace, text="User loves jazz")
    assert list(jazz.evidence.values_list("message_id", flat=True)) == [answered[1].pk]
    assert not Message.objects.filter(session=session, extracted_at__isnull=True).exists()


def test_injected_guidance_is_context_never_a_source(namespace) -> None:
    session, _ = session_append_messages(
        namespace=namespace,
        session_id="s1",
        user_id="alice",
        messages=[
            NewMessage(role="user", content="I live in Paris.", kind=MessageKind.SUPPORTING_CONTEXT),
            NewMessage(role="system", content="My name is Botty."),
            NewMessage(role="user", content="I live in Lyon."),
        ],
    )
    run = extract(session)
    assert memories(namespace) == ["User lives in Lyon"]
    assert (run.from_seq, run.to_seq) == (1, 3)
    assert not Message.objects.filter(session=session, extracted_at__isnull=True).exists()


def test_re_extracting_the_same_messages_creates_nothing_new(namespace) -> None:
    session, _ = say(namespace, "I live in Lyon and I love jazz.")
    first = extract(session)
    assert first.created == 2
    before = list(Memory.objects.values_list("id", "revision"))
    Message.objects.filter(session=session).update(extracted_at=None)
    again = extract(session)
    assert again.counts == {
        "candidates": 2,
        "created": 0,
        "updated": 0,
        "duplicates": 2,
        "suppressed": 0,
        "superseded": 0,
    }
    assert list(Memory.objects.values_list("id", "revision")) == before
    assert MemoryEvidence.objects.count() == 2


def test_a_run_with_nothing_new_succeeds_and_creates_nothing(namespace) -> None:
    session, _ = say(namespace, "I live in Lyon.")
    extract(session)
    run = extract(session)
    assert run.status == RunStatus.SUCCEEDED
    assert run.counts["candidates"] == 0 and (run.from_seq, run.to_seq) == (None, None)
    assert Memory.objects.count() == 1


def test_a_forgotten_memory_said_again_is_suppressed_and_counted(namespace) -> None:
    session, _ = say(namespace, "I live in Lyon.")
    extract(session)
    memory_forget(memory=Memory.objects.get(text="User lives in Lyon"), actor=SYSTEM, reason="asked")
    later, _ = say(namespace, "As I said before: I live in Lyon!", session_id="s2")
    run = extract(later)
    assert run.counts == {
        "candidates": 1,
        "created": 0,
        "updated": 0,
        "duplicates": 0,
        "suppressed": 1,
        "superseded": 0,
    }
    assert memories(namespace) == []
    # The tombstone keeps only the fingerprint of what the person asked to forget.
    assert Tombstone.objects.get(namespace=namespace).text == ""


def test_with_review_required_extracted_memories_wait_as_candidates(make_namespace) -> None:
    namespace = make_namespace("reviewed", review_required=True)
    session, _ = say(namespace, "I live in Lyon and I work at Acme.")
    run = extract(session)
    assert run.created == 2
    lyon = Memory.objects.get(text="User lives in Lyon")
    acme = Memory.objects.get(text="User works at Acme")
    assert {lyon.status, acme.status} == {MemoryStatus.CANDIDATE}
    assert memories_search(namespace, query="Lyon", user_id="alice").items == []

    memory_approve(memory=lyon, actor=SYSTEM)
    assert [hit.memory.pk for hit in memories_search(namespace, query="Lyon", user_id="alice").items] == [lyon.pk]

    memory_reject(memory=acme, actor=SYSTEM, reason="not about the user")
    tombstone = Tombstone.objects.get(namespace=namespace)
    assert (tombstone.reason, tombstone.text) == (TombstoneReason.REJECTED, "User works at Acme")
    later, _ = say(namespace, "I work at Acme.", session_id="s2")
    assert extract(later).suppressed == 1
    assert memories(namespace) == ["User lives in Lyon"]


def test_a_near_duplicate_merges_into_a_cohesive_group_keeping_pins_and_evidence(namespace) -> None:
    kept = memory_create(
        namespace=namespace, user_id="alice", text="User loves hiking in the Swiss Alps", actor=SYSTEM
    ).memory
    memory_pin(memory=kept, actor=SYSTEM, reason="core")
    session, said = say(namespace, "I love hiking the Swiss Alps.")
    run = extract(session)
    assert run.counts["duplicates"] == 1 and run.created == 0
    assert memories(namespace) == ["User loves hiking in the Swiss Alps"]
    kept.refresh_from_db()
    assert kept.revision == 1 and hasattr(kept, "pin")
    assert list(kept.evidence.values_list("message_id", flat=True)) == [said[0].pk]


def test_a_loose_chain_of_similar_memories_does_not_merge(namespace) -> None:
    # Each is similar to what the user says, but not to each other: no cohesive group to merge into.
    for text in (
        "User enjoys sailing on Lake Geneva with friends and family",
        "User often enjoys sailing on Lake Geneva with friends",
    ):
        memory_create(namespace=namespace, user_id="alice", text=text, actor=SYSTEM)
    session, _ = say(namespace, "I enjoy sailing on Lake Geneva with friends.")
    run = extract(session)
    assert run.created == 1 and run.duplicates == 0
    assert "User enjoys sailing on Lake Geneva with friends" in memories(namespace)


def test_without_the_bridge_the_same_text_merges(namespace) -> None:
    memory_create(
        namespace=namespace,
        user_id="alice",
        text="User enjoys sailing on Lake Geneva with friends and family",
        actor=SYSTEM,
    )
    session, _ = say(namespace, "I enjoy sailing on Lake Geneva with friends.")
    assert extract(session).duplicates == 1
    assert Memory.objects.count() == 1


def test_a_session_deleted_mid_run_creates_nothing(namespace, monkeypatch) -> None:
    session, _ = say(namespace, "I live in Lyon.")
    with_hook(monkeypatch, lambda batch: session_delete(session=session, actor=SYSTEM))
    assert extract(session) is None
    assert Memory.objects.count() == 0
    assert ExtractionRun.objects.count() == 0


def test_a_subject_erased_mid_run_leaves_nothing_behind(namespace, monkeypatch) -> None:
    session, _ = say(namespace, "I live in Lyon.")

    def erase(batch) -> None:
        erasure = erasure_request(namespace=namespace, user_id="alice", actor=SYSTEM, enqueue=False)
        assert erasure_execute(erasure_id=erasure.pk).status == "completed"

    with_hook(monkeypatch, erase)
    assert extract(session) is None
    assert Memory.objects.filter(namespace=namespace, user_id="alice").count() == 0


def test_a_run_whose_messages_another_run_took_writes_nothing(namespace, monkeypatch) -> None:
    session, _ = say(namespace, "I live in Lyon.")
    with_hook(
        monkeypatch,
        lambda batch: Message.objects.filter(session=session).update(extracted_at=timezone.now()),
    )
    run = extract(session)
    assert run.status == RunStatus.SUCCEEDED
    assert run.counts == {
        "candidates": 1,
        "created": 0,
        "updated": 0,
        "duplicates": 0,
        "suppressed": 0,
        "superseded": 0,
    }
    assert Memory.objects.count() == 0


@pytest.mark.parametrize(
    ("error", "reported"),
    [(StrategyError("the model is down"), "the model is down"), (RuntimeError("boom"), "internal error: RuntimeError")],
)
def test_a_failing_strategy_fails_the_run_visibly_and_keeps_the_messages_for_a_retry(
    namespace, monkeypatch, error, reported
) -> None:
    session, _ = say(namespace, "I live in Lyon.")

    def fail(batch) -> None:
        raise error

    with_hook(monkeypatch, fail)
    run = extract(session)
    assert (run.status, run.error) == (RunStatus.FAILED, reported)
    assert Message.objects.filter(session=session, extracted_at__isnull=True).count() == 1
    monkeypatch.setitem(STRATEGIES, "rules", RulesStrategy)
    assert extract(session).created == 1


def test_an_invalid_stored_config_fails_the_run_with_the_reason(namespace) -> None:
    namespace.extraction_config = {"categories": ["gossip"]}
    namespace.save(update_fields=["extraction_config"])
    session, _ = say(namespace, "I live in Lyon.")
    run = extract(session)
    assert run.status == RunStatus.FAILED and "categories" in run.error


def test_extraction_writes_are_audited_as_the_extraction_system(namespace) -> None:
    from memoryadmin.audit.models import AuditEvent
    from memoryadmin.audit.services import verify_audit_chain

    session, _ = say(namespace, "I live in Lyon.")
    extract(session)
    event = AuditEvent.objects.get(action="memory.create")
    assert (event.actor_type, event.actor) == ("system", "extraction")
    assert event.data["source"] == "extraction"
    assert verify_audit_chain().ok


def test_a_run_longer_than_a_chunk_reads_every_message_once_in_order(namespace, monkeypatch) -> None:
    said = [f"I love hobby number {n}." if n % 100 == 0 else "ok" for n in range(1, 521)]
    for start in range(0, len(said), 100):  # at most 100 messages an append
        session, _ = say(namespace, *said[start : start + 100])
    chunks: list[list[int]] = []

    class Counting(RulesStrategy):
        def extract(self, batch):
            chunks.append([m.seq for m in batch.messages])
            return super().extract(batch)

    monkeypatch.setitem(STRATEGIES, "rules", Counting)
    run = extract(session)
    assert [(c[0], c[-1], len(c)) for c in chunks] == [(1, 500, 500), (501, 520, 20)]
    assert (run.status, run.from_seq, run.to_seq, run.candidates) == (RunStatus.SUCCEEDED, 1, 520, 5)
    assert not Message.objects.filter(session=session, extracted_at__isnull=True).exists()
