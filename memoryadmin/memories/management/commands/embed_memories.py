"""Give every memory a vector by the configured embedder (after changing EMBEDDER or its model)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from memoryadmin.audit.services import Actor
from memoryadmin.memories.services.embedding import BATCH, embedding_job_queue, memories_embed_all


class Command(BaseCommand):
    help = (
        "Embed every memory that has no vector by the configured model, batch by batch, while search keeps "
        "working; --prune then deletes other models' vectors; --queue hands the job to a Celery worker."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--prune", action="store_true", help="delete vectors of other models afterwards")
        parser.add_argument("--queue", action="store_true", help="run it on a worker instead of here")
        parser.add_argument("--batch", type=int, default=BATCH)

    def handle(self, *args: Any, **options: Any) -> None:
        if options["queue"]:
            job = embedding_job_queue(actor=Actor.system("embed_memories"), prune=options["prune"])
            self.stdout.write(f"queued: re-embedding with {job.model}")
            return
        if options["batch"] < 1:
            raise CommandError("--batch must be at least 1")

        def report(job: Any) -> None:
            self.stdout.write(f"{job.done} of {job.total} embedded with {job.model}")

        job = memories_embed_all(prune=options["prune"], batch=options["batch"], progress=report)
        if job.status != "succeeded":
            raise CommandError(f"re-embedding failed after {job.done} of {job.total}: {job.error}")
        self.stdout.write(
            f"done: {job.done} memories embedded with {job.model}"
            + (f", {job.pruned} vectors of other models deleted" if options["prune"] else "")
            + (", HNSW index ready" if job.indexed else "")
        )
