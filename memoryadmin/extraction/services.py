"""Extraction: debounced scheduling per session, and the runs themselves.

Scheduling. A session's pending extraction is a Redis key,
`extract:{namespace_id}:{session_pk}`, holding the due time of its task (the
task's token). An append costs one Redis command: `SET key due NX`. Only the
first append of a quiet period finds the key absent and publishes a task with
a countdown; later appends find it held and do nothing more. When the task
fires it runs only if the key still holds its token, and first looks at the
session's newest message: when one arrived after the schedule was made, it
moves the key to the end of the new quiet period and re-schedules itself, so
a burst of appends ends in one run after the last of them (trailing
debounce). The key is released only once the run has finished, so a task
redelivered after its worker died still finds it; messages appended while
the run went on get a schedule of their own right after it.

`extraction_schedule` (`POST .../extract`, the console) replaces the key
instead: the task it starts owns the run, and an older task finds itself
superseded.

Runs. A run reads the session's messages with `extracted_at` unset, gives
the user's and the assistant's (never injected guidance) to the namespace's
strategy, and writes what comes back through the one write path, a chunk's
candidates at a time (`memory_create_many`: what `memory_create` does for
each, in order, in a fixed number of statements). The memories, the marks on the messages and the run's counts are
written in one transaction that locks the session's row (so a deletion or
an erasure waits for it, while appends do not) and first checks that the
session and its unmarked messages are still there: a run that loses a race
with another run, a redelivery or an erasure writes nothing.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import F, QuerySet
from django.db.models.functions import Coalesce, Greatest
from django.utils import timezone

from memoryadmin.audit.services import Actor
from memoryadmin.conversations.models import Message, MessageKind, Role, Session
from memoryadmin.core.errors import Conflict, InvalidInput
from memoryadmin.core.redis_client import get_redis
from memoryadmin.extraction.config import validate_extraction_config
from memoryadmin.extraction.models import ExtractionRun, RunStatus
from memoryadmin.extraction.strategies import Batch, Candidate, SourceMessage, Strategy, StrategyError, strategy_for
from memoryadmin.memories.models import Memory, MemorySource, MemoryType
from memoryadmin.memories.services import (
    NewMemory,
    Outcome,
    link_evidence,
    memory_create,
    memory_create_many,
    memory_update,
)
from memoryadmin.tenancy.models import Namespace

logger = logging.getLogger(__name__)

EXTRACTION_ACTOR = Actor.system("extraction")
SOURCE_ROLES = (Role.USER, Role.ASSISTANT)
MAX_ERROR_CHARS = 1000
# One advisory lock per session's extraction writers; the constant keeps clear of the audit chain's locks.
_WRITER_LOCK_BASE = 0x6578 << 48
# Compare-and-delete: release the schedule only if it is still ours.
_RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0"
# Compare-and-set: move the schedule to a later due time only if it is still ours.
_MOVE = (
    "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('set', KEYS[1], ARGV[2], 'EX', ARGV[3]) end "
    "return false"
)

__all__ = [
    "extraction_cancel_for_sessions",
    "extraction_run",
    "extraction_run_due",
    "extraction_schedule",
    "extraction_schedule_after_append",
    "schedule_key",
    "validate_extraction_config",
]


def schedule_key(namespace_id: int, session_pk: int) -> str:
    return f"extract:{namespace_id}:{session_pk}"


def _schedule_ttl(delay: float) -> int:
    # Outlive the broker's redelivery of an unacknowledged task, so a redelivered task still finds its token.
    return int(delay) + int(_abandoned_after().total_seconds()) + 3600


# --- scheduling ----------------------------------------------------------------


def _queued_run(namespace_id: int, session_pk: int, strategy: str | None = None) -> ExtractionRun | None:
    """The session's run that has not started yet, created when there is none.

    The strategy is only recorded for display until the run starts (it then takes the
    namespace's current one); read from the namespace when the caller does not have it.
    """
    run = ExtractionRun.objects.filter(session_id=session_pk, status=RunStatus.QUEUED).first()
    if run is not None:
        return run
    if strategy is None:
        strategy = Namespace.objects.filter(pk=namespace_id).values_list("extraction_strategy", flat=True).first()
        if strategy is None:
            return None
    try:
        with transaction.atomic():
            return ExtractionRun.objects.create(
                namespace_id=namespace_id, session_id=session_pk, strategy=strategy, status=RunStatus.QUEUED
            )
    except IntegrityError:
        # Another schedule created it first, or the session is gone.
        return ExtractionRun.objects.filter(session_id=session_pk, status=RunStatus.QUEUED).first()


def extraction_schedule(*, session: Session, delay: float | None = None) -> ExtractionRun | None:
    """Schedule the session's extraction `delay` seconds from now (the debounce setting by default).

    Returns the queued run the schedule will execute (shared by schedules that
    come before it starts), or None when the session no longer exists. The
    Redis key and the task are written once the caller's transaction commits.
    """
    delay = settings.EXTRACTION_DEBOUNCE_SECONDS if delay is None else float(delay)
    if delay < 0:
        raise InvalidInput("delay must not be negative", details={"field": "delay"})
    run = _queued_run(session.namespace_id, session.pk, session.namespace.extraction_strategy)
    if run is None:
        return None
    namespace_id, session_pk, run_id = session.namespace_id, session.pk, run.pk
    # Inside a transaction the dispatch waits for the commit and must not break the committing
    # caller (it is logged; the next append retries). Outside one it runs now and raises, so
    # `POST .../extract` answers 503 when Redis is down.
    transaction.on_commit(lambda: _dispatch(namespace_id, session_pk, run_id, delay), robust=connection.in_atomic_block)
    return run


def _token(delay: float) -> str:
    return f"{time.time() + delay:.6f}"


def _publish(run_id: uuid.UUID, token: str, delay: float, debounce: float | None = None) -> None:
    from memoryadmin.extraction.tasks import extract_session

    kwargs = {} if debounce is None else {"debounce": debounce}
    extract_session.apply_async(args=[str(run_id), token], kwargs=kwargs, countdown=max(delay, 0))


def _dispatch(namespace_id: int, session_pk: int, run_id: uuid.UUID, delay: float) -> None:
    token = _token(delay)
    get_redis().set(schedule_key(namespace_id, session_pk), token, ex=_schedule_ttl(delay))
    _publish(run_id, token, delay)


def extraction_schedule_after_append(*, namespace_id: int, session_pk: int, strategy: str | None = None) -> bool:
    """After an append commits: start the session's debounced schedule unless one is pending.

    Returns True when this call started it. A pending schedule needs nothing more: its
    task looks at the session's newest message when it fires, and waits longer if needed.
    """
    delay = float(settings.EXTRACTION_DEBOUNCE_SECONDS)
    token = _token(delay)
    if not get_redis().set(schedule_key(namespace_id, session_pk), token, nx=True, ex=_schedule_ttl(delay)):
        return False
    try:
        run = _queued_run(namespace_id, session_pk, strategy)
        if run is None:
            _release(namespace_id, session_pk, token)
            return False
        _publish(run.pk, token, delay, debounce=delay)
    except BaseException:
        # A key without a task would hold off every later append's schedule until it expired.
        _release(namespace_id, session_pk, token)
        raise
    return True


def _postpone(run: ExtractionRun, token: str, debounce: float) -> bool:
    """A debounced task that fires while the session is still busy moves itself to the end of the quiet period.

    Returns True when it did (the task then exits and its successor runs later).
    """
    last_message_at = Session.objects.filter(pk=run.session_id).values_list("last_message_at", flat=True).first()
    if last_message_at is None:
        return False
    quiet_at = last_message_at.timestamp() + debounce
    wait = quiet_at - time.time()
    if wait <= 0:
        return False
    later = f"{quiet_at:.6f}"
    key = schedule_key(run.namespace_id, run.session_id)
    if not get_redis().eval(_MOVE, 1, key, token, later, _schedule_ttl(wait)):
        return True  # superseded meanwhile: the newer schedule owns the run
    try:
        _publish(run.pk, later, wait, debounce=debounce)
    except BaseException:
        _release(run.namespace_id, run.session_id, later)
        raise
    return True


def extraction_cancel_for_sessions(namespace_id: int, session_pks: Sequence[int]) -> int:
    """Remove pending schedules of these sessions (erasure calls it). Returns how many there were.

    Only Redis is touched, so an erasure's sweep stays short. A task already
    counting down then finds no token, marks its queued run cancelled (if the
    run still exists) and exits; a run already executing is stopped by its own
    check that the session still exists.
    """
    if not session_pks:
        return 0
    keys = [schedule_key(namespace_id, pk) for pk in session_pks]
    removed = 0
    for start in range(0, len(keys), 500):
        removed += int(get_redis().delete(*keys[start : start + 500]))
    return removed


def _retire(run: ExtractionRun, *, cancelled: bool) -> None:
    """A task that no longer owns its schedule leaves its run in a final state where nobody else will.

    A queued run whose schedule was removed was cancelled. A run still marked running long
    after it started lost its worker, and a later schedule has taken over its messages.
    Anything else belongs to the task that now holds the schedule.
    """
    now = timezone.now()
    if cancelled and run.status == RunStatus.QUEUED:
        ExtractionRun.objects.filter(pk=run.pk, status=RunStatus.QUEUED).update(
            status=RunStatus.FAILED, error="cancelled", finished_at=now
        )
    elif run.status == RunStatus.RUNNING and run.started_at and run.started_at < now - _abandoned_after():
        ExtractionRun.objects.filter(pk=run.pk, status=RunStatus.RUNNING, started_at=run.started_at).update(
            status=RunStatus.FAILED,
            error="interrupted: its worker was lost; a later run took its messages",
            finished_at=now,
        )


def _abandoned_after() -> timedelta:
    # A live run is never older than the broker's redelivery delay: by then its task came back.
    return timedelta(seconds=int(settings.CELERY_BROKER_TRANSPORT_OPTIONS.get("visibility_timeout", 3600)))


def _release(namespace_id: int, session_pk: int, token: str) -> None:
    get_redis().eval(_RELEASE, 1, schedule_key(namespace_id, session_pk), token)


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
        _retire(run, cancelled=current is None)
        return None
    if debounce and run.status == RunStatus.QUEUED and _postpone(run, token, debounce):
        return None
    namespace_id, session_pk = run.namespace_id, run.session_id
    seen = Session.objects.filter(pk=session_pk).values_list("message_count", flat=True).first()
    if seen is None:
        _release(namespace_id, session_pk, token)
        return None
    result: ExtractionRun | None = None
    if run.status in (RunStatus.SUCCEEDED, RunStatus.FAILED):
        # A duplicate delivery, or a schedule that joined a run another task had just
        # started: whatever that run did not see gets a run of its own.
        if _unextracted(session_pk).exists():
            queued = _queued_run(namespace_id, session_pk)
            if queued is not None:
                result = extraction_run(run=queued)
    else:
        result = extraction_run(run=run)
    _release(namespace_id, session_pk, token)
    # Released first, then looked at: an append committed before the release is seen here,
    # one committed after it finds the key free and schedules itself.
    if _unextracted(session_pk).filter(seq__gt=seen).exists():
        extraction_schedule_after_append(namespace_id=namespace_id, session_pk=session_pk)
    return result


# --- runs ----------------------------------------------------------------------


@dataclass
class Tally:
    candidates: int = 0
    created: int = 0
    updated: int = 0
    duplicates: int = 0
    suppressed: int = 0

    def add(self, outcome: str) -> None:
        if outcome == Outcome.CREATED:
            self.created += 1
        elif outcome in (Outcome.DUPLICATE, Outcome.MERGED):
            self.duplicates += 1
        elif outcome == Outcome.SUPPRESSED:
            self.suppressed += 1
        elif outcome == "updated":
            self.updated += 1


def _unextracted(session_pk: int) -> QuerySet[Message]:
    return Message.objects.filter(session_id=session_pk, extracted_at__isnull=True)


def _short(error: BaseException) -> str:
    text = str(error) or type(error).__name__
    return text[:MAX_ERROR_CHARS]


def extraction_run(*, run: ExtractionRun) -> ExtractionRun | None:
    """Execute a queued (or interrupted) run now, in this process.

    Returns the finished run, or None when the session was deleted meanwhile.
    A strategy failure marks the run failed with the reason, and the messages
    it did not get to stay unextracted for a later run.
    """
    session = Session.objects.select_related("namespace").filter(pk=run.session_id).first()
    if session is None:
        return None
    namespace = session.namespace
    claimed = ExtractionRun.objects.filter(pk=run.pk, status__in=[RunStatus.QUEUED, RunStatus.RUNNING]).update(
        status=RunStatus.RUNNING, started_at=timezone.now(), error="", strategy=namespace.extraction_strategy
    )
    if not claimed:
        return ExtractionRun.objects.filter(pk=run.pk).first()
    started = time.monotonic()
    strategy: Strategy | None = None
    try:
        config = validate_extraction_config(namespace.extraction_strategy, namespace.extraction_config)
        strategy = strategy_for(namespace.extraction_strategy, config)
        finished = _run_chunks(run, session, strategy)
    except (StrategyError, InvalidInput) as exc:
        logger.warning("extraction run %s failed: %s", run.pk, exc)
        return _finish(run, RunStatus.FAILED, started, _short(exc))
    except Exception as exc:
        logger.exception("extraction run %s failed", run.pk)
        return _finish(run, RunStatus.FAILED, started, f"internal error: {type(exc).__name__}")
    finally:
        close = getattr(strategy, "close", None)
        if close is not None:
            close()
    if not finished:
        return None
    return _finish(run, RunStatus.SUCCEEDED, started, "")


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
    return next(iter(finished), None)


def _run_chunks(run: ExtractionRun, session: Session, strategy: Strategy) -> bool:
    """Feed the strategy the messages that were unextracted when the run started, a chunk at a time.

    Returns False when the session disappeared along the way.
    """
    # Messages appended after the run started are left to the run their append scheduled.
    upto = session.message_count
    after = 0
    wants_summary = getattr(strategy, "wants_summary", False)
    while True:
        chunk = list(
            _unextracted(session.pk)
            .filter(seq__gt=after, seq__lte=upto)
            .order_by("seq")
            .only("pk", "seq", "role", "kind", "content", "created_at")[: strategy.chunk_size]
        )
        if not chunk:
            return True
        sources = [
            SourceMessage(pk=m.pk, seq=m.seq, role=m.role, content=m.content, created_at=m.created_at)
            for m in chunk
            if m.kind == MessageKind.MESSAGE and m.role in SOURCE_ROLES
        ]
        summary = _current_summary(session) if wants_summary else None
        if summary is not None and sources and summary.metadata.get("to_seq", 0) >= sources[-1].seq:
            sources = []  # already summarised: not redone
        batch = Batch(
            user_id=session.user_id,
            session_id=session.session_id,
            agent_id=session.agent_id,
            messages=sources,
            now=timezone.now(),
            summary=summary.text if summary is not None else None,
        )
        candidates = strategy.extract(batch) if sources else []
        if not _write(run, session, chunk, sources, candidates):
            return False
        if len(chunk) < strategy.chunk_size:
            return True
        after = chunk[-1].seq


def _current_summary(session: Session) -> Memory | None:
    return (
        Memory.objects.filter(
            namespace_id=session.namespace_id,
            user_id=session.user_id,
            session_id=session.session_id,
            memory_type=MemoryType.SUMMARY,
        )
        .order_by("-updated_at", "-id")
        .first()
    )


def _lock_session(session_pk: int) -> bool:
    """In the writing transaction: take turns with other writers of the session, and hold off its deletion.

    The row lock is FOR KEY SHARE: it conflicts with the lock a DELETE takes, so a deletion
    or an erasure waits for this transaction and a run never writes for a session that is
    gone; it does not conflict with the UPDATE an append makes, so extraction never holds
    up appends. Returns False when the session no longer exists.
    """
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_WRITER_LOCK_BASE + session_pk])
        cursor.execute("SELECT 1 FROM conversations_session WHERE id = %s FOR KEY SHARE", [session_pk])
        return cursor.fetchone() is not None


def _write(
    run: ExtractionRun,
    session: Session,
    chunk: list[Message],
    sources: list[SourceMessage],
    candidates: list[Candidate],
) -> bool:
    """One transaction: memories, evidence, message marks and the run's counts, or nothing."""
    with transaction.atomic():
        if not _lock_session(session.pk):
            return False
        still_open = _mark_extracted(session.pk, [m.pk for m in chunk])
        tally = Tally(candidates=len(candidates))
        metadata = {"run_id": str(run.pk)}
        pending: list[NewMemory] = []
        for candidate in candidates:
            # Evidence already marked by another run means that run owns this candidate.
            if not candidate.evidence or not set(candidate.evidence) <= still_open:
                continue
            if candidate.memory_type == MemoryType.SUMMARY:
                # Written in its place among the others: what comes before it is written first.
                _write_batch(run, session, pending, tally)
                pending = []
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
                )
            )
        _write_batch(run, session, pending, tally)
        covered = [m.seq for m in chunk if m.pk in still_open]
        ExtractionRun.objects.filter(pk=run.pk).update(
            candidates=F("candidates") + tally.candidates,
            created=F("created") + tally.created,
            updated=F("updated") + tally.updated,
            duplicates=F("duplicates") + tally.duplicates,
            suppressed=F("suppressed") + tally.suppressed,
            from_seq=Coalesce(F("from_seq"), min(covered)) if covered else F("from_seq"),
            to_seq=Greatest(Coalesce(F("to_seq"), 0), max(covered)) if covered else F("to_seq"),
        )
    return True


def _mark_extracted(session_pk: int, message_pks: list[int]) -> set[int]:
    """Mark the chunk's messages no other run took; returns them. Inside the writing transaction, so
    the marks and the memories written for them commit together."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            UPDATE {Message._meta.db_table} SET extracted_at = %s
            WHERE session_id = %s AND id = ANY(%s) AND extracted_at IS NULL
            RETURNING id
            """,
            [timezone.now(), session_pk, message_pks],
        )
        return {pk for (pk,) in cursor.fetchall()}


def _write_batch(run: ExtractionRun, session: Session, pending: list[NewMemory], tally: Tally) -> None:
    """The candidates of a chunk through the write path, as `memory_create` would take them one by one."""
    if not pending:
        return
    results = memory_create_many(
        namespace=session.namespace, actor=EXTRACTION_ACTOR, items=pending, merge_near_duplicates=True
    )
    for result in results:
        if isinstance(result, InvalidInput):
            logger.info("extraction run %s skipped a candidate: %s", run.pk, result)
        else:
            tally.add(result.outcome)


def _write_summary(session: Session, candidate: Candidate, sources: list[SourceMessage], extra: dict[str, Any]) -> str:
    """Keep one summary memory per session: create it, or extend it with the range it now covers."""
    existing = (
        Memory.objects.select_for_update()
        .filter(
            namespace_id=session.namespace_id,
            user_id=session.user_id,
            session_id=session.session_id,
            memory_type=MemoryType.SUMMARY,
        )
        .order_by("-updated_at", "-id")
        .first()
    )
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
