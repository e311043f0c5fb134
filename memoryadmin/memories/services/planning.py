"""The first steps of the write path: normalise, fingerprint, and the rows a new memory becomes."""

from __future__ import annotations

import enum
import functools
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from django.db.models import Model
from django.db.models.base import DEFERRED
from django.utils import timezone

from memoryadmin.audit.services import Actor, AuditEntry
from memoryadmin.core.errors import InvalidInput
from memoryadmin.core.fingerprints import text_fingerprint, text_fingerprints
from memoryadmin.core.timestamps import not_in_future
from memoryadmin.memories.models import (
    DatePrecision,
    Memory,
    MemoryEvidence,
    MemoryRevision,
    MemorySource,
    MemoryStatus,
    MemoryType,
    Tombstone,
)
from memoryadmin.memories.search.periods import event_in
from memoryadmin.memories.services.cleaning import (
    clean_key,
    clean_labels,
    clean_memory_type,
    clean_metadata,
    clean_owner_ids,
    clean_text,
)
from memoryadmin.tenancy.models import Namespace


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


def is_tombstoned(namespace_id: int, user_id: str, fingerprint: str, text: str | None = None) -> bool:
    """Whether a tombstone forbids this text: its fingerprint, or (given the text) any it could be read as."""
    fingerprints = {fingerprint, *(text_fingerprints(text) if text is not None else ())}
    return Tombstone.objects.filter(namespace_id=namespace_id, user_id=user_id, fingerprint__in=fingerprints).exists()


def forgotten_label(namespace_id: int, user_id: str, fields: dict[str, Any]) -> str | None:
    """The first of these fields (topics, entities, metadata, subject) that carries a text a tombstone forbids this
    person, or None: a tombstone keeps a forgotten text out of every field, as a restore keeps it (snapshots)."""
    said = [(name, text) for name, value in fields.items() for text in strings_of(value) if text.strip()]
    if not said:
        return None
    wanted = {text_fingerprint(text): name for name, text in reversed(said)}
    held = set(
        Tombstone.objects.filter(namespace_id=namespace_id, user_id=user_id, fingerprint__in=wanted).values_list(
            "fingerprint", flat=True
        )
    )
    return next((name for name, text in said if text_fingerprint(text) in held), None)


def strings_of(value: Any) -> list[str]:
    """Every string a value holds, a mapping's keys included."""
    found: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return found


def link_evidence(memory: Memory, message_ids: Sequence[int]) -> int:
    if not message_ids:
        return 0
    created = MemoryEvidence.objects.bulk_create(
        [MemoryEvidence(memory=memory, message_id=mid) for mid in message_ids],
        ignore_conflicts=True,
    )
    return len(created)


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
    # Knowledge updates (see supersession): who and which single-valued attribute it states,
    # when the event happened and when it was said.
    subject: str = ""
    attribute: str = ""
    event_date: date | None = None
    # How much of event_date is known (DatePrecision); a date without one is a day.
    event_date_precision: str = ""
    stated_at: datetime | None = None


@dataclass
class Planned:
    """A cleaned item of a batch and, once planned, what becomes of it."""

    new: NewMemory
    text: str
    memory_type: str
    topics: list[str]
    entities: list[str]
    fingerprint: str
    status: str
    subject: str = ""
    attribute: str = ""
    # When it was said (now unless given) and when its event happened (given, or read from its text).
    stated_at: datetime | None = None
    event_date: date | None = None
    event_date_precision: str = ""
    outcome: Outcome | None = None
    memory: Memory | None = None
    # A merge's target: the id of a stored memory, or an item of this batch created before this one.
    target: uuid.UUID | Planned | None = None

    @property
    def key(self) -> tuple[str, str]:
        return (self.new.user_id, self.fingerprint)

    @property
    def mergeable(self) -> bool:
        """Whether it may merge into a look-alike: not a statement of an attribute (supersession settles
        those), nor a turn kept as said (a quote is not a paraphrase of anything)."""
        return not self.attribute and self.memory_type != MemoryType.UTTERANCE


# What clean_memory_type lets through (MemoryType.values makes a new list at every call).
_MEMORY_TYPES = frozenset(MemoryType.values)


@functools.lru_cache(maxsize=256)
def _clean_owner_ids(user_id: str, session_id: str, agent_id: str) -> None:
    """clean_owner_ids, once for the ids a batch's items share (ids it refuses raise, and are not kept)."""
    clean_owner_ids(user_id=user_id, session_id=session_id, agent_id=agent_id)


def plan_memory(namespace: Namespace, new: NewMemory) -> Planned:
    """Normalise and fingerprint one memory, or raise InvalidInput: the first step of the write path."""
    ids = (new.user_id, new.session_id, new.agent_id)
    if all(type(i) is str for i in ids):
        _clean_owner_ids(*ids)
    else:
        clean_owner_ids(user_id=new.user_id, session_id=new.session_id, agent_id=new.agent_id)
    text = clean_text(new.text)
    clean_metadata(new.metadata)
    memory_type = new.memory_type if new.memory_type in _MEMORY_TYPES else clean_memory_type(new.memory_type)
    topics = clean_labels(new.topics, "topics")
    entities = clean_labels(new.entities, "entities")
    status = new.status
    if status is None:
        needs_review = namespace.review_required and new.source == MemorySource.EXTRACTION
        status = MemoryStatus.CANDIDATE if needs_review else MemoryStatus.ACTIVE
    now = timezone.now()
    if new.stated_at is not None and not not_in_future(new.stated_at, now):
        raise InvalidInput("stated_at must not be in the future", details={"field": "stated_at"})
    # Unless given, it was said when it is written (memory_row's time).
    stated_at = new.stated_at or new.created_at
    precision = new.event_date_precision
    if precision and precision not in DatePrecision.values:
        raise InvalidInput(
            f"event_date_precision must be one of {', '.join(DatePrecision.values)}",
            details={"field": "event_date_precision"},
        )
    event_date = new.event_date
    if event_date is None:
        found = event_in(text, (stated_at or now).date())
        if found is not None:
            event_date, precision = found
    elif precision == DatePrecision.MONTH:
        event_date = event_date.replace(day=1)  # a month is known by its first day (a week by the day it starts)
    elif precision == DatePrecision.YEAR:
        event_date = event_date.replace(month=1, day=1)
    return Planned(
        new=new,
        text=text,
        memory_type=memory_type,
        topics=topics,
        entities=entities,
        fingerprint=text_fingerprint(text),
        status=status,
        subject=clean_key(new.subject, "subject", 200),
        attribute=clean_key(new.attribute, "attribute", 100),
        stated_at=stated_at,
        event_date=event_date,
        event_date_precision=(precision or DatePrecision.DAY) if event_date else "",
    )


def _deferred() -> object:
    return DEFERRED


class _Instances[M: Model]:
    """Unsaved instances of a model from the values of some of its fields (by attribute name), built as a
    queryset builds them (`Model.__init__` with positional values, a third of its cost with keywords):
    every other field takes its default, as it would from keywords, and a generated one is left unset."""

    def __init__(self, model: type[M], names: Iterable[str]) -> None:
        self.model = model
        given = set(names)
        fields = model._meta.concrete_fields
        if given - {f.attname for f in fields}:
            raise ValueError(f"{model.__name__} has no fields {sorted(given - {f.attname for f in fields})}")
        self.slots: list[tuple[str, Callable[[], Any] | None]] = [
            (f.attname, None if f.attname in given else _deferred if f.generated else f.get_default) for f in fields
        ]

    def make(self, **values: Any) -> M:
        return self.model(*[values[name] if default is None else default() for name, default in self.slots])


# What a revision keeps of a text: a stored memory and a planned item of a batch both have them.
REVISED_FIELDS = ("text", "fingerprint", "memory_type", "topics", "entities")
# The columns of a new memory's row that planning decided, as a planned item holds them.
PLANNED_COLUMNS = (*REVISED_FIELDS, "status", "subject", "attribute", "event_date", "event_date_precision")
_memories = _Instances(
    Memory,
    [
        *("id", "namespace_id", "user_id", "session_id", "agent_id", "metadata", "source", "created_at"),
        *("updated_at", "stated_at", *PLANNED_COLUMNS),
    ],
)
_namespace_field = Memory._meta.get_field("namespace")


def memory_row(namespace: Namespace, item: Planned, now: datetime) -> Memory:
    new = item.new
    memory = _memories.make(
        id=new.memory_id or uuid.uuid4(),
        namespace_id=namespace.pk,
        user_id=new.user_id,
        session_id=new.session_id,
        agent_id=new.agent_id,
        metadata=new.metadata or {},
        source=new.source,
        created_at=new.created_at or now,
        updated_at=now,
        stated_at=item.stated_at or new.created_at or now,
        **{name: getattr(item, name) for name in PLANNED_COLUMNS},
    )
    _namespace_field.set_cached_value(memory, namespace)
    return memory


_revisions = _Instances(
    MemoryRevision, ["memory_id", "revision", *REVISED_FIELDS, "metadata", "actor", "reason", "created_at"]
)
_revision_memory_field = MemoryRevision._meta.get_field("memory")


def revision_of(
    memory: Memory, values: Memory | Planned, *, revision: int, actor: Actor, reason: str, created_at: datetime
) -> MemoryRevision:
    """Revision `revision` of `memory` (unsaved), with the text and labels `values` holds and the memory's
    metadata."""
    revised = _revisions.make(
        memory_id=memory.pk,
        revision=revision,
        metadata=memory.metadata,
        actor=str(actor),
        reason=reason,
        created_at=created_at,
        **{name: getattr(values, name) for name in REVISED_FIELDS},
    )
    _revision_memory_field.set_cached_value(revised, memory)
    return revised


def first_revision(memory: Memory, item: Planned, actor: Actor, now: datetime) -> MemoryRevision:
    """Revision 1 keeps the item's own text and labels: a later item of its batch may have merged into the
    memory since."""
    reason = item.new.reason or f"created ({item.new.source})"
    return revision_of(memory, item, revision=1, actor=actor, reason=reason, created_at=now)


def created_event(memory: Memory, item: Planned, actor: Actor) -> AuditEntry:
    return AuditEntry.about(
        memory,
        actor=actor,
        action="memory.create",
        reason=item.new.reason,
        data={
            "source": item.new.source,
            "status": item.status,
            "memory_type": item.memory_type,
            "pinned": item.new.pinned,
        },
    )
