"""A memory's life after creation: pin, approve, reject, forget (with tombstones), and bulk actions."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from memoryadmin.audit.services import Actor, AuditEntry, audit_about, audit_deleted, audit_last, audit_record_many
from memoryadmin.conversations.models import Session
from memoryadmin.conversations.services import session_delete
from memoryadmin.core.errors import Conflict, InvalidInput, NotFound, ServiceError
from memoryadmin.core.locks import lock_texts
from memoryadmin.memories.models import (
    Memory,
    MemoryRevision,
    MemoryStatus,
    Pin,
    Tombstone,
    TombstoneReason,
)
from memoryadmin.memories.services.edit import check_revision, locked_memory, memory_update
from memoryadmin.memories.services.supersession import Statement, memories_apply_statements
from memoryadmin.tenancy.models import Namespace


def is_pinned(memory: Memory) -> bool:
    return Pin.objects.filter(memory_id=memory.pk).exists()


def _texts_of(memory: Memory) -> set[str]:
    """The fingerprints of every text the memory has had: its current one and each revision's."""
    revisions = MemoryRevision.objects.filter(memory_id=memory.pk).exclude(fingerprint="")
    return {memory.fingerprint, *revisions.values_list("fingerprint", flat=True)}


def memory_forget(
    *,
    memory: Memory,
    actor: Actor,
    reason: str = "",
    force: bool = False,
    tombstone_reason: str = TombstoneReason.FORGOTTEN,
    expected_revision: int | None = None,
) -> Tombstone:
    """Delete a memory and leave a tombstone so the same text never comes back for that user.

    With `expected_revision`, only if the memory is still at that revision (see `memory_update`).
    """
    with transaction.atomic():
        # Every text the memory ever had is locked before the row, so no create of one of them
        # can slip between the tombstones and the delete.
        texts = _texts_of(memory)
        lock_texts(memory.namespace_id, [(memory.user_id, fp) for fp in texts])
        memory = locked_memory(memory)
        check_revision(memory, expected_revision)
        if missed := _texts_of(memory) - texts:
            # Edited meanwhile: its new text is locked too (the namespace lock is held already).
            lock_texts(memory.namespace_id, [(memory.user_id, fp) for fp in missed], with_namespace=False)
            texts |= missed
        if not force and is_pinned(memory):
            raise Conflict("the memory is pinned; forget it with force", code="pinned")
        # Only an operator's rejection keeps the text (so reviewers see what was refused).
        keep_text = tombstone_reason == TombstoneReason.REJECTED
        tombstone, _ = Tombstone.objects.get_or_create(
            namespace_id=memory.namespace_id,
            user_id=memory.user_id,
            fingerprint=memory.fingerprint,
            defaults={
                "reason": tombstone_reason,
                "text": memory.text if keep_text else "",
                "memory_type": memory.memory_type,
                "actor": str(actor),
            },
        )
        # Every earlier text of the memory is forgotten with it, unless another memory of the
        # person holds that text now (that memory was not asked to go; forgetting it later will).
        earlier = texts - {memory.fingerprint}
        earlier -= set(
            Memory.objects.filter(namespace_id=memory.namespace_id, user_id=memory.user_id, fingerprint__in=earlier)
            .exclude(pk=memory.pk)
            .values_list("fingerprint", flat=True)
        )
        Tombstone.objects.bulk_create(
            [
                Tombstone(
                    namespace_id=memory.namespace_id,
                    user_id=memory.user_id,
                    fingerprint=fingerprint,
                    reason=tombstone_reason,
                    memory_type=memory.memory_type,
                    actor=str(actor),
                )
                for fingerprint in sorted(earlier)
            ],
            ignore_conflicts=True,
        )
        forgotten = AuditEntry.about(
            memory,
            actor=actor,
            action="memory.reject" if tombstone_reason == TombstoneReason.REJECTED else "memory.forget",
            reason=reason,
            data={"tombstone_reason": tombstone_reason, "forced": force},
        )
        memory.delete()
        audit_record_many([forgotten])
    return tombstone


def memory_pin(*, memory: Memory, actor: Actor, reason: str = "") -> Memory:
    with transaction.atomic():
        memory = locked_memory(memory)
        _, created = Pin.objects.get_or_create(memory=memory, defaults={"pinned_by": str(actor), "reason": reason})
        if created:
            audit_about(memory, actor=actor, action="memory.pin", reason=reason)
    return memory


def memory_unpin(*, memory: Memory, actor: Actor, reason: str = "") -> Memory:
    with transaction.atomic():
        memory = locked_memory(memory)
        audit_deleted(Pin.objects.filter(memory=memory), memory, actor=actor, action="memory.unpin", reason=reason)
    return memory


def memory_approve(*, memory: Memory, actor: Actor, reason: str = "") -> Memory:
    with transaction.atomic():
        memory = locked_memory(memory)
        if memory.status != MemoryStatus.CANDIDATE:
            raise Conflict("only a candidate can be approved", code="not_candidate")
        memory.status = MemoryStatus.ACTIVE
        memory.updated_at = timezone.now()
        memory.save(update_fields=["status", "updated_at"])
        audit_about(memory, actor=actor, action="memory.approve", reason=reason)
        if memory.attribute:
            # Approved, it takes part in its attribute's history: it may supersede, or be superseded.
            memories_apply_statements(
                namespace=memory.namespace,
                actor=actor,
                statements=[Statement(memory_id=memory.pk, user_id=memory.user_id, stated_at=memory.stated_at)],
            )
            memory.refresh_from_db(fields=["status", "superseded_by", "superseded_at", "updated_at"])
    return memory


def memory_update_and_approve(
    *, memory: Memory, actor: Actor, reason: str = "", expected_revision: int | None = None, **changes: Any
) -> Memory:
    """Save an edit of a memory and, when it is a candidate, approve it: both or neither (the review
    queue's "edit and approve"). `changes` are `memory_update`'s."""
    with transaction.atomic():
        was_candidate = memory.status == MemoryStatus.CANDIDATE
        memory = memory_update(
            memory=memory, actor=actor, reason=reason, expected_revision=expected_revision, **changes
        )
        if was_candidate:
            memory = memory_approve(memory=memory, actor=actor, reason=reason)
    return memory


def memory_reject(*, memory: Memory, actor: Actor, reason: str = "") -> Tombstone:
    if memory.status != MemoryStatus.CANDIDATE:
        raise Conflict("only a candidate can be rejected", code="not_candidate")
    return memory_forget(
        memory=memory, actor=actor, reason=reason, force=True, tombstone_reason=TombstoneReason.REJECTED
    )


def tombstone_lift(*, tombstone: Tombstone, actor: Actor, reason: str) -> None:
    """Remove a tombstone (an admin decision) so the text may be stored again."""
    if not reason.strip():
        raise InvalidInput("lifting a tombstone needs a reason", details={"field": "reason"})
    with transaction.atomic():
        data = {"tombstone_reason": tombstone.reason}
        lifted = Tombstone.objects.filter(pk=tombstone.pk)
        audit_deleted(lifted, tombstone, actor=actor, action="tombstone.lift", reason=reason, data=data)


@dataclass
class SessionForgetResult:
    forgotten: int
    kept_pinned: int


def session_memories_forget(
    *, namespace: Namespace, session_id: str, actor: Actor, reason: str = "", force: bool = False
) -> SessionForgetResult:
    """Forget the memories taken from one session (tombstones included) before the session goes.

    A memory belongs to the session when it names it or has evidence among its
    messages. Pinned memories stay unless `force`.
    """
    ids = list(
        Memory.objects.filter(namespace=namespace)
        .filter(
            Q(session_id=session_id)
            | Q(evidence__message__session__namespace=namespace, evidence__message__session__session_id=session_id)
        )
        .values_list("id", flat=True)
        .distinct()
    )
    forgotten = kept = 0
    with transaction.atomic(), audit_last():
        for memory in Memory.objects.filter(pk__in=ids).order_by("id").defer("search_vector"):
            try:
                memory_forget(memory=memory, actor=actor, reason=reason, force=force)
            except Conflict:
                kept += 1
            else:
                forgotten += 1
    return SessionForgetResult(forgotten, kept)


def session_delete_with_memories(
    *, namespace: Namespace, session: Session, actor: Actor, reason: str = "", force: bool = False
) -> SessionForgetResult:
    """Forget the memories taken from a session, then delete the session, in one transaction.

    `session_delete` clears the working memory first: if Redis is down, nothing durable changed. Every
    row is locked before the audit chain (`audit_last`), the order of the writers it may race.
    """
    with transaction.atomic(), audit_last():
        result = session_memories_forget(
            namespace=namespace, session_id=session.session_id, actor=actor, reason=reason, force=force
        )
        session_delete(session=session, actor=actor, reason=reason)
    return result


BULK_ACTIONS = ("pin", "unpin", "forget", "approve", "reject")


MAX_BULK_IDS = 1000


@dataclass
class BulkResult:
    done: list[str] = field(default_factory=list)
    failed: list[tuple[str, ServiceError]] = field(default_factory=list)


def memories_bulk_apply(
    *, namespace: Namespace, action: str, ids: Sequence[str], actor: Actor, reason: str = ""
) -> BulkResult:
    """Apply one action to many memories; each id succeeds or fails on its own (its own transaction)."""
    if action not in BULK_ACTIONS:
        raise InvalidInput(f"action must be one of {', '.join(BULK_ACTIONS)}", details={"field": "action"})
    if len(ids) > MAX_BULK_IDS:
        raise InvalidInput(f"at most {MAX_BULK_IDS} ids at once", details={"field": "ids"})
    wanted: dict[str, uuid.UUID | None] = {}
    for raw in ids:
        try:
            wanted[raw] = uuid.UUID(str(raw))
        except ValueError:
            wanted[raw] = None
    found = {
        m.pk: m
        for m in Memory.objects.filter(namespace=namespace, pk__in=[pk for pk in wanted.values() if pk]).defer(
            "search_vector"
        )
    }
    apply = {
        "pin": lambda m: memory_pin(memory=m, actor=actor, reason=reason),
        "unpin": lambda m: memory_unpin(memory=m, actor=actor, reason=reason),
        "forget": lambda m: memory_forget(memory=m, actor=actor, reason=reason),
        "approve": lambda m: memory_approve(memory=m, actor=actor, reason=reason),
        "reject": lambda m: memory_reject(memory=m, actor=actor, reason=reason),
    }[action]
    result = BulkResult()
    for raw, pk in wanted.items():
        if pk is None:
            # Told apart from a missing memory: this one could never name a memory at all.
            result.failed.append((raw, InvalidInput("not a memory id (a UUID)", code="invalid_id")))
            continue
        memory = found.get(pk)
        if memory is None:
            result.failed.append((raw, NotFound("memory not found")))
            continue
        try:
            apply(memory)
        except ServiceError as exc:
            result.failed.append((raw, exc))
        else:
            result.done.append(raw)
    return result
