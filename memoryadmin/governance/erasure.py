"""Erasure: the right to be forgotten, done and proven.

A request is recorded and a worker does the rest: it deletes everything held
about one person in one namespace, then checks every table that holds rows
about a person and the Redis keys of the person's sessions, and writes a
receipt chained to the audit trail. What "everything" is comes from
`core.personal_data`: tables found from the models (a user_id, or a chain of
foreign keys to one) and the Redis key families the apps declare. The plain user id is then
dropped from the request; its HMAC stays, so a restore of an older snapshot
cannot bring the person back.
"""

from __future__ import annotations

import hashlib
import json
import logging
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db import IntegrityError, OperationalError, transaction
from django.db.models import Q
from django.utils import timezone

from memoryadmin.audit.services import Actor, audit_about
from memoryadmin.conversations.models import Session
from memoryadmin.core.app_ids import validate_app_id
from memoryadmin.core.errors import Conflict
from memoryadmin.core.fingerprints import subject_hmac
from memoryadmin.core.locks import lock_namespace_writes, lock_subject
from memoryadmin.core.personal_data import Holding, SessionRef, holdings, key_families, subject_tables, treatments
from memoryadmin.core.queueing import queued
from memoryadmin.core.redis_client import get_redis
from memoryadmin.core.timestamps import rfc3339
from memoryadmin.governance.models import ErasureRequest, ErasureStatus
from memoryadmin.tenancy.models import Namespace
from memoryadmin.webhooks.queries import erasure_notifications

# Queued by name: the tasks module imports this one.
ERASURE_TASK = "memoryadmin.governance.tasks.erasure_task"

logger = logging.getLogger(__name__)

STALE_RUN = timedelta(minutes=30)
# A writer that raced the deletion (an append, an extraction) gets this many more sweeps.
MAX_SWEEPS = 5
ACTIVE = (ErasureStatus.PENDING, ErasureStatus.RUNNING)


def erasure_request(
    *, namespace: Namespace, user_id: str, actor: Actor, reason: str = "", enqueue: bool = True
) -> ErasureRequest:
    """Record the request and start the worker once it commits; a request already open is returned as is.

    `enqueue=False` is for a caller that runs `erasure_execute` itself (the erase_subject command).
    """
    validate_app_id(user_id, "user_id")
    subject = subject_hmac(namespace.pk, user_id)
    with transaction.atomic():
        open_request = (
            ErasureRequest.objects.select_for_update()
            .filter(namespace=namespace, subject_hash=subject, status__in=ACTIVE)
            .first()
        )
        if open_request is not None:
            if enqueue and open_request.status == ErasureStatus.PENDING:
                # Asked again while still pending: its task may never have reached the queue (the
                # broker was down when it was first asked), so queue it again. A second delivery
                # is harmless: only one run can claim the request.
                pending_id = str(open_request.pk)
                transaction.on_commit(lambda: queued(ERASURE_TASK).delay(pending_id))
            return open_request
        erasure = ErasureRequest.objects.create(
            namespace=namespace, user_id=user_id, subject_hash=subject, requested_by=str(actor)
        )
        audit_about(erasure, actor=actor, action="erasure.request", user_id=user_id, reason=reason)
        erasure_id = str(erasure.pk)
        if enqueue:
            transaction.on_commit(lambda: queued(ERASURE_TASK).delay(erasure_id))
    return erasure


def erasure_retry(*, erasure: ErasureRequest, actor: Actor) -> None:
    """Queue a failed erasure again; only a failed one can be retried."""
    if erasure.status != ErasureStatus.FAILED:
        raise Conflict("Only a failed erasure can be retried.")
    erasure_id = str(erasure.pk)
    with transaction.atomic():
        audit_about(erasure, actor=actor, action="erasure.retry")
        transaction.on_commit(lambda: queued(ERASURE_TASK).delay(erasure_id))


@dataclass
class Sweep:
    """What the sweeps of one erasure removed: counts per store, the sessions and the subject rows' keys."""

    deleted: Counter[str] = field(default_factory=Counter)
    sessions: dict[int, SessionRef] = field(default_factory=dict)
    # subject table label -> primary keys deleted (what a dependent row would point at).
    roots: dict[str, set[Any]] = field(default_factory=lambda: defaultdict(set))


def _count_about(holding: Holding, namespace: Namespace, user_id: str) -> int:
    """The rows of the table about the person, in one statement.

    A table reached by several paths (evidence: through its memory and through its message) is
    filtered by one subquery per path: each follows its own indexes, where the paths OR'ed
    together in one join would read the whole join.
    """
    manager = holding.model._default_manager
    lookups = holding.lookups(namespace.pk, user_id)
    if len(lookups) == 1:
        return manager.filter(lookups[0]).count()
    about = Q()
    for lookup in lookups:
        about |= Q(pk__in=manager.filter(lookup).values("pk"))
    return manager.filter(about).count()


def _sweep(namespace: Namespace, user_id: str, sweep: Sweep) -> tuple[datetime, dict[str, int]]:
    """Delete one pass of everything about the person and check, before it commits, that nothing is left;
    answers the moment the pass covers and what it left (counts are added only once it commits).

    The person's subject lock is taken exclusively first: a writer adding rows about them (a new
    session, a memory, a tombstone) that is in flight commits before we look, and one that starts
    later waits until this pass has committed, so its rows are new data written after the moment
    covered. Then every subject row of the person is locked: an append to a session in flight
    finishes before we delete (and is deleted with the rest), one that starts later waits and then
    finds its session gone, and no dependent row (evidence, a revision) can be added meanwhile,
    since inserting one needs a lock on its parent. So the counts taken then are exactly what the
    deletes remove (subject rows go by primary key, dependent rows with them by cascade), and the
    check after them, in the same transaction, sees no one else's rows about the person.
    """
    deleted: Counter[str] = Counter()
    locked: dict[str, list[Any]] = {}
    with transaction.atomic():
        lock_namespace_writes(namespace.pk)
        lock_subject(namespace.pk, user_id, exclusive=True)
        covered = timezone.now()
        sessions: list[tuple[int, str]] = []
        for model in subject_tables():
            qs = model._default_manager.select_for_update().filter(namespace=namespace, user_id=user_id).order_by("pk")
            if model is Session:
                sessions = list(qs.values_list("pk", "session_id"))
                locked[model._meta.label] = [pk for pk, _ in sessions]
            else:
                locked[model._meta.label] = list(qs.values_list("pk", flat=True))
        for holding in holdings():
            if holding.is_subject_table:
                deleted[holding.store] += len(locked[holding.label])
            else:
                deleted[holding.store] += _count_about(holding, namespace, user_id)
        for model in subject_tables():
            model._default_manager.filter(pk__in=locked[model._meta.label]).delete()
        remaining = _remaining_rows(namespace, user_id, {label: set(pks) for label, pks in locked.items()})
    sweep.sessions.update((pk, SessionRef(pk, sid)) for pk, sid in sessions)
    for label, pks in locked.items():
        sweep.roots[label].update(pks)
    sweep.deleted += deleted
    return covered, remaining


def _remaining_rows(namespace: Namespace, user_id: str, roots: dict[str, set[Any]]) -> dict[str, int]:
    """What the pass should have removed and did not (read in its transaction, under its locks): any row
    about the person, and any row that still points at a subject row it deleted."""
    remaining: dict[str, int] = {}
    for holding in holdings():
        if n := _count_about(holding, namespace, user_id):
            remaining[holding.label] = n
        for path in holding.paths:
            hops = path.prefix.split("__")[:-1]
            if len(hops) != 1:
                continue  # reached through another dependent table, which is checked itself
            pks = roots.get(path.root._meta.label)
            if pks and (n := holding.model._default_manager.filter(**{f"{hops[0]}_id__in": list(pks)}).count()):
                remaining[holding.label] = remaining.get(holding.label, 0) + n
    return remaining


def _arrived_rows(namespace: Namespace, user_id: str) -> int:
    """Rows about the person written since the last pass committed: the person's new data (an app still
    writing while the erasure ran); the receipt counts them, and a later erasure removes them."""
    return sum(_count_about(holding, namespace, user_id) for holding in holdings())


def subject_redis_keys(namespace_id: int, sessions: list[SessionRef]) -> list[str]:
    """The Redis keys a person's sessions may hold, as each app that keeps keys declares them."""
    return [key for family in key_families() for key in family.keys(namespace_id, sessions)]


def _clear_redis(namespace_id: int, sweep: Sweep) -> Counter[str]:
    sessions = sorted(sweep.sessions.values(), key=lambda s: s.pk)
    return Counter({family.store: family.clear(namespace_id, sessions) for family in key_families()})


def _remaining_keys(keys: list[str]) -> list[str]:
    redis = get_redis()
    remaining = []
    for start in range(0, len(keys), 500):
        chunk = keys[start : start + 500]
        with redis.pipeline(transaction=False) as pipe:
            for key in chunk:
                pipe.exists(key)
            remaining += [key for key, n in zip(chunk, pipe.execute(), strict=True) if n]
    return remaining


def receipt_digest(body: dict[str, Any]) -> str:
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


def erasure_execute(*, erasure_id: uuid.UUID | str) -> ErasureRequest:
    """Do the erasure (the worker's job). Safe to run again: a retry redoes the sweep, a finished one is left."""
    now = timezone.now()
    # Only one runner at a time; a run whose worker died (still "running" long after it
    # started) may be taken over by the redelivered task.
    claimable = Q(status__in=(ErasureStatus.PENDING, ErasureStatus.FAILED)) | Q(
        status=ErasureStatus.RUNNING, started_at__lt=now - STALE_RUN
    )
    claimed = (
        ErasureRequest.objects.filter(pk=erasure_id)
        .filter(claimable)
        .update(status=ErasureStatus.RUNNING, started_at=now, error="")
    )
    erasure = ErasureRequest.objects.select_related("namespace").get(pk=erasure_id)
    if not claimed:
        return erasure
    namespace, user_id = erasure.namespace, erasure.user_id
    try:
        if not user_id:
            raise RuntimeError("the request has no subject left to erase")
        sweep = Sweep()
        arrived = 0
        cutoff = timezone.now()
        remaining: dict[str, int] = {}
        leftover_keys: list[str] = []
        redis_counts: Counter[str] = Counter()
        for _ in range(MAX_SWEEPS):
            try:
                cutoff, remaining = _sweep(namespace, user_id, sweep)
            except (IntegrityError, OperationalError):
                # A writer added a row that points at what we were deleting (an extraction
                # run of a session created mid-sweep), or waited for us while holding a row we
                # wanted: the sweep rolled back; sweep again.
                remaining = {"concurrent writes": 1}
                continue
            redis_counts += _clear_redis(namespace.pk, sweep)
            arrived = _arrived_rows(namespace, user_id)
            keys = subject_redis_keys(namespace.pk, sorted(sweep.sessions.values(), key=lambda s: s.pk))
            leftover_keys = _remaining_keys(keys)
            if not remaining and not leftover_keys:
                break
        if remaining or leftover_keys:
            raise RuntimeError(
                f"rows written before the erasure are still there: {sum(remaining.values())} rows, "
                f"{len(leftover_keys)} keys"
            )
        # What the apps register for the tables that do not name the person but may hold their data:
        # uploads discarded, the audit trail's free text blanked (its events stay).
        for treatment in treatments():
            sweep.deleted[treatment.store] += treatment.apply(namespace_id=namespace.pk, user_id=user_id)
        return _complete(erasure, sweep, redis_counts, keys, arrived_since=arrived, cutoff=cutoff)
    except Exception as exc:
        logger.exception("erasure %s failed", erasure_id)
        ErasureRequest.objects.filter(pk=erasure.pk).update(
            status=ErasureStatus.FAILED, error=str(exc)[:2000], completed_at=None
        )
        erasure.refresh_from_db()
        return erasure


def _complete(
    erasure: ErasureRequest,
    sweep: Sweep,
    redis_counts: Counter[str],
    keys: list[str],
    *,
    arrived_since: int,
    cutoff: datetime,
) -> ErasureRequest:
    namespace = erasure.namespace
    stores = [
        *(h.store for h in holdings()),
        *(f.store for f in key_families()),
        *(t.store for t in treatments()),
    ]
    counts = {**dict.fromkeys(stores, 0), **sweep.deleted, **redis_counts}
    completed_at = timezone.now()
    body = {
        "erasure_id": str(erasure.pk),
        "namespace": namespace.slug,
        "subject_hmac": erasure.subject_hash,
        "requested_by": erasure.requested_by,
        "requested_at": rfc3339(erasure.created_at),
        "started_at": rfc3339(erasure.started_at),
        "completed_at": rfc3339(completed_at),
        "deleted": dict(sorted(counts.items())),
        "verification": {
            "tables_scanned": [h.model._meta.db_table for h in holdings()],
            "rows_remaining": 0,
            "redis_keys_checked": len(keys),
            "redis_keys_remaining": 0,
            # Everything written up to this moment is gone; rows written later are new data.
            "covers_data_written_by": rfc3339(cutoff),
            "rows_written_during_erasure": arrived_since,
        },
    }
    digest = receipt_digest(body)
    with transaction.atomic():
        event = audit_about(
            erasure,
            actor=Actor.system("erasure"),
            action="erasure.complete",
            user_id=erasure.user_id,
            data={"deleted": body["deleted"], "receipt_sha256": digest},
            # Downstream systems (webhooks) must know whom to erase; the trail keeps only the hash.
            notice={"user_id": erasure.user_id},
        )
        receipt = {
            **body,
            "receipt_sha256": digest,
            "audit_event": {
                "id": event.pk,
                "hash": event.hash,
                "prev_hash": event.prev_hash,
                "created_at": rfc3339(event.created_at),
            },
        }
        ErasureRequest.objects.filter(pk=erasure.pk).update(
            status=ErasureStatus.COMPLETED,
            user_id="",
            counts=body["deleted"],
            receipt=receipt,
            completed_at=completed_at,
        )
    erasure.refresh_from_db()
    return erasure


def erasure_receipt(erasure: ErasureRequest) -> dict[str, Any] | None:
    """The receipt as shown: as signed at completion, with `downstream`, each webhook endpoint told of the
    erasure and whether it acknowledged, and when (which changes as deliveries complete, so it is outside
    the signed body)."""
    if erasure.receipt is None:
        return None
    return {**erasure.receipt, "downstream": erasure_notifications(erasure.namespace_id, erasure.pk)}


def receipt_verify(receipt: dict[str, Any]) -> bool:
    """A receipt is genuine when its body hashes to its digest and the audit event it names carries that digest."""
    from memoryadmin.audit.models import AuditEvent
    from memoryadmin.audit.services import digest_of

    body = {k: v for k, v in receipt.items() if k not in ("receipt_sha256", "audit_event", "downstream")}
    if receipt_digest(body) != receipt.get("receipt_sha256"):
        return False
    link = receipt.get("audit_event") or {}
    event = AuditEvent.objects.filter(pk=link.get("id")).first()
    return (
        event is not None
        and event.hash == link.get("hash")
        and digest_of(event) == event.hash
        and event.data.get("receipt_sha256") == receipt["receipt_sha256"]
    )


# A pending erasure nobody started after this long is queued again by beat.
STALE_PENDING = timedelta(minutes=10)


def erasures_to_requeue(now: datetime | None = None) -> list[str]:
    """Erasures whose task may have been lost: pending long after they were asked (the broker was
    down then), or running long after they started (the worker died and the message with it)."""
    now = now or timezone.now()
    lost = Q(status=ErasureStatus.PENDING, created_at__lt=now - STALE_PENDING) | Q(
        status=ErasureStatus.RUNNING, started_at__lt=now - STALE_RUN
    )
    return [str(pk) for pk in ErasureRequest.objects.filter(lost).order_by("created_at").values_list("pk", flat=True)]
