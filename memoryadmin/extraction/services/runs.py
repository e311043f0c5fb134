"""Runs: a session's unextracted messages through its namespace's strategy and down the write path."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

from django.db import transaction
from django.utils import timezone

from memoryadmin.audit.services import Actor, audit_last
from memoryadmin.conversations.models import MessageKind, Role, Session
from memoryadmin.conversations.queries import (
    has_unextracted_messages,
    session_message_count,
)
from memoryadmin.core.bulk import writes_sent_later
from memoryadmin.core.errors import Conflict, InvalidInput
from memoryadmin.core.fingerprints import subject_hmac
from memoryadmin.core.metrics import EXTRACTION_RUNS, increment
from memoryadmin.core.redis_client import get_redis
from memoryadmin.extraction.config import validate_extraction_config
from memoryadmin.extraction.leases import RunLease
from memoryadmin.extraction.models import ExtractionRun, RunStatus
from memoryadmin.extraction.services.run_rows import (
    Finish,
    run_claim,
    run_counts_add,
    run_lock_and_mark,
    run_messages,
)
from memoryadmin.extraction.services.scheduling import (
    extraction_schedule_after_append,
    logger,
    queued_run,
    run_postpone,
    run_retire,
    schedule_key,
    schedule_release,
)
from memoryadmin.extraction.strategies import (
    Batch,
    Candidate,
    KnownFact,
    SourceMessage,
    Strategy,
    StrategyError,
    strategy_for,
)
from memoryadmin.memories.models import Memory, MemorySource, MemoryType
from memoryadmin.memories.queries import known_facts, memories_stating, session_summary
from memoryadmin.memories.services import (
    NewMemory,
    Outcome,
    Statement,
    link_evidence,
    memories_apply_statements,
    memory_create,
    memory_create_many,
    memory_update,
    user_lock_sql,
)
from memoryadmin.webhooks.events import EXTRACTION_FAILED
from memoryadmin.webhooks.outbox import OutboxEvent, outbox_add

EXTRACTION_ACTOR = Actor.system("extraction")


SOURCE_ROLES = (Role.USER, Role.ASSISTANT)


MAX_ERROR_CHARS = 1000


@dataclass
class Tally:
    candidates: int = 0
    created: int = 0
    updated: int = 0
    duplicates: int = 0
    suppressed: int = 0
    superseded: int = 0

    def add(self, outcome: str) -> None:
        if outcome == Outcome.CREATED:
            self.created += 1
        elif outcome in (Outcome.DUPLICATE, Outcome.MERGED):
            self.duplicates += 1
        elif outcome == Outcome.SUPPRESSED:
            self.suppressed += 1
        elif outcome == "updated":
            self.updated += 1


def _short(error: BaseException) -> str:
    text = str(error) or type(error).__name__
    return text[:MAX_ERROR_CHARS]


def extraction_run(*, run: ExtractionRun, schedule_token: str | None = None) -> ExtractionRun | None:
    """Execute a queued (or interrupted) run now, in this process, holding its lease while it works.

    `schedule_token` is the session's schedule the caller holds; its key lives only as
    long as the lease from now on. Returns the finished run, or None when the session was
    deleted meanwhile. A strategy failure marks the run failed with the reason, and the
    messages it did not get to stay unextracted for a later run.
    """
    found = run_claim(run.pk, timezone.now(), columns=_CHUNK_COLUMNS, prefetch=PREFETCH)
    if found is None:
        return None
    session, claimed, first = found
    namespace = session.namespace
    if not claimed:
        return ExtractionRun.objects.filter(pk=run.pk).first()
    started = time.monotonic()
    strategy: Strategy | None = None
    key = schedule_key(run.namespace_id, run.session_id) if schedule_token else None
    try:
        with RunLease(run.pk, key, schedule_token):
            config = validate_extraction_config(namespace.extraction_strategy, namespace.extraction_config)
            strategy = strategy_for(namespace.extraction_strategy, config)
            finished = _run_chunks(run, session, strategy, started, first)
    except (StrategyError, InvalidInput) as exc:
        logger.warning("extraction run %s failed: %s", run.pk, exc)
        return _fail(run, session, started, _short(exc))
    except Exception as exc:
        logger.exception("extraction run %s failed", run.pk)
        return _fail(run, session, started, f"internal error: {type(exc).__name__}")
    finally:
        close = getattr(strategy, "close", None)
        if close is not None:
            close()
    if not finished:
        return None
    if isinstance(finished, ExtractionRun):
        return finished  # its last write ended it
    return _finish(run, RunStatus.SUCCEEDED, started, "")


def _fail(run: ExtractionRun, session: Session, started: float, error: str) -> ExtractionRun | None:
    """Mark the run failed and, in the same transaction, tell the webhooks subscribed to `extraction.failed`."""
    with transaction.atomic():
        finished = _finish(run, RunStatus.FAILED, started, error)
        outbox_add(
            [
                OutboxEvent(
                    namespace_id=run.namespace_id,
                    event_type=EXTRACTION_FAILED,
                    data={
                        "run_id": str(run.pk),
                        "session_id": session.session_id,
                        "strategy": finished.strategy if finished else "",
                        "error": error,
                    },
                    target_id=str(run.pk),
                    subject_key=subject_hmac(run.namespace_id, session.user_id),
                )
            ]
        )
    return finished


def _finish(run: ExtractionRun, status: str, started: float, error: str) -> ExtractionRun | None:
    finished = ExtractionRun.objects.raw(
        f"""
        UPDATE {ExtractionRun._meta.db_table}
        SET status = %s, error = %s, finished_at = %s, duration_ms = %s
        WHERE id = %s
        RETURNING *
        """,
        [status, error, timezone.now(), int((time.monotonic() - started) * 1000), run.pk],
    )
    row = next(iter(finished), None)
    if row is not None:
        transaction.on_commit(lambda: increment(EXTRACTION_RUNS, outcome=status))
    return row


class _ChunkRow(NamedTuple):
    pk: int
    seq: int
    role: str
    kind: str
    content: str
    name: str
    created_at: datetime


_CHUNK_COLUMNS = tuple("id" if name == "pk" else name for name in _ChunkRow._fields)
# Messages read with a run's claim: the chunk of every strategy but a model's, which takes a part of them.
PREFETCH = 500


def _run_chunks(
    run: ExtractionRun, session: Session, strategy: Strategy, started: float, first: list[tuple[Any, ...]]
) -> bool | ExtractionRun:
    """Feed the strategy the messages that were unextracted when the run started, a chunk at a time.

    `first` are the first `PREFETCH` unextracted messages, read with the claim. Returns False when the
    session disappeared along the way, and the run succeeded when the write of its last chunk ended it (a
    chunk shorter than the strategy's is the last), else True.
    """
    # Messages appended after the run started are left to the run their append scheduled.
    upto = session.message_count
    after = 0
    wants_summary = getattr(strategy, "wants_summary", False)
    wants_known = getattr(strategy, "wants_known_facts", False)
    read = [_ChunkRow._make(row) for row in first]
    # Every unextracted message up to `upto` was read when fewer came than asked, or one past it did.
    complete = len(read) < PREFETCH or read[-1].seq > upto
    read = [m for m in read if m.seq <= upto]
    while True:
        if after == 0 and (complete or len(read) >= strategy.chunk_size):
            chunk = read[: strategy.chunk_size]
        else:
            # Rows rather than model instances: a run reads hundreds of messages and needs only these columns.
            rows = run_messages(
                session.pk, after_seq=after, upto_seq=upto, columns=_CHUNK_COLUMNS, limit=strategy.chunk_size
            )
            chunk = [_ChunkRow._make(row) for row in rows]
        if not chunk:
            return True
        sources = [
            SourceMessage(pk=m.pk, seq=m.seq, role=m.role, content=m.content, created_at=m.created_at, name=m.name)
            for m in chunk
            if m.kind == MessageKind.MESSAGE and m.role in SOURCE_ROLES
        ]
        summary = _session_summary(session) if wants_summary else None
        if summary is not None and sources and summary.metadata.get("to_seq", 0) >= sources[-1].seq:
            sources = []  # already summarised: not redone
        batch = Batch(
            user_id=session.user_id,
            session_id=session.session_id,
            agent_id=session.agent_id,
            messages=sources,
            now=timezone.now(),
            summary=summary.text if summary is not None else None,
            known=_known_facts(session) if wants_known and sources else [],
        )
        candidates = strategy.extract(batch) if sources else []
        last = len(chunk) < strategy.chunk_size
        written = _write(run, session, chunk, sources, candidates, started if last else None)
        if not written or last:
            return written
        after = chunk[-1].seq


def _known_facts(session: Session) -> list[KnownFact]:
    """The person's current memories that state an attribute, newest first: what a new fact may replace."""
    rows = known_facts(namespace_id=session.namespace_id, user_id=session.user_id)
    return [
        KnownFact(ref=f"m{index}", memory_id=str(pk), text=text, subject=subject, attribute=attribute)
        for index, (pk, text, subject, attribute) in enumerate(rows, start=1)
    ]


def _session_summary(session: Session, *, lock: bool = False) -> Memory | None:
    return session_summary(
        namespace_id=session.namespace_id, user_id=session.user_id, session_id=session.session_id, lock=lock
    )


def _write(
    run: ExtractionRun,
    session: Session,
    chunk: list[_ChunkRow],
    sources: list[SourceMessage],
    candidates: list[Candidate],
    finish_started: float | None = None,
) -> bool | ExtractionRun:
    """One transaction: memories, evidence, message marks and the run's counts, or nothing.

    Its audit events (the memories created, the knowledge updates they settled) go in at its end,
    together: one lock, one read and one insert of the chain, and one outbox statement. With
    `finish_started` (when the run started) the chunk is the run's last, and the same statement that
    adds its counts ends the run: that run is returned.
    """
    # The writes nobody reads back (revisions, evidence, vectors) travel with the statements after them.
    with transaction.atomic(), writes_sent_later(), audit_last():
        user_lock = user_lock_sql(session.namespace_id, [session.user_id])
        still_open = run_lock_and_mark(
            session.pk, user_lock, [m.pk for m in chunk], (session.namespace_id, session.user_id)
        )
        if still_open is None:
            return False
        tally = Tally(candidates=len(candidates))
        metadata = {"run_id": str(run.pk)}
        pending: list[NewMemory] = []
        replaces: list[list[str]] = []
        leaves: list[list[str]] = []
        for candidate in candidates:
            # Evidence already marked by another run means that run owns this candidate.
            if not candidate.evidence or not set(candidate.evidence) <= still_open:
                continue
            if candidate.memory_type == MemoryType.SUMMARY:
                # Written in its place among the others: what comes before it is written first.
                _write_batch(run, session, pending, tally, replaces, leaves)
                pending, replaces, leaves = [], [], []
                tally.add(_write_summary(session, candidate, sources, metadata))
                continue
            pending.append(
                NewMemory(
                    user_id=session.user_id,
                    text=candidate.text,
                    source=MemorySource.EXTRACTION,
                    session_id=session.session_id,
                    agent_id=session.agent_id,
                    memory_type=candidate.memory_type,
                    topics=candidate.topics,
                    entities=candidate.entities,
                    metadata={**candidate.metadata, **metadata},
                    evidence_message_ids=candidate.evidence,
                    subject=candidate.subject,
                    attribute=candidate.attribute,
                    event_date=candidate.event_date,
                    event_date_precision=candidate.event_date_precision,
                    stated_at=candidate.stated_at or _stated_at(candidate, sources),
                )
            )
            replaces.append(candidate.replaces)
            leaves.append(candidate.leaves)
        _write_batch(run, session, pending, tally, replaces, leaves)
        covered = [m.seq for m in chunk if m.pk in still_open]
        finish = None
        if finish_started is not None:
            duration_ms = int((time.monotonic() - finish_started) * 1000)
            finish = Finish(RunStatus.SUCCEEDED, "", timezone.now(), duration_ms)
        # Sent with the audit's statements; read once they have run.
        finished = run_counts_add(run.pk, vars(tally), (min(covered), max(covered)) if covered else None, finish)
    if finished:
        # Counted once the transaction commits (it has, unless a caller's own holds it).
        transaction.on_commit(lambda: increment(EXTRACTION_RUNS, outcome=RunStatus.SUCCEEDED))
        return finished[0]
    return True


def _stated_at(candidate: Candidate, sources: list[SourceMessage]) -> datetime | None:
    """When a candidate was said: its newest evidence message."""
    times = [m.created_at for m in sources if m.pk in candidate.evidence]
    return max(times) if times else None


def _write_batch(
    run: ExtractionRun,
    session: Session,
    pending: list[NewMemory],
    tally: Tally,
    replaces: list[list[str]],
    leaves: list[list[str]],
) -> None:
    """The candidates of a chunk through the write path, as `memory_create` would take them one by one,
    then their knowledge updates: each stated memory moves its attribute's history on (supersession), and
    one that leaves something behind ("switched from Barclays") replaces the facts that name it."""
    if not pending:
        return
    results = memory_create_many(
        namespace=session.namespace, actor=EXTRACTION_ACTOR, items=pending, merge_near_duplicates=True
    )
    # Read after the batch's own inserts: what a later message of the same chunk leaves behind may be in it.
    names = [name for left in leaves for name in left]
    stating = memories_stating(namespace_id=session.namespace_id, user_id=session.user_id, names=names) if names else {}
    statements: list[Statement] = []
    for new, result, replaced, left in zip(pending, results, replaces, leaves, strict=True):
        if left and not isinstance(result, InvalidInput) and result.memory is not None:
            own = result.memory.pk
            replaced = [
                *replaced,
                *(str(pk) for n in left for pk in stating.get((new.subject, n.lower()), []) if pk != own),
            ]
        if isinstance(result, InvalidInput):
            logger.info("extraction run %s skipped a candidate: %s", run.pk, result)
            continue
        tally.add(result.outcome)
        memory = result.memory
        # Only what states an attribute (or names what it replaces) takes part in a history.
        if memory is None or not (memory.attribute or replaced):
            continue
        statements.append(
            Statement(
                memory_id=memory.pk, user_id=memory.user_id, stated_at=new.stated_at, replaces=_memory_ids(replaced)
            )
        )
    if statements:
        settled = memories_apply_statements(
            namespace=session.namespace, actor=EXTRACTION_ACTOR, statements=statements, users_locked=True
        )
        tally.superseded += len(settled.superseded)


def _memory_ids(raw: list[str]) -> tuple[uuid.UUID, ...]:
    ids = []
    for value in raw:
        try:
            ids.append(uuid.UUID(str(value)))
        except ValueError:
            continue
    return tuple(ids)


def _write_summary(session: Session, candidate: Candidate, sources: list[SourceMessage], extra: dict[str, Any]) -> str:
    """Keep one summary memory per session: create it, or extend it with the range it now covers."""
    existing = _session_summary(session, lock=True)
    first_seq, last_seq = sources[0].seq, sources[-1].seq
    if existing is None:
        result = memory_create(
            namespace=session.namespace,
            user_id=session.user_id,
            text=candidate.text,
            actor=EXTRACTION_ACTOR,
            source=MemorySource.EXTRACTION,
            session_id=session.session_id,
            agent_id=session.agent_id,
            memory_type=MemoryType.SUMMARY,
            topics=candidate.topics,
            metadata={**candidate.metadata, **extra, "from_seq": first_seq, "to_seq": last_seq},
            evidence_message_ids=candidate.evidence,
        )
        return result.outcome
    covered_to = existing.metadata.get("to_seq", 0)
    if isinstance(covered_to, int) and covered_to >= last_seq:
        return Outcome.DUPLICATE
    metadata = {
        **existing.metadata,
        **candidate.metadata,
        **extra,
        "from_seq": existing.metadata.get("from_seq", first_seq),
        "to_seq": last_seq,
    }
    try:
        memory_update(
            memory=existing,
            actor=EXTRACTION_ACTOR,
            text=candidate.text,
            metadata=metadata,
            reason=f"summary extended to seq {last_seq}",
        )
    except Conflict as exc:
        return Outcome.SUPPRESSED if exc.code == "tombstoned" else Outcome.DUPLICATE
    link_evidence(existing, candidate.evidence)
    return "updated"


def extraction_run_due(*, run_id: uuid.UUID | str, token: str, debounce: float | None = None) -> ExtractionRun | None:
    """What a scheduled task does: run, unless a later schedule superseded this one or it was cancelled.

    A debounced task (one an append started) first waits out the quiet period after the
    session's newest message. After the run, messages appended while it went on (whose
    appends found the key held) get a schedule of their own.
    """
    run = ExtractionRun.objects.filter(pk=run_id).first()
    if run is None:
        return None  # the session is gone, and its runs with it
    current = get_redis().get(schedule_key(run.namespace_id, run.session_id))
    if current != token:
        run_retire(run, cancelled=current is None)
        return None
    if debounce and run.status == RunStatus.QUEUED and run_postpone(run, token, debounce):
        return None
    namespace_id, session_pk = run.namespace_id, run.session_id
    seen = session_message_count(session_pk)
    if seen is None:
        schedule_release(namespace_id, session_pk, token)
        return None
    result: ExtractionRun | None = None
    if run.status in (RunStatus.SUCCEEDED, RunStatus.FAILED):
        # A duplicate delivery, or a schedule that joined a run another task had just
        # started: whatever that run did not see gets a run of its own.
        if has_unextracted_messages(session_pk):
            queued = queued_run(namespace_id, session_pk)
            if queued is not None:
                result = extraction_run(run=queued, schedule_token=token)
    else:
        result = extraction_run(run=run, schedule_token=token)
    schedule_release(namespace_id, session_pk, token)
    # Released first, then looked at: an append committed before the release is seen here,
    # one committed after it finds the key free and schedules itself.
    if has_unextracted_messages(session_pk, after_seq=seen):
        extraction_schedule_after_append(namespace_id=namespace_id, session_pk=session_pk)
    return result
