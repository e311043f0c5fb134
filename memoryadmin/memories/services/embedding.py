"""Re-embedding: give every memory a vector by the configured model, batch by batch, while search goes on.

A memory without a vector by the current model is found by full text (and its words) until
the job reaches it; vectors of other models stay until `prune` removes them, so a model can be
prepared before the servers switch to it. Progress is kept in Redis for the console.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass

from django.db import transaction
from django.utils import timezone

from memoryadmin.audit.services import Actor, audit_record
from memoryadmin.core.queueing import queued
from memoryadmin.core.redis_client import get_redis
from memoryadmin.core.timestamps import rfc3339
from memoryadmin.memories.embeddings import EmbeddingError, get_embedder
from memoryadmin.memories.vectors import (
    Owner,
    hnsw_index_ensure,
    memories_count_without_vector,
    memories_unchanged,
    memories_without_vector,
    vectors_prune,
    vectors_store,
)

# Queued by name: the tasks module imports this one.
EMBED_MEMORIES_TASK = "memoryadmin.memories.tasks.embed_memories_task"

logger = logging.getLogger(__name__)

JOB_KEY = "embeddings:job"
JOB_TTL_SECONDS = 7 * 24 * 3600
BATCH = 500


@dataclass
class EmbeddingJob:
    model: str
    status: str  # queued | running | succeeded | failed
    total: int = 0
    done: int = 0
    pruned: int = 0
    indexed: bool = False
    error: str = ""
    queued_at: str = ""
    started_at: str = ""
    finished_at: str = ""

    def save(self) -> None:
        get_redis().set(JOB_KEY, json.dumps(asdict(self)), ex=JOB_TTL_SECONDS)


def embedding_job() -> EmbeddingJob | None:
    """The last re-embedding job, as its worker last reported it."""
    raw = get_redis().get(JOB_KEY)
    return EmbeddingJob(**json.loads(raw)) if raw else None


def memories_embed_all(
    *, prune: bool = False, batch: int = BATCH, progress: Callable[[EmbeddingJob], None] | None = None
) -> EmbeddingJob:
    """Embed every memory that has no vector by the configured model; with `prune`, drop other models' vectors.

    Runs in id order, one batch per transaction, so it can be stopped and started again and
    never holds locks for long. Memories written meanwhile get their vectors from the write path.
    """
    embedder = get_embedder()
    job = EmbeddingJob(model=embedder.model, status="running", started_at=rfc3339(timezone.now()))
    job.total = memories_count_without_vector(embedder.model)
    job.save()
    after: uuid.UUID | None = None
    try:
        while True:
            rows = memories_without_vector(embedder.model, after=after, limit=batch)
            if not rows:
                break
            vectors = embedder.embed([text for _, _, _, text in rows])
            with transaction.atomic():
                # Deleted or edited while the batch was embedded: nothing to store (an edit stored its own).
                current = memories_unchanged({pk: text for pk, _, _, text in rows})
                kept = [i for i, row in enumerate(rows) if row[0] in current]
                vectors_store([Owner(*rows[i][:3]) for i in kept], embedder, vectors[kept])
            after = rows[-1][0]
            job.done += len(rows)
            job.save()
            if progress:
                progress(job)
        job.indexed = hnsw_index_ensure(embedder.model, embedder.dimension)
        if prune:
            job.pruned = vectors_prune(embedder.model)
        job.status = "succeeded"
    except EmbeddingError as exc:
        job.status, job.error = "failed", str(exc)[:500]
        logger.warning("re-embedding stopped: %s", exc)
    except Exception as exc:
        # Said in the job before it goes up (the console would show it running for ever).
        job.status, job.error = "failed", f"internal error: {type(exc).__name__}"
        job.finished_at = rfc3339(timezone.now())
        job.save()
        raise
    job.finished_at = rfc3339(timezone.now())
    job.save()
    return job


def embedding_job_queue(*, actor: Actor, prune: bool = False) -> EmbeddingJob:
    """Record the request and start the worker once the transaction commits."""
    job = EmbeddingJob(model=get_embedder().model, status="queued", queued_at=rfc3339(timezone.now()))
    with transaction.atomic():
        audit_record(
            actor=actor, action="embeddings.rebuild", namespace_id=None, target_type="embeddings", data={"prune": prune}
        )
        transaction.on_commit(lambda: (job.save(), queued(EMBED_MEMORIES_TASK).delay(prune)))
    return job
