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
debounce). The key is released only once the run has finished; messages
appended while the run went on get a schedule of their own right after it.
While the run works it holds a lease (`leases.RunLease`): the key lives only as
long as the lease, renewed with the run's heartbeat.

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

Recovery. Beat's `extraction_recover` takes over a run whose heartbeat stopped
(its worker died) and schedules sessions whose messages no schedule will reach
(an append that could not reach Redis, a task lost with its worker). Both are
safe to repeat: messages carry `extracted_at`, a run writes only for messages no
other run marked, and a schedule is claimed in Redis by one caller.
"""

from __future__ import annotations

import contextlib
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
from django.db.models.functions import Coalesce, Greatest, Now
from django.utils import timezone

from memoryadmin.audit.services import Actor
from memoryadmin.conversations.models import Message, MessageKind, Role, Session
from memoryadmin.conversations.queries import sessions_waiting_for_extraction, sessions_with_unextracted_messages
from memoryadmin.core.errors import Conflict, InvalidInput
from memoryadmin.core.personal_data import KeyFamily
from memoryadmin.core.redis_client import get_redis
from memoryadmin.extraction.config import validate_extraction_config
from memoryadmin.extraction.leases import RunLease, lease_seconds, stale_before
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
INTERRUPTED = "interrupted: its worker was lost; a later run took its messages"
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
    "extraction_recover",
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


# The keys a person's sessions hold here, for erasure (see core.personal_data).
SCHEDULE_KEYS = KeyFamily(
    store="extraction_schedules",
    keys=lambda namespace_id, sessions: [schedule_key(namespace_id, s.pk) for s in sessions],
    clear=lambda namespace_id, sessions: extraction_cancel_for_sessions(namespace_id, [s.pk for s in sessions]),
)


def _retire(run: ExtractionRun, *, cancelled: bool) -> None:
    """A task that no longer owns its schedule leaves its run in a final state where nobody else will.

    A queued run whose schedule was removed was cancelled. A run still marked running whose
    lease ran out lost its worker, and a later schedule has taken over its messages (beat's
    recovery usually got there first). Anything else belongs to the task that now holds the schedule.
    """
    now = timezone.now()
    if cancelled and run.status == RunStatus.QUEUED:
        ExtractionRun.objects.filter(pk=run.pk, status=RunStatus.QUEUED).update(
            status=RunStatus.FAILED, error="cancelled", finished_at=now
        )
    elif run.status == RunStatus.RUNNING:
        ExtractionRun.objects.filter(
            pk=run.pk, status=RunStatus.RUNNING, started_at=run.started_at, heartbeat_at__lt=stale_before()
        ).update(status=RunStatus.FAILED, error=INTERRUPTED, finished_at=now)


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
                result = extraction_run(run=queued, schedule_token=token)
    else:
        result = extraction_run(run=run, schedule_token=token)
    _release(namespace_id, session_pk, token)
    # Released first, then looked at: an append committed before the release is seen here,
    # one committed after it finds the key free and schedules itself.
    if _unextracted(session_pk).filter(seq__gt=seen).exists():
        extraction_schedule_after_append(namespace_id=namespace_id, session_pk=session_pk)
    return result


# --- recovery ------------------------------------------------------------------

_INTERRUPT_STALE = f"""
    UPDATE {ExtractionRun._meta.db_table} SET status = 'failed', error = %(error)s, finished_at = now()
    WHERE id IN (
        SELECT id FROM {ExtractionRun._meta.db_table}
        WHERE status = 'running' AND heartbeat_at < now() - make_interval(secs => %(lease)s)
        ORDER BY heartbeat_at LIMIT %(limit)s FOR UPDATE SKIP LOCKED
    )
    RETURNING namespace_id, session_id
"""
# Sessions recovery must leave alone: a run is running (its lease is live: stale ones were just taken
# over), or the latest run failed by itself (not interrupted) less than the retry delay ago.
_BUSY = f"""
    SELECT s.id FROM unnest(%(sessions)s::bigint[]) AS s(id)
    WHERE EXISTS (SELECT 1 FROM {ExtractionRun._meta.db_table} r WHERE r.session_id = s.id AND r.status = 'running')
       OR (SELECT r.status = 'failed' AND r.error <> %(interrupted)s
                  AND COALESCE(r.finished_at, r.created_at) > %(retry_after)s
           FROM {ExtractionRun._meta.db_table} r WHERE r.session_id = s.id ORDER BY r.created_at DESC LIMIT 1)
"""


def extraction_recover(*, limit: int | None = None) -> dict[str, int]:
    """Beat's tick: take over runs whose worker died, and schedule messages no schedule will reach.

    1. A running run whose heartbeat is older than the lease lost its worker: it is marked
       failed (interrupted) and its session, if messages are left, scheduled again at once.
    2. A session with a message unextracted for longer than the debounce and the lease
       together, no live run, and no failure of its own within the retry delay, is scheduled
       when nothing holds its schedule (the append could not reach Redis or the broker) or
       the schedule is overdue by more than the lease (its task went with a dead worker).

    At most `limit` (EXTRACTION_RECOVERY_BATCH) of each per tick. Returns how many runs were
    interrupted and how many sessions scheduled.
    """
    limit = settings.EXTRACTION_RECOVERY_BATCH if limit is None else limit
    with connection.cursor() as cursor:
        cursor.execute(_INTERRUPT_STALE, {"error": INTERRUPTED, "lease": lease_seconds(), "limit": limit})
        interrupted = cursor.fetchall()
    for namespace_id, session_pk in interrupted:
        logger.warning("extraction of session %s of namespace %s lost its worker: taken over", session_pk, namespace_id)
    # The schedule a dead run held is gone with its lease or, due before the run started, overdue: replaced.
    sessions = list(dict.fromkeys(interrupted))
    left = sessions_with_unextracted_messages([session_pk for _, session_pk in sessions])
    scheduled = _schedule_lost([(namespace_id, pk) for namespace_id, pk in sessions if pk in left])

    now = timezone.now()
    persisted_before = now - timedelta(seconds=float(settings.EXTRACTION_DEBOUNCE_SECONDS) + lease_seconds())
    retry_after = now - timedelta(seconds=settings.EXTRACTION_RETRY_SECONDS)
    after = 0
    while scheduled < limit:
        page = sessions_waiting_for_extraction(persisted_before=persisted_before, after=after, limit=limit)
        if not page:
            break
        after = page[-1][0]
        with connection.cursor() as cursor:
            cursor.execute(
                _BUSY, {"sessions": [pk for pk, _ in page], "interrupted": INTERRUPTED, "retry_after": retry_after}
            )
            busy = {pk for (pk,) in cursor.fetchall()}
        due = [(namespace_id, pk) for pk, namespace_id in page if pk not in busy]
        scheduled += _schedule_lost(due[: limit - scheduled])
        if len(page) < limit:
            break
    return {"interrupted": len(interrupted), "scheduled": scheduled}


def _due_time(token: str) -> float:
    try:
        return float(token)
    except ValueError:
        return 0.0


def _schedule_lost(sessions: Sequence[tuple[int, int]]) -> int:
    """Schedule these (namespace id, session pk) now, unless a live schedule holds one. Returns how many.

    A schedule due more than the lease ago whose run has not started lost its task (reserved
    by a worker that died, until its countdown) and is replaced. Set-based: one MGET, one
    pipeline of claims, a fixed number of statements for the queued runs, then one publish each.
    """
    if not sessions:
        return 0
    redis = get_redis()
    keys = [schedule_key(namespace_id, session_pk) for namespace_id, session_pk in sessions]
    overdue_before = time.time() - lease_seconds()
    lost = [
        (session, key, held)
        for session, key, held in zip(sessions, keys, redis.mget(keys), strict=True)
        if held is None or _due_time(held) < overdue_before
    ]
    if not lost:
        return 0
    runs = _queued_runs([session_pk for (_, session_pk), _, _ in lost])
    token, ttl = _token(0), _schedule_ttl(0)
    claims = redis.pipeline(transaction=False)
    for _, key, held in lost:
        if held is None:
            claims.set(key, token, nx=True, ex=ttl)
        else:
            # Replaced only if it still holds the overdue token: a schedule made meanwhile wins.
            claims.eval(_MOVE, 1, key, held, token, ttl)
    claimed = [session for (session, _, _), ok in zip(lost, claims.execute(), strict=True) if ok]
    debounce = float(settings.EXTRACTION_DEBOUNCE_SECONDS)
    published = 0
    for index, (namespace_id, session_pk) in enumerate(claimed):
        run_id = runs.get(session_pk)
        if run_id is None:  # the session went meanwhile
            _release(namespace_id, session_pk, token)
            continue
        try:
            _publish(run_id, token, 0, debounce=debounce)
        except BaseException:
            # Keys without a task would hold off these sessions' appends until they expired.
            with contextlib.suppress(Exception):
                for later_namespace_id, later_pk in claimed[index:]:
                    _release(later_namespace_id, later_pk, token)
            raise
        published += 1
    return published


def _queued_runs(session_pks: list[int]) -> dict[int, uuid.UUID]:
    """The queued run of each session (session pk -> run id), created where there is none."""
    queued = ExtractionRun.objects.filter(status=RunStatus.QUEUED)
    runs = dict(queued.filter(session_id__in=session_pks).values_list("session_id", "pk"))
    missing = [pk for pk in session_pks if pk not in runs]
    if not missing:
        return runs
    fresh = [
        ExtractionRun(namespace_id=namespace_id, session_id=pk, strategy=strategy, status=RunStatus.QUEUED)
        for pk, namespace_id, strategy in Session.objects.filter(pk__in=missing).values_list(
            "pk", "namespace_id", "namespace__extraction_strategy"
        )
    ]
    try:
        # A conflict is another schedule's queued run, shared like any other.
        ExtractionRun.objects.bulk_create(fresh, ignore_conflicts=True)
    except IntegrityError:
        # A session was deleted meanwhile and fails the batch: one at a time, as an append would.
        for run in fresh:
            _queued_run(run.namespace_id, run.session_id, run.strategy)
    runs.update(queued.filter(session_id__in=missing).values_list("session_id", "pk"))
    return runs


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


def extraction_run(*, run: ExtractionRun, schedule_token: str | None = None) -> ExtractionRun | None:
    """Execute a queued (or interrupted) run now, in this process, holding its lease while it works.

    `schedule_token` is the session's schedule the caller holds; its key lives only as
    long as the lease from now on. Returns the finished run, or None when the session was
    deleted meanwhile. A strategy failure marks the run failed with the reason, and the
    messages it did not get to stay unextracted for a later run.
    """
    session = Session.objects.select_related("namespace").filter(pk=run.session_id).first()
    if session is None:
        return None
    namespace = session.namespace
    claimed = ExtractionRun.objects.filter(pk=run.pk, status__in=[RunStatus.QUEUED, RunStatus.RUNNING]).update(
        status=RunStatus.RUNNING,
        started_at=timezone.now(),
        heartbeat_at=Now(),
        error="",
        strategy=namespace.extraction_strategy,
    )
    if not claimed:
        return ExtractionRun.objects.filter(pk=run.pk).first()
    started = time.monotonic()
    strategy: Strategy | None = None
    key = schedule_key(run.namespace_id, run.session_id) if schedule_token else None
    try:
        with RunLease(run.pk, key, schedule_token):
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
