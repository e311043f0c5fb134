"""A run writes its candidates as one batch: the outcome of writing them one by one, in a fixed number of statements."""

from __future__ import annotations

from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from memoryadmin.audit.models import AuditEvent
from memoryadmin.audit.services import verify_audit_chain
from memoryadmin.conversations.models import Message
from memoryadmin.core.errors import InvalidInput
from memoryadmin.extraction.services import EXTRACTION_ACTOR, Tally, extraction_run, extraction_schedule
from memoryadmin.extraction.strategies import Batch, SourceMessage
from memoryadmin.extraction.strategies.rules import RulesStrategy
from memoryadmin.memories.models import Memory, MemoryEvidence, MemorySource
from memoryadmin.memories.services import memory_create, memory_forget
from tests.conftest import SYSTEM
from tests.extraction.conftest import say

FACTS = [
    "I live in Lyon.",
    "I work at Acme as a nurse.",
    "My name is Anna.",
    "I love jazz.",
    "I'm allergic to peanuts.",
    "I really don't like early mornings.",
    "I'm a big fan of board games.",
    "My favourite city is Osaka.",
    "I prefer black coffee over green tea.",
    "I'm originally from Nairobi.",
    "I love hiking in the mountains.",
    "I'm a big fan of science fiction novels.",
]


class _Undo(Exception):
    pass


def stored(namespace) -> list[tuple]:
    return sorted(
        Memory.objects.filter(namespace=namespace).values_list("text", "topics", "entities", "status", "revision")
    )


def evidence(namespace) -> list[tuple]:
    return sorted(
        MemoryEvidence.objects.filter(memory__namespace=namespace).values_list("memory__text", "message__content")
    )


def one_by_one(namespace, session) -> tuple[dict, list, list, list]:
    """What a run would leave when each candidate went through memory_create on its own (then undone)."""
    messages = Message.objects.filter(session=session, extracted_at__isnull=True).order_by("seq")
    sources = [SourceMessage(m.pk, m.seq, m.role, m.content, m.created_at) for m in messages if m.role == "user"]
    batch = Batch(
        user_id=session.user_id, session_id=session.session_id, agent_id="", messages=sources, now=timezone.now()
    )
    candidates = RulesStrategy({}).extract(batch)
    tally = Tally(candidates=len(candidates))
    try:
        with transaction.atomic():
            for candidate in candidates:
                try:
                    result = memory_create(
                        namespace=namespace,
                        user_id=session.user_id,
                        text=candidate.text,
                        actor=EXTRACTION_ACTOR,
                        source=MemorySource.EXTRACTION,
                        session_id=session.session_id,
                        memory_type=candidate.memory_type,
                        topics=candidate.topics,
                        entities=candidate.entities,
                        metadata=candidate.metadata,
                        evidence_message_ids=candidate.evidence,
                        merge_near_duplicates=True,
                    )
                except InvalidInput:
                    continue
                tally.add(result.outcome)
            expected = (
                vars(tally),
                stored(namespace),
                evidence(namespace),
                list(AuditEvent.objects.filter(namespace=namespace).values_list("action", "data").order_by("id")),
            )
            raise _Undo
    except _Undo:
        return expected


def test_a_run_leaves_what_writing_its_candidates_one_by_one_leaves(namespace) -> None:
    memory_create(namespace=namespace, user_id="alice", text="User loves hiking in the mountains", actor=SYSTEM)
    memory_create(namespace=namespace, user_id="alice", text="User works at Acme as a nurse", actor=SYSTEM)
    forgotten = memory_create(namespace=namespace, user_id="alice", text="User is allergic to peanuts", actor=SYSTEM)
    memory_forget(memory=forgotten.memory, actor=SYSTEM)
    session, _ = say(
        namespace,
        *FACTS,
        "I love hiking in the mountains!",  # said twice
        "I love hiking in mountains.",  # near the stored memory
        "i LIVE in lyon",  # the same text as an earlier candidate
    )
    counts, memories, linked, audit = one_by_one(namespace, session)
    run = extraction_run(run=extraction_schedule(session=session, delay=0))
    assert run.counts == {k: counts[k] for k in run.counts}, run.counts
    assert run.counts == {"candidates": 13, "created": 9, "updated": 0, "duplicates": 3, "suppressed": 1}
    assert stored(namespace) == memories
    assert evidence(namespace) == linked
    assert list(AuditEvent.objects.filter(namespace=namespace).values_list("action", "data").order_by("id")) == audit
    assert verify_audit_chain().ok


def run_statements(namespace, user_id: str, facts: list[str]) -> tuple[int, int]:
    session, _ = say(namespace, *facts, session_id=f"s-{user_id}", user_id=user_id)
    run = extraction_schedule(session=session, delay=0)
    with CaptureQueriesContext(connection) as queries:
        run = extraction_run(run=run)
    return len(queries), run.created


def test_a_run_s_statements_do_not_grow_with_its_candidates(namespace) -> None:
    few, created_few = run_statements(namespace, "alice", FACTS[:2])
    many, created_many = run_statements(namespace, "bob", FACTS)
    assert (created_few, created_many) == (2, len(FACTS))
    assert few == many
