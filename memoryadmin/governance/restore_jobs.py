"""Restores uploaded through the console: stored, dry-run by a worker, then applied on request.

The upload is kept in SnapshotChunk rows (any worker can read it, whatever
machine it runs on) and deleted once applied or discarded. Progress lives in
Redis because the restore's own transaction hides its writes until the end.
"""

from __future__ import annotations

import logging
import tempfile
import uuid
from collections.abc import Iterable
from typing import BinaryIO

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from memoryadmin.audit.services import Actor, audit_about
from memoryadmin.core.errors import Conflict, InvalidInput, ServiceError
from memoryadmin.core.queueing import queued
from memoryadmin.core.redis_client import get_redis
from memoryadmin.core.streaming import rows_streamed
from memoryadmin.governance.models import JobStatus, SnapshotChunk, SnapshotRestore
from memoryadmin.governance.snapshots import snapshot_restore
from memoryadmin.tenancy.models import Namespace

# Queued by name: the tasks module imports this one.
SNAPSHOT_RESTORE_TASK = "memoryadmin.governance.tasks.snapshot_restore_task"

logger = logging.getLogger(__name__)

CHUNK_BYTES = 1024 * 1024
PROGRESS_TTL_SECONDS = 24 * 3600
SPOOL_BYTES = 8 * 1024 * 1024


def progress_key(restore_id: uuid.UUID | str) -> str:
    return f"restore:{restore_id}:done"


def restore_progress(job: SnapshotRestore) -> int:
    """Records handled so far: live from Redis while running, from the row once finished."""
    if job.status == JobStatus.RUNNING:
        value = get_redis().get(progress_key(job.pk))
        return int(value) if value else 0
    return job.records_done


def restore_job_create(
    *, namespace: Namespace, chunks: Iterable[bytes], filename: str, actor: Actor
) -> SnapshotRestore:
    """Store an upload and queue its dry run."""
    limit = settings.MAX_SNAPSHOT_UPLOAD_BYTES
    with transaction.atomic():
        job = SnapshotRestore.objects.create(
            namespace=namespace, requested_by=str(actor), filename=filename[:255], dry_run=True
        )
        size = 0
        index = 0
        buffer = bytearray()
        for piece in chunks:
            size += len(piece)
            if size > limit:
                raise InvalidInput(f"the snapshot exceeds {limit} bytes", details={"limit_bytes": limit})
            buffer += piece
            while len(buffer) >= CHUNK_BYTES:
                SnapshotChunk.objects.create(restore=job, index=index, data=bytes(buffer[:CHUNK_BYTES]))
                del buffer[:CHUNK_BYTES]
                index += 1
        if buffer:
            SnapshotChunk.objects.create(restore=job, index=index, data=bytes(buffer))
        if size == 0:
            raise InvalidInput("the uploaded file is empty", details={"field": "file"})
        job.size_bytes = size
        job.save(update_fields=["size_bytes"])
        job_id = str(job.pk)
        transaction.on_commit(lambda: queued(SNAPSHOT_RESTORE_TASK).delay(job_id))
    return job


def restore_job_apply(*, job: SnapshotRestore, actor: Actor) -> SnapshotRestore:
    """Queue the real restore of a job whose dry run succeeded."""
    with transaction.atomic():
        updated = SnapshotRestore.objects.filter(pk=job.pk, status=JobStatus.SUCCEEDED, dry_run=True).update(
            dry_run=False, status=JobStatus.PENDING, records_done=0, error="", requested_by=str(actor)
        )
        if not updated:
            raise Conflict("only a restore whose dry run succeeded can be applied", code="not_ready")
        job_id = str(job.pk)
        transaction.on_commit(lambda: queued(SNAPSHOT_RESTORE_TASK).delay(job_id))
    job.refresh_from_db()
    return job


def restore_job_discard(*, job: SnapshotRestore, actor: Actor) -> None:
    with transaction.atomic():
        SnapshotChunk.objects.filter(restore=job).delete()
        SnapshotRestore.objects.filter(pk=job.pk).exclude(status=JobStatus.RUNNING).delete()
        audit_about(job, actor=actor, action="snapshot.restore_discard")


def restore_uploads_discard(*, namespace_id: int, user_id: str) -> int:
    """An erasure in this namespace: uploads not yet applied may hold the person's data, so they go.

    Their chunks are deleted and their restores marked failed (a running one has read its
    upload already, and its apply still meets the erasure's ledger); every restore's samples
    of the namespace are cleared, since their labels may name the person's sessions, and a
    file name holding the person's id is blanked (a one-person export is often named after
    them). Returns how many uploads were discarded.
    """
    jobs = SnapshotRestore.objects.filter(namespace_id=namespace_id)
    with transaction.atomic():
        holding = list(jobs.filter(chunks__isnull=False).distinct().values_list("pk", flat=True))
        SnapshotChunk.objects.filter(restore__namespace_id=namespace_id).delete()
        jobs.filter(pk__in=holding).exclude(status=JobStatus.RUNNING).update(
            status=JobStatus.FAILED, error="The upload was discarded by an erasure in this namespace."
        )
        jobs.exclude(samples={}).update(samples={})
        jobs.filter(filename__contains=user_id).update(filename="")
    return len(holding)


def _spool(job: SnapshotRestore) -> BinaryIO:
    spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES)  # noqa: SIM115 - closed by the caller
    chunks = SnapshotChunk.objects.filter(restore=job).order_by("index").values_list("index", "data", named=True)
    for chunk in rows_streamed(chunks, 4):
        spool.write(bytes(chunk.data))
    spool.seek(0)
    return spool  # type: ignore[return-value]


def _actor_of(recorded: str) -> Actor:
    """The actor a job was requested by, from its recorded "type:id" form."""
    kind, _, name = recorded.partition(":")
    return Actor(kind, name) if name else Actor.system("restore")


def restore_job_execute(*, restore_id: uuid.UUID | str) -> SnapshotRestore | None:
    """The worker's side: run the job's dry run or real restore, record counts and samples."""
    claimed = SnapshotRestore.objects.filter(pk=restore_id, status=JobStatus.PENDING).update(
        status=JobStatus.RUNNING, started_at=timezone.now(), records_done=0
    )
    job = SnapshotRestore.objects.select_related("namespace").filter(pk=restore_id).first()
    if job is None or not claimed:
        return job
    redis = get_redis()
    key = progress_key(job.pk)
    redis.set(key, 0, ex=PROGRESS_TTL_SECONDS)

    def progress(done: int) -> None:
        redis.set(key, done, ex=PROGRESS_TTL_SECONDS)

    try:
        with _spool(job) as source:
            result = snapshot_restore(
                namespace=job.namespace,
                source=source,
                actor=_actor_of(job.requested_by),
                dry_run=job.dry_run,
                progress=progress,
                reason="console restore",
            )
    except ServiceError as exc:
        SnapshotRestore.objects.filter(pk=job.pk).update(
            status=JobStatus.FAILED, error=exc.message[:2000], finished_at=timezone.now()
        )
    except Exception as exc:
        logger.exception("restore %s failed", job.pk)
        SnapshotRestore.objects.filter(pk=job.pk).update(
            status=JobStatus.FAILED, error=f"unexpected error: {exc}"[:2000], finished_at=timezone.now()
        )
    else:
        now = timezone.now()
        with transaction.atomic():
            SnapshotRestore.objects.filter(pk=job.pk).update(
                status=JobStatus.SUCCEEDED,
                records_total=result.records,
                records_done=result.records,
                counts={"totals": result.counts, "by_type": result.by_type},
                samples=result.samples,
                finished_at=now,
                applied_at=None if job.dry_run else now,
            )
            if not job.dry_run:
                SnapshotChunk.objects.filter(restore=job).delete()
    redis.delete(key)
    job.refresh_from_db()
    return job
