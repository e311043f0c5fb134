"""Recovery: runs whose worker died are taken over, and sessions no schedule will reach are scheduled."""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Sequence
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, connection
from django.utils import timezone

from memoryadmin.conversations.models import Session
from memoryadmin.conversations.queries import sessions_waiting_for_extraction, sessions_with_unextracted_messages
from memoryadmin.core.redis_client import get_redis
from memoryadmin.extraction.leases import lease_seconds
from memoryadmin.extraction.models import ExtractionRun, RunStatus
from memoryadmin.extraction.services.scheduling import (
    INTERRUPTED,
    MOVE_SCRIPT,
    logger,
    queued_run,
    schedule_key,
    schedule_publish,
    schedule_release,
    schedule_token,
    schedule_ttl,
)

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
    token, ttl = schedule_token(0), schedule_ttl(0)
    claims = redis.pipeline(transaction=False)
    for _, key, held in lost:
        if held is None:
            claims.set(key, token, nx=True, ex=ttl)
        else:
            # Replaced only if it still holds the overdue token: a schedule made meanwhile wins.
            claims.eval(MOVE_SCRIPT, 1, key, held, token, ttl)
    claimed = [session for (session, _, _), ok in zip(lost, claims.execute(), strict=True) if ok]
    debounce = float(settings.EXTRACTION_DEBOUNCE_SECONDS)
    published = 0
    for index, (namespace_id, session_pk) in enumerate(claimed):
        run_id = runs.get(session_pk)
        if run_id is None:  # the session went meanwhile
            schedule_release(namespace_id, session_pk, token)
            continue
        try:
            schedule_publish(run_id, token, 0, debounce=debounce)
        except BaseException:
            # Keys without a task would hold off these sessions' appends until they expired.
            with contextlib.suppress(Exception):
                for later_namespace_id, later_pk in claimed[index:]:
                    schedule_release(later_namespace_id, later_pk, token)
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
            queued_run(run.namespace_id, run.session_id, run.strategy)
    runs.update(queued.filter(session_id__in=missing).values_list("session_id", "pk"))
    return runs
