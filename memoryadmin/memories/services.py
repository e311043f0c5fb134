"""Every write to long-term memory. Each function is atomic and audited.

`memory_create` is the one write path all sources share (API, extraction,
operators, restore): normalise -> fingerprint -> tombstone -> exact duplicate
-> near duplicate (when asked) -> insert -> revision 1 -> evidence -> audit.
`memory_create_many` takes the same path for a list of memories at once (an
extraction run's candidates), with the result of calling `memory_create` for
each in order and a number of statements that does not grow with the list.
"""

from __future__ import annotations

import copy
import enum
import json
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import Q
from django.utils import timezone

from memoryadmin.audit.services import Actor, AuditEntry, audit_record, audit_record_many
from memoryadmin.core.errors import Conflict, InvalidInput, NotFound, ServiceError
from memoryadmin.core.fingerprints import text_fingerprint
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
# At most this many neighbours make a group to merge into (the nearest ones).
_GROUP_LIMIT = 20


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
            LIMIT {_GROUP_LIMIT}
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


@dataclass
class NewMemory:
    """One memory for `memory_create_many`: what `memory_create` takes besides the namespace and the actor."""

    user_id: str
    text: str
    source: str = MemorySource.API
    session_id: str = ""
    agent_id: str = ""
    memory_type: str = MemoryType.SEMANTIC
    topics: Iterable[str] | None = None
    entities: Iterable[str] | None = None
    metadata: dict[str, Any] | None = None
    pinned: bool = False
    pin_reason: str = ""
    evidence_message_ids: Sequence[int] = ()
    status: str | None = None
    memory_id: uuid.UUID | None = None
    created_at: datetime | None = None
    reason: str = ""


@dataclass
class _Planned:
    """A cleaned item of a batch and, once planned, what becomes of it."""

    new: NewMemory
    text: str
    memory_type: str
    topics: list[str]
    entities: list[str]
    fingerprint: str
    status: str
    outcome: Outcome | None = None
    memory: Memory | None = None
    # A merge's target: the id of a stored memory, or an item of this batch created before this one.
    target: uuid.UUID | _Planned | None = None

    @property
    def key(self) -> tuple[str, str]:
        return (self.new.user_id, self.fingerprint)


def _planned(namespace: Namespace, new: NewMemory) -> _Planned:
    """Normalise and fingerprint one memory, or raise InvalidInput: the first step of the write path."""
    text = clean_text(new.text)
    memory_type = clean_memory_type(new.memory_type)
    topics = clean_labels(new.topics, "topics")
    entities = clean_labels(new.entities, "entities")
    status = new.status
    if status is None:
        needs_review = namespace.review_required and new.source == MemorySource.EXTRACTION
        status = MemoryStatus.CANDIDATE if needs_review else MemoryStatus.ACTIVE
    return _Planned(
        new=new,
        text=text,
        memory_type=memory_type,
        topics=topics,
        entities=entities,
        fingerprint=text_fingerprint(text),
        status=status,
    )


def _new_memory(namespace: Namespace, item: _Planned, now: datetime) -> Memory:
    new = item.new
    return Memory(
        id=new.memory_id or uuid.uuid4(),
        namespace=namespace,
        user_id=new.user_id,
        session_id=new.session_id,
        agent_id=new.agent_id,
        text=item.text,
        memory_type=item.memory_type,
        status=item.status,
        topics=item.topics,
        entities=item.entities,
        metadata=new.metadata or {},
        source=new.source,
        fingerprint=item.fingerprint,
        created_at=new.created_at or now,
        updated_at=now,
    )


def _first_revision(memory: Memory, item: _Planned, actor: Actor, now: datetime) -> MemoryRevision:
    return MemoryRevision(
        memory=memory,
        revision=1,
        text=item.text,
        memory_type=item.memory_type,
        topics=item.topics,
        entities=item.entities,
        metadata=memory.metadata,
        actor=str(actor),
        reason=item.new.reason or f"created ({item.new.source})",
        created_at=now,
    )


def _created_event(memory: Memory, item: _Planned, actor: Actor) -> AuditEntry:
    return AuditEntry(
        actor=actor,
        action="memory.create",
        namespace_id=memory.namespace_id,
        target_type="memory",
        target_id=str(memory.pk),
        user_id=item.new.user_id,
        reason=item.new.reason,
        data={
            "source": item.new.source,
            "status": item.status,
            "memory_type": item.memory_type,
            "pinned": item.new.pinned,
        },
    )


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
    item = _planned(
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
        ),
    )
    text, topics, entities, fingerprint = item.text, item.topics, item.entities, item.fingerprint

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
        memory = _new_memory(namespace, item, now)
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

        _first_revision(memory, item, actor, now).save(force_insert=True)
        _link_evidence(memory, evidence_message_ids)
        if pinned:
            Pin.objects.create(memory=memory, pinned_by=str(actor), reason=pin_reason)
        audit_record(**vars(_created_event(memory, item, actor)))
    return WriteResult(Outcome.CREATED, memory)


_NEAR_DUPLICATE_GROUPS = """
WITH cand AS (
    SELECT DISTINCT c.u, c.t FROM unnest(%(users)s::text[], %(texts)s::text[]) AS c(u, t)
),
cn AS (
    SELECT c.u, c.t, n.id, n.text, n.sim
    FROM cand c
    CROSS JOIN LATERAL (
        SELECT m.id, m.text, similarity(m.text, c.t) AS sim
        FROM memories_memory m
        WHERE m.namespace_id = %(namespace_id)s AND m.user_id = c.u {candidate_prefilter}
          AND similarity(m.text, c.t) >= %(threshold)s
        ORDER BY sim DESC, m.id
        LIMIT %(limit)s + 1
    ) n
),
ranked AS (
    SELECT cn.*, row_number() OVER w AS rank, count(*) OVER (PARTITION BY u, t) AS found
    FROM cn WINDOW w AS (PARTITION BY u, t ORDER BY sim DESC, id)
),
members AS (SELECT DISTINCT u, id, text FROM ranked WHERE rank <= %(limit)s),
crowded AS (SELECT DISTINCT u, t FROM ranked WHERE found > %(limit)s)
SELECT 'n', u, t, id, NULL::uuid, text, sim FROM cn
UNION ALL
SELECT 'm', NULL, NULL, mb.id, n.id, NULL, NULL
FROM members mb
CROSS JOIN LATERAL (
    SELECT m.id FROM memories_memory m
    WHERE m.namespace_id = %(namespace_id)s AND m.user_id = mb.u {member_prefilter}
      AND similarity(m.text, mb.text) >= %(threshold)s
    LIMIT %(limit)s + 1
) n
UNION ALL
SELECT 'x', mb.u, c.t, mb.id, NULL, NULL, similarity(mb.text, c.t)
FROM members mb JOIN crowded c ON c.u = mb.u
WHERE similarity(mb.text, c.t) >= %(threshold)s
UNION ALL
SELECT 'c', a.u, a.t, NULL, NULL, b.t, similarity(a.t, b.t)
FROM cand a JOIN cand b ON a.u = b.u AND a.t < b.t
WHERE similarity(a.t, b.t) >= %(threshold)s
"""


class _NearDuplicates:
    """near_duplicate_target for the items of a batch, in order, from one statement.

    The statement reads, for each text of the batch, its stored neighbours (best
    first, one past the group limit), each neighbour's own stored neighbours,
    and the similar pairs of texts within the batch. Memories the batch creates
    are not stored yet; `target` adds those created before the item, so each
    item sees what `near_duplicate_target` would see at its turn. A member with
    more stored neighbours than a group can hold always has one outside the
    group, so one past the limit is all that is read.
    """

    def __init__(self, namespace_id: int, pairs: Iterable[tuple[str, str]], threshold: float) -> None:
        # (user_id, text) -> stored neighbours [(id, text, sim)] best first, at most _GROUP_LIMIT + 1
        self.neighbours: dict[tuple[str, str], list[tuple[uuid.UUID, str, float]]] = {}
        # stored memory id -> ids of its stored neighbours (itself included), at most _GROUP_LIMIT + 1
        self.around: dict[uuid.UUID, set[uuid.UUID]] = {}
        # (stored id, text of the batch) -> similar, asked only for texts with too many neighbours to list
        self.crowded: set[tuple[uuid.UUID, str]] = set()
        # similar texts of the batch (both orders)
        self.within: dict[tuple[str, str], float] = {}
        self.created: dict[str, list[_Planned]] = {}
        pairs = sorted(set(pairs))
        if not pairs:
            return
        prefilter = threshold >= TRGM_DEFAULT_THRESHOLD
        sql = _NEAR_DUPLICATE_GROUPS.format(
            candidate_prefilter="AND m.text %% c.t" if prefilter else "",
            member_prefilter="AND m.text %% mb.text" if prefilter else "",
        )
        params = {
            "users": [u for u, _ in pairs],
            "texts": [t for _, t in pairs],
            "namespace_id": namespace_id,
            "threshold": threshold,
            "limit": _GROUP_LIMIT,
        }
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            rows = cursor.fetchall()
        for kind, user_id, text, first_id, second_id, other_text, sim in rows:
            if kind == "n":
                self.neighbours.setdefault((user_id, text), []).append((first_id, other_text, float(sim)))
            elif kind == "m":
                self.around.setdefault(first_id, set()).add(second_id)
            elif kind == "x":
                self.crowded.add((first_id, text))
            else:
                self.within[(text, other_text)] = self.within[(other_text, text)] = float(sim)
        for found in self.neighbours.values():
            found.sort(key=lambda n: (-n[2], n[0]))

    def add_created(self, item: _Planned) -> None:
        self.created.setdefault(item.new.user_id, []).append(item)

    def _stored_near(self, user_id: str, text: str) -> list[tuple[uuid.UUID, str, float]]:
        return self.neighbours.get((user_id, text), [])

    def target(self, item: _Planned) -> uuid.UUID | _Planned | None:
        user_id, text = item.new.user_id, item.text
        created = self.created.get(user_id, [])
        found: list[tuple[float, uuid.UUID, uuid.UUID | _Planned]] = [
            (sim, pk, pk) for pk, _, sim in self._stored_near(user_id, text)
        ]
        for other in created:
            sim = self.within.get((text, other.text))
            if sim is not None:
                found.append((sim, other.memory.pk, other))
        if not found:
            return None
        found.sort(key=lambda n: (-n[0], n[1]))
        group = found[:_GROUP_LIMIT]
        ids = {pk for _, pk, _ in group}
        members = [member for _, _, member in group]

        def stored_around(member: uuid.UUID | _Planned) -> set[uuid.UUID]:
            """The member's stored neighbours: all of them, or one more than the group can hold."""
            if isinstance(member, _Planned):
                return {pk for pk, _, _ in self._stored_near(user_id, member.text)}
            return self.around.get(member, set())

        def similar(stored: uuid.UUID, planned: _Planned) -> bool:
            listed = self._stored_near(user_id, planned.text)
            if len(listed) <= _GROUP_LIMIT:
                return any(pk == stored for pk, _, _ in listed)
            return (stored, planned.text) in self.crowded

        # No bridge: nothing outside the group, stored or created earlier in the batch, is similar to a member.
        # (A member whose stored neighbours were cut at the limit has more than the group holds: one is outside.)
        for member in members:
            if stored_around(member) - ids:
                return None
            for other in created:
                if other.memory.pk in ids:
                    continue
                if isinstance(member, _Planned):
                    if (member.text, other.text) in self.within:
                        return None
                elif similar(member, other):
                    return None
        # Cohesion: every member is similar to every other (each is similar to the new text by choice).
        for i, a in enumerate(members):
            for b in members[i + 1 :]:
                if isinstance(a, _Planned) and isinstance(b, _Planned):
                    ok = (a.text, b.text) in self.within
                elif isinstance(a, _Planned):
                    ok = similar(b, a)  # type: ignore[arg-type]
                elif isinstance(b, _Planned):
                    ok = similar(a, b)
                else:
                    ok = b in stored_around(a)
                if not ok:
                    return None
        return group[0][2]


class _Fallback(Exception):
    """The batch met a concurrent writer; it is written one item at a time instead."""


def _insert_memories(memories: list[Memory]) -> None:
    """One INSERT for new memories, or none of them and _Fallback when one is in the way of another writer's.

    ON CONFLICT DO NOTHING instead of a savepoint around the insert: the batch's first
    write then costs one statement, and a conflict leaves a transaction that goes on.
    """
    fields = [f for f in Memory._meta.concrete_fields if not f.generated]
    row = f"({', '.join(['%s'] * len(fields))})"
    params: list[object] = []
    for memory in memories:
        params += [f.get_db_prep_save(getattr(memory, f.attname), connection) for f in fields]
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO memories_memory ({', '.join(connection.ops.quote_name(f.column) for f in fields)}) "
            f"VALUES {', '.join([row] * len(memories))} ON CONFLICT DO NOTHING RETURNING id",
            params,
        )
        inserted = [pk for (pk,) in cursor.fetchall()]
        if len(inserted) < len(memories):
            # Another writer stored one of these texts (or took one of these ids) since it was looked up.
            if inserted:
                cursor.execute("DELETE FROM memories_memory WHERE id = ANY(%s)", [inserted])
            raise _Fallback
    for memory in memories:
        memory._state.adding, memory._state.db = False, connection.alias


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
    planned: list[tuple[int, _Planned]] = []
    for index, new in enumerate(items):
        try:
            planned.append((index, _planned(namespace, new)))
        except InvalidInput as exc:
            results[index] = exc
    if not planned:
        return results  # type: ignore[return-value]
    # No savepoint of its own: nothing is written before the step that may fall back, and that step undoes itself.
    with transaction.atomic(savepoint=False):
        try:
            _create_planned(namespace, actor, planned, results, merge_near_duplicates)
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


def _create_planned(
    namespace: Namespace,
    actor: Actor,
    planned: list[tuple[int, _Planned]],
    results: list[WriteResult | InvalidInput | None],
    merge_near_duplicates: bool,
) -> None:
    users = {item.new.user_id for _, item in planned}
    fingerprints = {item.fingerprint for _, item in planned}
    tombstoned = set(
        Tombstone.objects.filter(namespace=namespace, user_id__in=users, fingerprint__in=fingerprints).values_list(
            "user_id", "fingerprint"
        )
    )
    known: dict[tuple[str, str], Memory] = {
        (m.user_id, m.fingerprint): m
        for m in Memory.objects.filter(namespace=namespace, user_id__in=users, fingerprint__in=fingerprints)
    }
    near = None
    if merge_near_duplicates:
        settled = tombstoned | known.keys()
        near = _NearDuplicates(
            namespace.pk,
            ((item.new.user_id, item.text) for _, item in planned if item.key not in settled),
            settings.NEAR_DUPLICATE_THRESHOLD,
        )

    now = timezone.now()
    for _, item in planned:
        if item.key in tombstoned:
            item.outcome = Outcome.SUPPRESSED
        elif item.key in known:
            item.outcome, item.memory = Outcome.DUPLICATE, known[item.key]
        elif near is not None and (target := near.target(item)) is not None:
            item.outcome, item.target = Outcome.MERGED, target
        else:
            item.outcome = Outcome.CREATED
            item.memory = _new_memory(namespace, item, now)
            known[item.key] = item.memory
            if near is not None:
                near.add_created(item)

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
        MemoryRevision.objects.bulk_create([_first_revision(item.memory, item, actor, now) for item in created])  # type: ignore[arg-type]
    if evidence:
        MemoryEvidence.objects.bulk_create(
            [MemoryEvidence(memory_id=memory_id, message_id=message_id) for memory_id, message_id in evidence],
            ignore_conflicts=True,
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
    audit_record_many([_created_event(item.memory, item, actor) for item in created])  # type: ignore[arg-type]


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
