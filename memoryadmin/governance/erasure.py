"""Erasure: the right to be forgotten, done and proven.

A request is recorded and a worker does the rest: it deletes everything held
about one person in one namespace (sessions, messages, memories, revisions,
evidence, pins, tombstones, working memory, pending extraction), then checks
every table that has a user_id and the Redis keys of the person's sessions,
and writes a receipt chained to the audit trail. The plain user id is then
dropped from the request; its HMAC stays, so a restore of an older snapshot
cannot bring the person back.
"""

from __future__ import annotations

import hashlib
import json
import logging
import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.apps import apps
from django.db import IntegrityError, models, transaction
from django.db.models import Q
from django.utils import timezone

from memoryadmin.audit.services import Actor, audit_record
from memoryadmin.conversations.models import Message, Session
from memoryadmin.core.app_ids import validate_app_id
from memoryadmin.core.errors import Conflict
from memoryadmin.core.fingerprints import subject_hmac
from memoryadmin.core.redis_client import get_redis
from memoryadmin.core.timestamps import rfc3339
from memoryadmin.governance.models import ErasureRequest, ErasureStatus
from memoryadmin.memories.models import Memory, MemoryEvidence, MemoryRevision, Pin
from memoryadmin.tenancy.models import Namespace

logger = logging.getLogger(__name__)

STALE_RUN = timedelta(minutes=30)
# A writer that raced the deletion (an append, an extraction) gets this many more sweeps.
MAX_SWEEPS = 5
# What the receipt calls each store.
STORE_NAMES = {
    "conversations.Session": "sessions",
    "conversations.Message": "messages",
    "memories.Memory": "memories",
    "memories.MemoryRevision": "revisions",
    "memories.MemoryEvidence": "evidence",
    "memories.Pin": "pins",
    "memories.Tombstone": "tombstones",
    "extraction.ExtractionRun": "extraction_runs",
}
ACTIVE = (ErasureStatus.PENDING, ErasureStatus.RUNNING)


def erasure_request(
    *, namespace: Namespace, user_id: str, actor: Actor, reason: str = "", enqueue: bool = True
) -> ErasureRequest:
    """Record the request and start the worker once it commits; a request already open is returned as is.

    `enqueue=False` is for a caller that runs `erasure_execute` itself (the erase_subject command).
    """
    from memoryadmin.governance.tasks import erasure_task  # tasks imports this module

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
                transaction.on_commit(lambda: erasure_task.delay(pending_id))
            return open_request
        erasure = ErasureRequest.objects.create(
            namespace=namespace, user_id=user_id, subject_hash=subject, requested_by=str(actor)
        )
        audit_record(
            actor=actor,
            action="erasure.request",
            namespace_id=namespace.pk,
            target_type="erasure",
            target_id=str(erasure.pk),
            user_id=user_id,
            reason=reason,
        )
        erasure_id = str(erasure.pk)
        if enqueue:
            transaction.on_commit(lambda: erasure_task.delay(erasure_id))
    return erasure


def erasure_retry(*, erasure: ErasureRequest, actor: Actor) -> None:
    """Queue a failed erasure again; only a failed one can be retried."""
    from memoryadmin.governance.tasks import erasure_task  # tasks imports this module

    if erasure.status != ErasureStatus.FAILED:
        raise Conflict("Only a failed erasure can be retried.")
    erasure_id = str(erasure.pk)
    with transaction.atomic():
        audit_record(
            actor=actor,
            action="erasure.retry",
            namespace_id=erasure.namespace_id,
            target_type="erasure",
            target_id=erasure_id,
        )
        transaction.on_commit(lambda: erasure_task.delay(erasure_id))


def subject_models() -> list[type[models.Model]]:
    """Every model that names a data subject by user_id, scoped by namespace (the ledger itself excepted)."""
    found = []
    for model in apps.get_models():
        if model is ErasureRequest:
            continue
        names = {f.name for f in model._meta.get_fields()}
        if "user_id" in names and "namespace" in names:
            user_field = model._meta.get_field("user_id")
            if isinstance(user_field, models.CharField):
                found.append(model)
    return sorted(found, key=lambda m: m._meta.label)


def _add(counts: Counter[str], deleted: dict[str, int]) -> None:
    for label, n in deleted.items():
        if n:
            counts[STORE_NAMES.get(label, label)] += n


@dataclass
class Sweep:
    deleted: Counter[str] = field(default_factory=Counter)
    session_ids: set[str] = field(default_factory=set)
    session_pks: set[int] = field(default_factory=set)
    memory_ids: set[uuid.UUID] = field(default_factory=set)


def _sweep(namespace: Namespace, user_id: str, sweep: Sweep) -> None:
    """Delete one pass of everything about the person; counts are added only once it commits."""
    deleted: Counter[str] = Counter()
    with transaction.atomic():
        # Lock the person's sessions first: an append in flight finishes before we
        # delete (and is deleted with the rest), and one that starts later waits
        # and then finds its session gone.
        sessions = list(
            Session.objects.select_for_update()
            .filter(namespace=namespace, user_id=user_id)
            .values_list("pk", "session_id")
        )
        memory_ids = list(Memory.objects.filter(namespace=namespace, user_id=user_id).values_list("pk", flat=True))
        # Exactly what was locked and listed: anything newer is the next sweep's, so the
        # Redis keys cleared below always match the sessions deleted here.
        _add(deleted, Memory.objects.filter(pk__in=memory_ids).delete()[1])
        _add(deleted, Session.objects.filter(pk__in=[pk for pk, _ in sessions]).delete()[1])
        for model in subject_models():
            if model not in (Memory, Session):
                _add(deleted, model._default_manager.filter(namespace=namespace, user_id=user_id).delete()[1])
    sweep.session_pks.update(pk for pk, _ in sessions)
    sweep.session_ids.update(sid for _, sid in sessions)
    sweep.memory_ids.update(memory_ids)
    sweep.deleted += deleted


def _subject_rows(namespace: Namespace, user_id: str, written_by: datetime | None = None) -> dict[str, int]:
    """Rows about the person per model; with `written_by`, only those created by then (where a model says when)."""
    found: dict[str, int] = {}
    for model in subject_models():
        qs = model._default_manager.filter(namespace=namespace, user_id=user_id)
        if written_by is not None and "created_at" in {f.name for f in model._meta.get_fields()}:
            qs = qs.filter(created_at__lte=written_by)
        if n := qs.count():
            found[model._meta.label] = n
    return found


def _remaining_rows(namespace: Namespace, user_id: str, sweep: Sweep, cutoff: datetime) -> dict[str, int]:
    """What the erasure should have removed and did not: rows written before its last sweep began.

    Rows written later are the person's new data (an app still writing while the erasure
    runs); the receipt counts them, and a later erasure removes them.
    """
    remaining = _subject_rows(namespace, user_id, cutoff)
    children = {
        "conversations.Message": Message.objects.filter(session_id__in=sweep.session_pks),
        "memories.MemoryRevision": MemoryRevision.objects.filter(memory_id__in=sweep.memory_ids),
        "memories.MemoryEvidence": MemoryEvidence.objects.filter(memory_id__in=sweep.memory_ids),
        "memories.Pin": Pin.objects.filter(memory_id__in=sweep.memory_ids),
    }
    for label, qs in children.items():
        n = qs.count()
        if n:
            remaining[label] = n
    return remaining


def subject_redis_keys(namespace_id: int, session_ids: set[str], session_pks: set[int]) -> list[str]:
    """The Redis keys a person's sessions may hold: working memory and pending extraction."""
    return [f"wm:{namespace_id}:{sid}" for sid in sorted(session_ids)] + [
        f"extract:{namespace_id}:{pk}" for pk in sorted(session_pks)
    ]


def _clear_redis(namespace_id: int, sweep: Sweep) -> Counter[str]:
    from memoryadmin.conversations.working_memory import working_memory_delete_for_sessions
    from memoryadmin.extraction.services import extraction_cancel_for_sessions

    counts: Counter[str] = Counter()
    counts["working_memory_keys"] += working_memory_delete_for_sessions(namespace_id, sorted(sweep.session_ids))
    counts["extraction_schedules"] += extraction_cancel_for_sessions(namespace_id, sorted(sweep.session_pks)) or 0
    return counts


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
        remaining: dict[str, int] = {}
        leftover_keys: list[str] = []
        redis_counts: Counter[str] = Counter()
        for _ in range(MAX_SWEEPS):
            cutoff = timezone.now()
            try:
                _sweep(namespace, user_id, sweep)
            except IntegrityError:
                # A writer added a row that points at what we were deleting (an extraction
                # run of a session created mid-sweep): the sweep rolled back; sweep again.
                remaining = {"concurrent writes": 1}
                continue
            redis_counts += _clear_redis(namespace.pk, sweep)
            remaining = _remaining_rows(namespace, user_id, sweep, cutoff)
            keys = subject_redis_keys(namespace.pk, sweep.session_ids, sweep.session_pks)
            leftover_keys = _remaining_keys(keys)
            if not remaining and not leftover_keys:
                break
        if remaining or leftover_keys:
            raise RuntimeError(
                f"rows written before the erasure are still there: {sum(remaining.values())} rows, "
                f"{len(leftover_keys)} keys"
            )
        arrived = sum(_subject_rows(namespace, user_id).values())
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
    stores = [*STORE_NAMES.values(), "working_memory_keys", "extraction_schedules"]
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
            "tables_scanned": [m._meta.db_table for m in subject_models()]
            + ["conversations_message", "memories_memoryrevision", "memories_memoryevidence", "memories_pin"],
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
        event = audit_record(
            actor=Actor.system("erasure"),
            action="erasure.complete",
            namespace_id=namespace.pk,
            target_type="erasure",
            target_id=str(erasure.pk),
            user_id=erasure.user_id,
            data={"deleted": body["deleted"], "receipt_sha256": digest},
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


def receipt_verify(receipt: dict[str, Any]) -> bool:
    """A receipt is genuine when its body hashes to its digest and the audit event it names carries that digest."""
    from memoryadmin.audit.models import AuditEvent
    from memoryadmin.audit.services import digest_of

    body = {k: v for k, v in receipt.items() if k not in ("receipt_sha256", "audit_event")}
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
