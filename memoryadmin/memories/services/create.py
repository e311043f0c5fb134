"""Creating memories: `memory_create` for one, `memory_create_many` for a batch with the same outcome."""

from __future__ import annotations

import copy
import json
import uuid
from collections.abc import Iterable, Sequence
from datetime import date, datetime
from functools import cache
from typing import Any

import numpy as np
from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from memoryadmin.audit.services import Actor, audit_record, audit_record_many
from memoryadmin.core.bulk import insert_json_rows, json_rows
from memoryadmin.core.errors import InvalidInput
from memoryadmin.core.fingerprints import text_fingerprints
from memoryadmin.core.locks import lock_texts, text_locks_sql
from memoryadmin.core.rows import RowLoader
from memoryadmin.memories.embeddings import embed_or_none
from memoryadmin.memories.models import (
    Memory,
    MemoryEvidence,
    MemoryRevision,
    MemorySource,
    MemoryType,
    Pin,
    Tombstone,
)
from memoryadmin.memories.services.cleaning import clean_labels
from memoryadmin.memories.services.near_duplicates import (
    BatchNearDuplicates,
    BatchSemanticDuplicates,
    near_duplicate_group,
    semantic_near_duplicate,
)
from memoryadmin.memories.services.planning import (
    NewMemory,
    Outcome,
    Planned,
    WriteResult,
    created_event,
    first_revision,
    is_tombstoned,
    link_evidence,
    memory_row,
    plan_memory,
)
from memoryadmin.memories.vectors import Owner, vectors_store
from memoryadmin.tenancy.models import Namespace


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
    subject: str = "",
    attribute: str = "",
    event_date: date | None = None,
    event_date_precision: str = "",
    stated_at: datetime | None = None,
) -> WriteResult:
    item = plan_memory(
        namespace,
        NewMemory(
            user_id=user_id,
            text=text,
            source=source,
            session_id=session_id,
            agent_id=agent_id,
            memory_type=memory_type,
            topics=topics,
            entities=entities,
            metadata=metadata,
            pinned=pinned,
            pin_reason=pin_reason,
            evidence_message_ids=evidence_message_ids,
            status=status,
            memory_id=memory_id,
            created_at=created_at,
            reason=reason,
            subject=subject,
            attribute=attribute,
            event_date=event_date,
            event_date_precision=event_date_precision,
            stated_at=stated_at,
        ),
    )
    text, topics, entities, fingerprint = item.text, item.topics, item.entities, item.fingerprint
    # Before the transaction: an embeddings endpoint is never waited for while rows are locked.
    embedded = embed_or_none([text])

    with transaction.atomic():
        # A forget of the same text waits for this create, or this create for it.
        lock_texts(namespace.pk, [(user_id, f) for f in text_fingerprints(text)])
        if is_tombstoned(namespace.pk, user_id, fingerprint, text):
            return WriteResult(Outcome.SUPPRESSED, None)

        existing = Memory.objects.filter(namespace=namespace, user_id=user_id, fingerprint=fingerprint).first()
        if existing is not None:
            link_evidence(existing, evidence_message_ids)
            return WriteResult(Outcome.DUPLICATE, existing)

        # A memory stating an attribute is settled by supersession, never merged into a look-alike
        # ("drives a 2019 Civic" is not a duplicate of "drives a 2021 Civic"); a turn kept as said neither.
        if merge_near_duplicates and item.mergeable:
            target, had_neighbours = near_duplicate_group(
                namespace_id=namespace.pk, user_id=user_id, text=text, threshold=settings.NEAR_DUPLICATE_THRESHOLD
            )
            if target is None and not had_neighbours and embedded is not None:
                target = semantic_near_duplicate(
                    namespace_id=namespace.pk,
                    user_id=user_id,
                    text=text,
                    vector=embedded[1][0],
                    model=embedded[0].model,
                )
            if target is not None:
                link_evidence(target, evidence_message_ids)
                merged_topics = clean_labels([*target.topics, *topics], "topics")
                merged_entities = clean_labels([*target.entities, *entities], "entities")
                if merged_topics != target.topics or merged_entities != target.entities:
                    Memory.objects.filter(pk=target.pk).update(
                        topics=merged_topics, entities=merged_entities, updated_at=timezone.now()
                    )
                    target.topics, target.entities = merged_topics, merged_entities
                return WriteResult(Outcome.MERGED, target, merged_with=[target.pk])

        now = timezone.now()
        memory = memory_row(namespace, item, now)
        try:
            with transaction.atomic():
                memory.save(force_insert=True)
        except IntegrityError:
            # A concurrent writer stored the same text first: that is a duplicate, not an error.
            existing = Memory.objects.filter(namespace=namespace, user_id=user_id, fingerprint=fingerprint).first()
            if existing is None:
                raise
            link_evidence(existing, evidence_message_ids)
            return WriteResult(Outcome.DUPLICATE, existing)

        first_revision(memory, item, actor, now).save(force_insert=True)
        if embedded is not None:
            vectors_store([Owner(memory.pk, namespace.pk, user_id)], *embedded)
        link_evidence(memory, evidence_message_ids)
        if pinned:
            Pin.objects.create(memory=memory, pinned_by=str(actor), reason=pin_reason)
        audit_record(**vars(created_event(memory, item, actor)))
    return WriteResult(Outcome.CREATED, memory)


class _Fallback(Exception):
    """The batch met a concurrent writer; it is written one item at a time instead."""


def _insert_memories(memories: list[Memory]) -> None:
    """One INSERT for new memories, or none of them and _Fallback when one is in the way of another writer's.

    ON CONFLICT DO NOTHING instead of a savepoint around the insert: the batch's first
    write then costs one statement, and a conflict leaves a transaction that goes on.
    """
    inserted = [
        pk
        for (pk,) in insert_json_rows(
            Memory._meta.db_table,
            [f.column for f in _MEMORY_FIELDS],
            json_rows(memories, _MEMORY_FIELDS),
            suffix="ON CONFLICT DO NOTHING RETURNING id",
        )
    ]
    if len(inserted) < len(memories):
        # Another writer stored one of these texts (or took one of these ids) since it was looked up.
        if inserted:
            with connection.cursor() as cursor:
                cursor.execute("DELETE FROM memories_memory WHERE id = ANY(%s)", [inserted])
        raise _Fallback
    for memory in memories:
        memory._state.adding, memory._state.db = False, connection.alias


_MEMORY_FIELDS = [f for f in Memory._meta.concrete_fields if not f.generated]
_REVISION_FIELDS = [f for f in MemoryRevision._meta.concrete_fields if not f.primary_key]


def memory_create_many(
    *,
    namespace: Namespace,
    actor: Actor,
    items: Sequence[NewMemory],
    merge_near_duplicates: bool = False,
) -> list[WriteResult | InvalidInput]:
    """`memory_create` for each item in order, in one transaction, with a fixed number of statements.

    Each result is what `memory_create` would return for that item after the ones
    before it (or the InvalidInput it would raise): an item sees the memories the
    earlier items created, as exact and as near duplicates. Tombstones, stored
    duplicates and near-duplicate groups are read once for the whole batch; the
    memories, revisions, evidence, pins and audit events are each one insert.
    When another writer gets in the way (it stored the same text, or deleted a
    merge target, meanwhile) the batch is written through `memory_create`, one
    item at a time, which settles each such case as it always has.
    """
    results: list[WriteResult | InvalidInput | None] = [None] * len(items)
    planned: list[tuple[int, Planned]] = []
    for index, new in enumerate(items):
        try:
            planned.append((index, plan_memory(namespace, new)))
        except InvalidInput as exc:
            results[index] = exc
    if not planned:
        return results  # type: ignore[return-value]
    # Each distinct text once, before the transaction (see memory_create).
    texts = list(dict.fromkeys(item.text for _, item in planned))
    embedded = embed_or_none(texts)
    vectors = dict(zip(texts, embedded[1], strict=True)) if embedded is not None else None
    # No savepoint of its own: nothing is written before the step that may fall back, and that step undoes itself.
    with transaction.atomic(savepoint=False):
        try:
            semantic = None
            mergeable_users = {item.new.user_id for _, item in planned if item.mergeable}
            if merge_near_duplicates and embedded is not None and vectors is not None and mergeable_users:
                semantic = BatchSemanticDuplicates(namespace.pk, mergeable_users, embedded[0].model, vectors)
            _create_planned(namespace, actor, planned, results, merge_near_duplicates, semantic)
            if embedded is not None and vectors is not None:
                created = [item for _, item in planned if item.outcome is Outcome.CREATED]
                vectors_store(
                    [Owner(item.memory.pk, namespace.pk, item.new.user_id) for item in created],  # type: ignore[union-attr]
                    embedded[0],
                    np.array([vectors[item.text] for item in created]),
                )
        except _Fallback:
            for index, item in planned:
                try:
                    results[index] = memory_create(
                        namespace=namespace,
                        actor=actor,
                        merge_near_duplicates=merge_near_duplicates,
                        **vars(item.new),
                    )
                except InvalidInput as exc:
                    results[index] = exc
    return results  # type: ignore[return-value]


@cache
def _memory_loader() -> RowLoader[Memory]:
    return RowLoader(Memory, Memory._meta.concrete_fields)


def _lock_and_read(
    namespace_id: int, readings: list[tuple[str, str]], users: set[str], fingerprints: set[str]
) -> tuple[set[tuple[str, str]], list[Memory]]:
    """Take the text locks of a batch's readings (user, fingerprint), then read which of them a tombstone
    forbids and the memories that store its texts already: one round trip, each read after the locks."""
    lock_sql, params = text_locks_sql(namespace_id, readings)
    loader = _memory_loader()
    params.update(users=sorted(users), readings=sorted({f for _, f in readings}), fingerprints=sorted(fingerprints))
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            {lock_sql};
            SELECT user_id, fingerprint FROM {Tombstone._meta.db_table}
            WHERE namespace_id = %(namespace_id)s AND user_id = ANY(%(users)s::text[])
              AND fingerprint = ANY(%(readings)s::text[]);
            SELECT {", ".join(loader.columns("m"))} FROM {Memory._meta.db_table} m
            WHERE m.namespace_id = %(namespace_id)s AND m.user_id = ANY(%(users)s::text[])
              AND m.fingerprint = ANY(%(fingerprints)s::text[])
            """,
            params,
        )
        cursor.nextset()
        forbidden = {(user_id, fingerprint) for user_id, fingerprint in cursor.fetchall()}
        cursor.nextset()
        return forbidden, [loader.load(row) for row in cursor.fetchall()]


def _near_target(
    near: BatchNearDuplicates, semantic: BatchSemanticDuplicates | None, item: Planned
) -> uuid.UUID | Planned | None:
    """A trigram near duplicate, else (for a text with no trigram neighbour at all) the same fact in other words."""
    target = near.target(item)
    if target is None and not near.had_neighbours and semantic is not None:
        target = semantic.target(item)
    return target


def _create_planned(
    namespace: Namespace,
    actor: Actor,
    planned: list[tuple[int, Planned]],
    results: list[WriteResult | InvalidInput | None],
    merge_near_duplicates: bool,
    semantic: BatchSemanticDuplicates | None = None,
) -> None:
    # A text may also be read as another (a space splitting a word): its other fingerprints are locked and
    # checked against the tombstones too, and a text forbidden under one of them is forbidden.
    readings = {item.key: [(item.new.user_id, f) for f in text_fingerprints(item.text)] for _, item in planned}
    users = {item.new.user_id for _, item in planned}
    fingerprints = {item.fingerprint for _, item in planned}
    forbidden, stored = _lock_and_read(
        namespace.pk, [pair for pairs in readings.values() for pair in pairs], users, fingerprints
    )
    tombstoned = {key for key, pairs in readings.items() if any(pair in forbidden for pair in pairs)}
    known: dict[tuple[str, str], Memory] = {(m.user_id, m.fingerprint): m for m in stored}
    near = None
    if merge_near_duplicates:
        settled = tombstoned | known.keys()
        near = BatchNearDuplicates(
            namespace.pk,
            ((item.new.user_id, item.text) for _, item in planned if item.key not in settled and item.mergeable),
            settings.NEAR_DUPLICATE_THRESHOLD,
        )

    now = timezone.now()
    for _, item in planned:
        if item.key in tombstoned:
            item.outcome = Outcome.SUPPRESSED
        elif item.key in known:
            item.outcome, item.memory = Outcome.DUPLICATE, known[item.key]
        elif near is not None and item.mergeable and (target := _near_target(near, semantic, item)) is not None:
            item.outcome, item.target = Outcome.MERGED, target
        else:
            item.outcome = Outcome.CREATED
            item.memory = memory_row(namespace, item, now)
            known[item.key] = item.memory
            if near is not None and item.mergeable:
                near.add_created(item)
            if semantic is not None and item.mergeable:
                semantic.add_created(item)

    stored_targets = {item.target for _, item in planned if isinstance(item.target, uuid.UUID)}
    locked: dict[uuid.UUID, Memory] = {}
    if stored_targets:
        locked = {m.pk: m for m in Memory.objects.select_for_update().filter(pk__in=stored_targets).order_by("pk")}
        if len(locked) != len(stored_targets):
            raise _Fallback

    # The memories as the batch goes: the stored ones (a merge target as locked) and those it creates.
    live: dict[uuid.UUID, Memory] = {memory.pk: memory for memory in known.values()}
    live.update(locked)
    seen: list[Memory] = []

    def as_at_its_turn(memory: Memory) -> Memory:
        # memory_create returns the memory as that call left it; later merges must not show in it.
        snapshot = copy.copy(memory)
        seen.append(snapshot)
        return snapshot

    evidence: dict[tuple[uuid.UUID, int], None] = {}
    relabelled: dict[uuid.UUID, Memory] = {}
    for index, item in planned:
        if item.outcome is Outcome.SUPPRESSED:
            results[index] = WriteResult(Outcome.SUPPRESSED, None)
            continue
        if item.outcome is Outcome.MERGED:
            target = live[item.target if isinstance(item.target, uuid.UUID) else item.target.memory.pk]  # type: ignore[union-attr]
            try:
                merged_topics = clean_labels([*target.topics, *item.topics], "topics")
                merged_entities = clean_labels([*target.entities, *item.entities], "entities")
            except InvalidInput as exc:
                results[index] = exc
                continue
            if merged_topics != target.topics or merged_entities != target.entities:
                # A memory created in this batch is inserted with its merged labels; revision 1 keeps its own.
                target.topics, target.entities = merged_topics, merged_entities
                if isinstance(item.target, uuid.UUID):
                    relabelled[target.pk] = target
            results[index] = WriteResult(Outcome.MERGED, as_at_its_turn(target), merged_with=[target.pk])
            memory = target
        else:
            memory = live[item.memory.pk]  # type: ignore[union-attr]
            results[index] = WriteResult(item.outcome, as_at_its_turn(memory))  # type: ignore[arg-type]
        for message_id in item.new.evidence_message_ids:
            evidence[(memory.pk, message_id)] = None

    created = [item for _, item in planned if item.outcome is Outcome.CREATED]
    if created:
        _insert_memories([item.memory for item in created])  # type: ignore[misc]
    for snapshot in seen:
        snapshot._state.adding, snapshot._state.db = False, connection.alias
    if created:
        revisions = [first_revision(item.memory, item, actor, now) for item in created]  # type: ignore[arg-type]
        insert_json_rows(
            MemoryRevision._meta.db_table,
            [f.column for f in _REVISION_FIELDS],
            json_rows(revisions, _REVISION_FIELDS),
        )
    if evidence:
        # As `link_evidence` does: a pair already linked stays as it is.
        linked_at = timezone.now()
        insert_json_rows(
            MemoryEvidence._meta.db_table,
            ("memory_id", "message_id", "created_at"),
            [[memory_id, message_id, linked_at] for memory_id, message_id in evidence],
            suffix="ON CONFLICT DO NOTHING",
        )
    pins = [
        Pin(memory=item.memory, pinned_by=str(actor), reason=item.new.pin_reason) for item in created if item.new.pinned
    ]
    if pins:
        Pin.objects.bulk_create(pins)
    if relabelled:
        with connection.cursor() as cursor:
            cursor.execute(
                """
                UPDATE memories_memory AS m
                SET topics = ARRAY(
                        SELECT e FROM jsonb_array_elements_text(v.labels -> 0) WITH ORDINALITY AS x(e, i) ORDER BY i
                    ),
                    entities = ARRAY(
                        SELECT e FROM jsonb_array_elements_text(v.labels -> 1) WITH ORDINALITY AS x(e, i) ORDER BY i
                    ),
                    updated_at = %s
                FROM jsonb_each(%s::jsonb) AS v(id, labels)
                WHERE m.id = v.id::uuid
                """,
                [now, json.dumps({str(pk): [m.topics, m.entities] for pk, m in relabelled.items()})],
            )
    audit_record_many([created_event(item.memory, item, actor) for item in created])  # type: ignore[arg-type]
