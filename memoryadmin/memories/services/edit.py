"""Changing a memory's content: every change appends a revision."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import transaction
from django.utils import timezone

from memoryadmin.audit.services import Actor, audit_about
from memoryadmin.core.errors import Conflict, PreconditionFailed, found
from memoryadmin.core.fingerprints import text_fingerprint, text_fingerprints
from memoryadmin.core.locks import lock_texts
from memoryadmin.memories.embeddings import embed_or_none
from memoryadmin.memories.models import (
    Memory,
)
from memoryadmin.memories.services.cleaning import clean_labels, clean_memory_type, clean_metadata, clean_text
from memoryadmin.memories.services.planning import forgotten_label, is_tombstoned, revision_of
from memoryadmin.memories.vectors import Owner, vectors_store


def locked_memory(memory: Memory) -> Memory:
    return found(Memory.objects.select_for_update().filter(pk=memory.pk), "memory not found")


def check_revision(memory: Memory, expected_revision: int | None) -> None:
    """Refuse a change made from a revision that is no longer the memory's (None: no expectation)."""
    if expected_revision is not None and memory.revision != expected_revision:
        raise PreconditionFailed(
            f"the memory is at revision {memory.revision}, not {expected_revision}: someone changed it meanwhile",
            details={"revision": memory.revision},
        )


def memory_update(
    *,
    memory: Memory,
    actor: Actor,
    text: str | None = None,
    memory_type: str | None = None,
    topics: Iterable[str] | None = None,
    entities: Iterable[str] | None = None,
    metadata: dict[str, Any] | None = None,
    reason: str = "",
    expected_revision: int | None = None,
) -> Memory:
    """Change a memory's content; every change appends a revision (and a new text, a new vector).

    With `expected_revision`, the change is made only if the memory is still at that
    revision (checked under the row lock), else PreconditionFailed: an editor who saw
    revision 3 never silently overwrites someone else's revision 4.
    """
    # Before the transaction: an embeddings endpoint is never waited for while the row is locked.
    embedded = embed_or_none([clean_text(text)]) if text is not None else None
    with transaction.atomic():
        if text is not None:
            text = clean_text(text)
        # The new text is locked as a create of it would be, before the row (the locks' order).
        lock_texts(memory.namespace_id, [] if text is None else [(memory.user_id, f) for f in text_fingerprints(text)])
        memory = locked_memory(memory)
        check_revision(memory, expected_revision)
        changed: list[str] = []
        if text is not None and text != memory.text:
            fingerprint = text_fingerprint(text)
            if fingerprint != memory.fingerprint:
                if is_tombstoned(memory.namespace_id, memory.user_id, fingerprint, text):
                    raise Conflict("a tombstone forbids this text for this user", code="tombstoned")
                clash = (
                    Memory.objects.filter(
                        namespace_id=memory.namespace_id, user_id=memory.user_id, fingerprint=fingerprint
                    )
                    .exclude(pk=memory.pk)
                    .values_list("id", flat=True)
                    .first()
                )
                if clash is not None:
                    raise Conflict(
                        "another memory of this user already has this text",
                        code="duplicate",
                        details={"memory_id": str(clash)},
                    )
            memory.text, memory.fingerprint = text, fingerprint
            changed.append("text")
            if embedded is not None:
                vectors_store([Owner(memory.pk, memory.namespace_id, memory.user_id)], *embedded)
        if memory_type is not None and clean_memory_type(memory_type) != memory.memory_type:
            memory.memory_type = memory_type
            changed.append("memory_type")
        if topics is not None and (cleaned := clean_labels(topics, "topics")) != memory.topics:
            memory.topics = cleaned
            changed.append("topics")
        if entities is not None and (cleaned := clean_labels(entities, "entities")) != memory.entities:
            memory.entities = cleaned
            changed.append("entities")
        if metadata is not None and clean_metadata(metadata) != memory.metadata:
            memory.metadata = metadata
            changed.append("metadata")
        labels = {name: getattr(memory, name) for name in ("topics", "entities", "metadata") if name in changed}
        if labels and (field := forgotten_label(memory.namespace_id, memory.user_id, labels)) is not None:
            raise Conflict(
                f"a tombstone forbids a text of {field} for this user", code="tombstoned", details={"field": field}
            )
        if not changed:
            return memory
        now = timezone.now()
        memory.revision += 1
        memory.updated_at = now
        memory.save(update_fields=[*changed, "fingerprint", "revision", "updated_at"])
        revision = revision_of(memory, memory, revision=memory.revision, actor=actor, reason=reason, created_at=now)
        revision.save(force_insert=True)
        audit_about(
            memory,
            actor=actor,
            action="memory.update",
            reason=reason,
            data={"fields": changed, "revision": memory.revision},
        )
        # Read back under the row lock: the memory as this change left it, not as a later editor's
        # change, committed a moment after this one, makes it.
        memory.refresh_from_db()
    return memory
