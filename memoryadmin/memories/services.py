"""Every write to long-term memory. Each function is atomic and audited.

`memory_create` is the one write path all sources share (API, extraction,
operators, restore): normalise -> fingerprint -> tombstone -> exact duplicate
-> near duplicate (when asked) -> insert -> revision 1 -> evidence -> audit.
"""

from __future__ import annotations

import enum
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import Q
from django.utils import timezone

from memoryadmin.audit.services import Actor, audit_record
from memoryadmin.errors import Conflict, InvalidInput, NotFound, ServiceError
from memoryadmin.memories.models import (
    Memory,
    MemoryEvidence,
    MemoryRevision,
    MemorySource,
    MemoryStatus,
    MemoryType,
    Pin,
    Tombstone,
    TombstoneReason,
)
from memoryadmin.tenancy.fingerprints import text_fingerprint
from memoryadmin.tenancy.models import Namespace

MAX_LIST_ITEMS = 50
MAX_LIST_ITEM_CHARS = 200


class Outcome(enum.StrEnum):
    CREATED = "created"
    DUPLICATE = "duplicate"
    MERGED = "merged"
    SUPPRESSED = "suppressed"


@dataclass
class WriteResult:
    outcome: Outcome
    memory: Memory | None
    merged_with: list[uuid.UUID] = field(default_factory=list)

    @property
    def created(self) -> bool:
        return self.outcome is Outcome.CREATED


def clean_text(text: str) -> str:
    if not isinstance(text, str):
        raise InvalidInput("text must be a string", details={"field": "text"})
    if "\x00" in text:
        raise InvalidInput("text must not contain NUL characters", details={"field": "text"})
    text = text.strip()
    if not text:
        raise InvalidInput("text must not be empty", details={"field": "text"})
    limit = settings.MAX_MEMORY_TEXT_BYTES
    if len(text.encode()) > limit:
        raise InvalidInput(f"text exceeds {limit} bytes", details={"field": "text", "limit_bytes": limit})
    return text


def clean_labels(values: Iterable[str] | None, name: str) -> list[str]:
    """Topics and entities: trimmed, de-duplicated in order, bounded."""
    if values is None:
        return []
    cleaned: list[str] = []
    for value in values:
        if not isinstance(value, str) or "\x00" in value:
            raise InvalidInput(f"{name} must be strings without NUL characters", details={"field": name})
        value = value.strip()
        if not value:
            continue
        if len(value) > MAX_LIST_ITEM_CHARS:
            raise InvalidInput(f"each of {name} is at most {MAX_LIST_ITEM_CHARS} characters", details={"field": name})
        if value not in cleaned:
            cleaned.append(value)
    if len(cleaned) > MAX_LIST_ITEMS:
        raise InvalidInput(f"at most {MAX_LIST_ITEMS} {name}", details={"field": name})
    return cleaned


def clean_memory_type(memory_type: str) -> str:
    if memory_type not in MemoryType.values:
        raise InvalidInput(
            f"memory_type must be one of {', '.join(MemoryType.values)}", details={"field": "memory_type"}
        )
    return memory_type


def is_tombstoned(namespace_id: int, user_id: str, fingerprint: str) -> bool:
    return Tombstone.objects.filter(namespace_id=namespace_id, user_id=user_id, fingerprint=fingerprint).exists()


def _link_evidence(memory: Memory, message_ids: Sequence[int]) -> int:
    if not message_ids:
        return 0
    created = MemoryEvidence.objects.bulk_create(
        [MemoryEvidence(memory=memory, message_id=mid) for mid in message_ids],
        ignore_conflicts=True,
    )
    return len(created)


# pg_trgm's default `similarity_threshold`, below which the `%` operator matches.
TRGM_DEFAULT_THRESHOLD = 0.3


def find_near_duplicates(
    *, namespace_id: int, user_id: str, text: str, threshold: float, exclude: Sequence[uuid.UUID] = ()
) -> list[tuple[uuid.UUID, float]]:
    """Memories of the same user whose trigram similarity to `text` reaches `threshold`, best first.

    For a threshold at or above pg_trgm's default, `text % q` is added: it selects a
    superset of the answer and lets PostgreSQL use the trigram index, so a user with
    tens of thousands of memories costs an index probe instead of a similarity()
    call per memory. The exact similarity test still decides.
    """
    prefilter = "AND text %% %s" if threshold >= TRGM_DEFAULT_THRESHOLD else ""
    params: list[object] = [text, namespace_id, user_id]
    if prefilter:
        params.append(text)
    params += [text, threshold, list(exclude)]
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            SELECT id, similarity(text, %s) AS sim
            FROM memories_memory
            WHERE namespace_id = %s AND user_id = %s {prefilter} AND similarity(text, %s) >= %s
              AND NOT (id = ANY(%s))
            ORDER BY sim DESC, id
            LIMIT 20
            """,
            params,
        )
        return [(row[0], float(row[1])) for row in cursor.fetchall()]


def _pairwise_similar(texts: Sequence[str], threshold: float) -> bool:
    if len(texts) < 2:
        return True
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT bool_and(similarity(a.t, b.t) >= %s)
            FROM unnest(%s::text[]) WITH ORDINALITY AS a(t, i)
            JOIN unnest(%s::text[]) WITH ORDINALITY AS b(t, j) ON a.i < b.j
            """,
            [threshold, list(texts), list(texts)],
        )
        return bool(cursor.fetchone()[0])


def near_duplicate_target(*, namespace_id: int, user_id: str, text: str, threshold: float) -> Memory | None:
    """The memory a new text may merge into, or None.

    A merge is allowed only when the group (the new text and its neighbours)
    is cohesive: every member is similar to every other, and no outside
    memory bridges the group (is similar to a member without being similar
    to all of them). A loose chain of similar texts stays separate.
    """
    neighbours = find_near_duplicates(namespace_id=namespace_id, user_id=user_id, text=text, threshold=threshold)
    if not neighbours:
        return None
    members = dict(Memory.objects.filter(pk__in=[n[0] for n in neighbours]).values_list("id", "text"))
    texts = [text, *members.values()]
    if not _pairwise_similar(texts, threshold):
        return None
    for member_text in members.values():
        bridges = find_near_duplicates(
            namespace_id=namespace_id, user_id=user_id, text=member_text, threshold=threshold, exclude=list(members)
        )
        if bridges:
            return None
    return Memory.objects.select_for_update().filter(pk=neighbours[0][0]).first()


def memory_create(
    *,
    namespace: Namespace,
    user_id: str,
    text: str,
    actor: Actor,
    source: str = MemorySource.API,
    session_id: str = "",
    agent_id: str = "",
    memory_type: str = MemoryType.SEMANTIC,
    topics: Iterable[str] | None = None,
    entities: Iterable[str] | None = None,
    metadata: dict[str, Any] | None = None,
    pinned: bool = False,
    pin_reason: str = "",
    evidence_message_ids: Sequence[int] = (),
    merge_near_duplicates: bool = False,
    status: str | None = None,
    memory_id: uuid.UUID | None = None,
    created_at: datetime | None = None,
    reason: str = "",
) -> WriteResult:
    text = clean_text(text)
    memory_type = clean_memory_type(memory_type)
    topics = clean_labels(topics, "topics")
    entities = clean_labels(entities, "entities")
    fingerprint = text_fingerprint(text)
    if status is None:
        needs_review = namespace.review_required and source == MemorySource.EXTRACTION
        status = MemoryStatus.CANDIDATE if needs_review else MemoryStatus.ACTIVE

    with transaction.atomic():
        if is_tombstoned(namespace.pk, user_id, fingerprint):
            return WriteResult(Outcome.SUPPRESSED, None)

        existing = Memory.objects.filter(namespace=namespace, user_id=user_id, fingerprint=fingerprint).first()
        if existing is not None:
            _link_evidence(existing, evidence_message_ids)
            return WriteResult(Outcome.DUPLICATE, existing)

        if merge_near_duplicates:
            target = near_duplicate_target(
                namespace_id=namespace.pk, user_id=user_id, text=text, threshold=settings.NEAR_DUPLICATE_THRESHOLD
            )
            if target is not None:
                _link_evidence(target, evidence_message_ids)
                merged_topics = clean_labels([*target.topics, *topics], "topics")
                merged_entities = clean_labels([*target.entities, *entities], "entities")
                if merged_topics != target.topics or merged_entities != target.entities:
                    Memory.objects.filter(pk=target.pk).update(
                        topics=merged_topics, entities=merged_entities, updated_at=timezone.now()
                    )
                    target.topics, target.entities = merged_topics, merged_entities
                return WriteResult(Outcome.MERGED, target, merged_with=[target.pk])

        now = timezone.now()
        memory = Memory(
            id=memory_id or uuid.uuid4(),
            namespace=namespace,
            user_id=user_id,
            session_id=session_id,
            agent_id=agent_id,
            text=text,
            memory_type=memory_type,
            status=status,
            topics=topics,
            entities=entities,
            metadata=metadata or {},
            source=source,
            fingerprint=fingerprint,
            created_at=created_at or now,
            updated_at=now,
        )
        try:
            with transaction.atomic():
                memory.save(force_insert=True)
        except IntegrityError:
            # A concurrent writer stored the same text first: that is a duplicate, not an error.
            existing = Memory.objects.filter(namespace=namespace, user_id=user_id, fingerprint=fingerprint).first()
            if existing is None:
                raise
            _link_evidence(existing, evidence_message_ids)
            return WriteResult(Outcome.DUPLICATE, existing)

        MemoryRevision.objects.create(
            memory=memory,
            revision=1,
            text=text,
            memory_type=memory_type,
            topics=topics,
            entities=entities,
            metadata=memory.metadata,
            actor=str(actor),
            reason=reason or f"created ({source})",
            created_at=now,
        )
        _link_evidence(memory, evidence_message_ids)
        if pinned:
            Pin.objects.create(memory=memory, pinned_by=str(actor), reason=pin_reason)
        audit_record(
            actor=actor,
            action="memory.create",
            namespace_id=namespace.pk,
            target_type="memory",
            target_id=str(memory.pk),
            user_id=user_id,
            reason=reason,
            data={"source": source, "status": status, "memory_type": memory_type, "pinned": pinned},
        )
    return WriteResult(Outcome.CREATED, memory)


def _locked(memory: Memory) -> Memory:
    locked = Memory.objects.select_for_update().filter(pk=memory.pk).first()
    if locked is None:
        raise NotFound("memory not found")
    return locked


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
) -> Memory:
    """Change a memory's content; every change appends a revision."""
    with transaction.atomic():
        memory = _locked(memory)
        changed: list[str] = []
        if text is not None:
            text = clean_text(text)
            if text != memory.text:
                fingerprint = text_fingerprint(text)
                if fingerprint != memory.fingerprint:
                    if is_tombstoned(memory.namespace_id, memory.user_id, fingerprint):
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
        if memory_type is not None and clean_memory_type(memory_type) != memory.memory_type:
            memory.memory_type = memory_type
            changed.append("memory_type")
        if topics is not None and (cleaned := clean_labels(topics, "topics")) != memory.topics:
            memory.topics = cleaned
            changed.append("topics")
        if entities is not None and (cleaned := clean_labels(entities, "entities")) != memory.entities:
            memory.entities = cleaned
            changed.append("entities")
        if metadata is not None and metadata != memory.metadata:
            memory.metadata = metadata
            changed.append("metadata")
        if not changed:
            return memory
        now = timezone.now()
        memory.revision += 1
        memory.updated_at = now
        memory.save(update_fields=[*changed, "fingerprint", "revision", "updated_at"])
        MemoryRevision.objects.create(
            memory=memory,
            revision=memory.revision,
            text=memory.text,
            memory_type=memory.memory_type,
            topics=memory.topics,
            entities=memory.entities,
            metadata=memory.metadata,
            actor=str(actor),
            reason=reason,
            created_at=now,
        )
        audit_record(
            actor=actor,
            action="memory.update",
            namespace_id=memory.namespace_id,
            target_type="memory",
            target_id=str(memory.pk),
            user_id=memory.user_id,
            reason=reason,
            data={"fields": changed, "revision": memory.revision},
        )
    memory.refresh_from_db()
    return memory


def is_pinned(memory: Memory) -> bool:
    return Pin.objects.filter(memory_id=memory.pk).exists()


def memory_forget(
    *,
    memory: Memory,
    actor: Actor,
    reason: str = "",
    force: bool = False,
    tombstone_reason: str = TombstoneReason.FORGOTTEN,
) -> Tombstone:
    """Delete a memory and leave a tombstone so the same text never comes back for that user."""
    with transaction.atomic():
        memory = _locked(memory)
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
        memory_id = memory.pk
        memory.delete()
        audit_record(
            actor=actor,
            action="memory.reject" if tombstone_reason == TombstoneReason.REJECTED else "memory.forget",
            namespace_id=tombstone.namespace_id,
            target_type="memory",
            target_id=str(memory_id),
            user_id=tombstone.user_id,
            reason=reason,
            data={"tombstone_reason": tombstone_reason, "forced": force},
        )
    return tombstone


def memory_pin(*, memory: Memory, actor: Actor, reason: str = "") -> Memory:
    with transaction.atomic():
        memory = _locked(memory)
        _, created = Pin.objects.get_or_create(memory=memory, defaults={"pinned_by": str(actor), "reason": reason})
        if created:
            audit_record(
                actor=actor,
                action="memory.pin",
                namespace_id=memory.namespace_id,
                target_type="memory",
                target_id=str(memory.pk),
                user_id=memory.user_id,
                reason=reason,
            )
    return memory


def memory_unpin(*, memory: Memory, actor: Actor, reason: str = "") -> Memory:
    with transaction.atomic():
        memory = _locked(memory)
        deleted, _ = Pin.objects.filter(memory=memory).delete()
        if deleted:
            audit_record(
                actor=actor,
                action="memory.unpin",
                namespace_id=memory.namespace_id,
                target_type="memory",
                target_id=str(memory.pk),
                user_id=memory.user_id,
                reason=reason,
            )
    return memory


def memory_approve(*, memory: Memory, actor: Actor, reason: str = "") -> Memory:
    with transaction.atomic():
        memory = _locked(memory)
        if memory.status != MemoryStatus.CANDIDATE:
            raise Conflict("only a candidate can be approved", code="not_candidate")
        memory.status = MemoryStatus.ACTIVE
        memory.updated_at = timezone.now()
        memory.save(update_fields=["status", "updated_at"])
        audit_record(
            actor=actor,
            action="memory.approve",
            namespace_id=memory.namespace_id,
            target_type="memory",
            target_id=str(memory.pk),
            user_id=memory.user_id,
            reason=reason,
        )
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
        deleted, _ = Tombstone.objects.filter(pk=tombstone.pk).delete()
        if deleted:
            audit_record(
                actor=actor,
                action="tombstone.lift",
                namespace_id=tombstone.namespace_id,
                target_type="tombstone",
                target_id=str(tombstone.pk),
                user_id=tombstone.user_id,
                reason=reason,
                data={"tombstone_reason": tombstone.reason},
            )


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
    with transaction.atomic():
        for memory in Memory.objects.filter(pk__in=ids).order_by("id").defer("search_vector"):
            try:
                memory_forget(memory=memory, actor=actor, reason=reason, force=force)
            except Conflict:
                kept += 1
            else:
                forgotten += 1
    return SessionForgetResult(forgotten, kept)


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
        memory = found.get(pk) if pk else None
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
