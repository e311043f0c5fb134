"""Debounced scheduling per session: the schedule key in Redis and the tasks it starts."""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Sequence
from datetime import timedelta

from celery import current_app
from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from memoryadmin.conversations.models import Session
from memoryadmin.core.errors import InvalidInput
from memoryadmin.core.personal_data import KeyFamily
from memoryadmin.core.queueing import queued
from memoryadmin.core.redis_batch import deferred
from memoryadmin.core.redis_client import get_redis
from memoryadmin.extraction.leases import stale_before
from memoryadmin.extraction.models import ExtractionRun, RunStatus
from memoryadmin.tenancy.models import Namespace

# Queued by name: the tasks module imports the services.
EXTRACT_SESSION_TASK = "memoryadmin.extraction.tasks.extract_session"

logger = logging.getLogger(__name__)


# Compare-and-delete: release the schedule only if it is still ours.
INTERRUPTED = "interrupted: its worker was lost; a later run took its messages"

_RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0"


# Compare-and-set: move the schedule to a later due time only if it is still ours.
MOVE_SCRIPT = (
    "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('set', KEYS[1], ARGV[2], 'EX', ARGV[3]) end "
    "return false"
)


def schedule_key(namespace_id: int, session_pk: int) -> str:
    return f"extract:{namespace_id}:{session_pk}"


def schedule_ttl(delay: float) -> int:
    # Outlive the broker's redelivery of an unacknowledged task, so a redelivered task still finds its token.
    return int(delay) + int(_abandoned_after().total_seconds()) + 3600


def queued_run(namespace_id: int, session_pk: int, strategy: str | None = None) -> ExtractionRun | None:
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
    run = queued_run(session.namespace_id, session.pk, session.namespace.extraction_strategy)
    if run is None:
        return None
    namespace_id, session_pk, run_id = session.namespace_id, session.pk, run.pk
    # Inside a transaction the dispatch waits for the commit and must not break the committing
    # caller (it is logged; the next append retries). Outside one it runs now and raises, so
    # `POST .../extract` answers 503 when Redis is down.
    transaction.on_commit(lambda: _dispatch(namespace_id, session_pk, run_id, delay), robust=connection.in_atomic_block)
    return run


def schedule_token(delay: float) -> str:
    return f"{time.time() + delay:.6f}"


def schedule_publish(run_id: uuid.UUID, token: str, delay: float, debounce: float | None = None) -> None:

    kwargs = {} if debounce is None else {"debounce": debounce}
    queued(EXTRACT_SESSION_TASK).apply_async(args=[str(run_id), token], kwargs=kwargs, countdown=max(delay, 0))


def _dispatch(namespace_id: int, session_pk: int, run_id: uuid.UUID, delay: float) -> None:
    token = schedule_token(delay)
    get_redis().set(schedule_key(namespace_id, session_pk), token, ex=schedule_ttl(delay))
    schedule_publish(run_id, token, delay)


def extraction_schedule_after_append(*, namespace_id: int, session_pk: int, strategy: str | None = None) -> bool:
    """After an append commits: start the session's debounced schedule unless one is pending.

    Returns True when this call started it. A pending schedule needs nothing more: its
    task looks at the session's newest message when it fires, and waits longer if needed.
    """
    token, ttl = _claim()
    if not get_redis().set(schedule_key(namespace_id, session_pk), token, nx=True, ex=ttl):
        return False
    return _start(namespace_id, session_pk, strategy, token)


def extraction_schedule_after_append_batched(
    *, namespace_id: int, session_pk: int, strategy: str | None = None
) -> None:
    """`extraction_schedule_after_append` whose claim goes with the request's other Redis writes, at its end.

    Within a request (`core.redis_batch`) that saves the append its own round trip; the schedule
    starts, when the claim wins, before the response leaves. Nothing here raises: the messages are
    committed, and an outage leaves them unextracted until the next append claims again.
    """
    token, ttl = _claim()
    key = schedule_key(namespace_id, session_pk)

    def claimed(answers: list[object]) -> None:
        if answers[0]:
            _start(namespace_id, session_pk, strategy, token)

    def failed(error: Exception) -> None:
        logger.warning(
            "could not schedule extraction for session %s of namespace %s: %s", session_pk, namespace_id, error
        )

    deferred(lambda pipe: pipe.set(key, token, nx=True, ex=ttl), failed, claimed)


def _claim() -> tuple[str, int]:
    """The token and time-to-live the session's schedule key is claimed with."""
    delay = float(settings.EXTRACTION_DEBOUNCE_SECONDS)
    return schedule_token(delay), schedule_ttl(delay)


def _start(namespace_id: int, session_pk: int, strategy: str | None, token: str) -> bool:
    """The schedule key is ours: queue the run and its task, or give the key back."""
    delay = float(settings.EXTRACTION_DEBOUNCE_SECONDS)
    try:
        run = queued_run(namespace_id, session_pk, strategy)
        if run is None:
            schedule_release(namespace_id, session_pk, token)
            return False
        schedule_publish(run.pk, token, delay, debounce=delay)
    except BaseException:
        # A key without a task would hold off every later append's schedule until it expired.
        schedule_release(namespace_id, session_pk, token)
        raise
    return True


def run_postpone(run: ExtractionRun, token: str, debounce: float) -> bool:
    """A debounced task that fires while the session is still busy moves itself to the end of the quiet period.

    Returns True when it did (the task then exits and its successor runs later). With tasks run
    eagerly (CELERY_TASK_ALWAYS_EAGER) there is no later: its successor would run at once, inside
    it, again and again until the quiet period ends, so the run goes ahead now.
    """
    if current_app.conf.task_always_eager:
        return False
    last_message_at = Session.objects.filter(pk=run.session_id).values_list("last_message_at", flat=True).first()
    if last_message_at is None:
        return False
    quiet_at = last_message_at.timestamp() + debounce
    wait = quiet_at - time.time()
    if wait <= 0:
        return False
    later = f"{quiet_at:.6f}"
    key = schedule_key(run.namespace_id, run.session_id)
    if not get_redis().eval(MOVE_SCRIPT, 1, key, token, later, schedule_ttl(wait)):
        return True  # superseded meanwhile: the newer schedule owns the run
    try:
        schedule_publish(run.pk, later, wait, debounce=debounce)
    except BaseException:
        schedule_release(run.namespace_id, run.session_id, later)
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


def run_retire(run: ExtractionRun, *, cancelled: bool) -> None:
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


def schedule_release(namespace_id: int, session_pk: int, token: str) -> None:
    get_redis().eval(_RELEASE, 1, schedule_key(namespace_id, session_pk), token)
