"""Thin Celery wrappers around the memories services."""

from __future__ import annotations

from celery import shared_task

from memoryadmin.memories.services.embedding import memories_embed_all


@shared_task(name="memoryadmin.memories.tasks.embed_memories_task", acks_late=True)
def embed_memories_task(prune: bool = False) -> str:
    return memories_embed_all(prune=prune).status
