"""Reads of long-term memory, shared by the API and the operators' console.

Every function starts from a namespace: a memory of another namespace is
indistinguishable from one that does not exist.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import BooleanField, Count, Exists, OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce

from memoryadmin.conversations.models import Message, Session
from memoryadmin.conversations.queries import estimate_tokens, last_user_message, messages_within_budget
from memoryadmin.core.errors import NotFound
from memoryadmin.core.pagination import Page, clamp_limit, keyset_page
from memoryadmin.memories.models import (
    Memory,
    MemoryEvidence,
    MemoryRevision,
    MemoryStatus,
    MemoryType,
    Pin,
    Tombstone,
)
from memoryadmin.memories.search.engine import SearchHit, memories_search
from memoryadmin.memories.search.query import MAX_QUERY_CHARS
from memoryadmin.memories.search.scope import TimeFilters, clean_status, clean_types
from memoryadmin.memories.search.scoring import Recency
from memoryadmin.tenancy.models import Namespace

__all__ = ["Recency", "SearchHit", "TimeFilters", "memories_search"]


def _pinned_annotation() -> Coalesce:
    """Whether the memory is pinned, probed per row shown.

    A scalar subquery rather than EXISTS: PostgreSQL may plan an EXISTS in the select list
    as a hash of the whole pin table, built on every query to show fifty rows. Filters
    use `_pinned_filter`, which it may turn into a join.
    """
    pinned = Pin.objects.filter(memory_id=OuterRef("pk")).values(flag=Value(True))[:1]
    return Coalesce(Subquery(pinned), Value(False), output_field=BooleanField())


def _pinned_filter(pinned: bool) -> Q:
    exists = Exists(Pin.objects.filter(memory_id=OuterRef("pk")))
    return Q(exists) if pinned else ~Q(exists)


def memories_in(namespace: Namespace) -> QuerySet[Memory]:
    """The namespace's memories, each with `pinned` annotated (no query per row)."""
    return Memory.objects.filter(namespace=namespace).defer("search_vector").annotate(pinned=_pinned_annotation())


def _as_uuid(memory_id: str | uuid.UUID) -> uuid.UUID | None:
    if isinstance(memory_id, uuid.UUID):
        return memory_id
    try:
        return uuid.UUID(str(memory_id))
    except ValueError:
        return None


def memory_get(namespace: Namespace, memory_id: str | uuid.UUID) -> Memory:
    """One memory of the namespace, with `pinned`; NotFound otherwise (also for malformed ids)."""
    pk = _as_uuid(memory_id)
    memory = memories_in(namespace).filter(pk=pk).first() if pk else None
    if memory is None:
        raise NotFound("memory not found")
    return memory


def memory_of_user(namespace: Namespace, user_id: str, memory_id: uuid.UUID) -> Memory | None:
    """The person's memory of that id, or None: a memory of anyone else is not theirs to see or forget."""
    return Memory.objects.filter(namespace=namespace, user_id=user_id, pk=memory_id).first()


def memories_page(
    namespace: Namespace,
    *,
    user_id: str | None = None,
    session_id: str | None = None,
    agent_id: str | None = None,
    memory_type: str | None = None,
    status: str | None = None,
    pinned: bool | None = None,
    cursor: str | None = None,
    limit: int | None = None,
    topics: Sequence[str] | None = None,
    created_after: datetime | None = None,
    created_before: datetime | None = None,
    oldest_first: bool = False,
    times: TimeFilters | None = None,
) -> Page[Memory]:
    """Newest (or oldest) first, keyset-paginated on (created_at, id). All statuses unless `status` narrows it.

    Topics match when a memory has any of them; every range is [after, before).
    """
    limit = clamp_limit(limit)
    qs = memories_in(namespace)
    if user_id is not None:
        qs = qs.filter(user_id=user_id)
    if session_id is not None:
        qs = qs.filter(session_id=session_id)
    if agent_id is not None:
        qs = qs.filter(agent_id=agent_id)
    if memory_type is not None:
        qs = qs.filter(memory_type__in=clean_types([memory_type]))
    if (wanted := clean_status(status, None)) is not None:
        qs = qs.filter(status=wanted)
    if pinned is not None:
        qs = qs.filter(_pinned_filter(pinned))
    if topics:
        qs = qs.filter(topics__overlap=list(topics))
    if created_after is not None:
        qs = qs.filter(created_at__gte=created_after)
    if created_before is not None:
        qs = qs.filter(created_at__lt=created_before)
    if times is not None:
        for lookup, value in (
            ("stated_at__gte", times.stated_after),
            ("stated_at__lt", times.stated_before),
            ("event_date__gte", times.event_after),
            ("event_date__lt", times.event_before),
        ):
            if value is not None:
                qs = qs.filter(**{lookup: value})
    return keyset_page(
        qs,
        # A cursor of one order is refused by the other.
        tag="memories-oldest" if oldest_first else "memories",
        key=("created_at", "id"),
        types=(datetime, uuid.UUID),
        cursor=cursor,
        limit=limit,
        descending=not oldest_first,
    )


def memory_revisions(memory: Memory) -> list[MemoryRevision]:
    return list(MemoryRevision.objects.filter(memory=memory).order_by("revision"))


def memory_evidence(memory: Memory) -> list[MemoryEvidence]:
    return list(
        MemoryEvidence.objects.filter(memory=memory)
        .select_related("message__session")
        .order_by("message__session_id", "message__seq")
    )


MAX_HISTORY = 20


def memory_history(memory: Memory) -> dict[str, Any]:
    """A memory's knowledge-update history: what replaced it (if anything) and what it replaced, newest first.

    `replaced_by_forgotten` is true when it was superseded by a memory that has since been forgotten.
    """
    replaced_by = None
    if memory.superseded_by is not None:
        replaced_by = (
            Memory.objects.filter(namespace_id=memory.namespace_id, pk=memory.superseded_by)
            .only("id", "text", "status", "created_at")
            .first()
        )
    replaces = list(
        Memory.objects.filter(namespace_id=memory.namespace_id, superseded_by=memory.pk)
        .only("id", "text", "superseded_at", "stated_at", "created_at")
        .order_by("-superseded_at", "-id")[:MAX_HISTORY]
    )
    return {
        "replaced_by": replaced_by,
        "replaced_by_forgotten": memory.superseded_by is not None and replaced_by is None,
        "replaces": replaces,
    }


@dataclass
class SessionContext:
    summary: str | None
    messages: list[Message]
    memories: list[Memory]
    token_estimate: int


def session_context(
    namespace: Namespace,
    session: Session,
    *,
    query: str | None = None,
    token_budget: int = 4000,
    memory_limit: int = 10,
    include_injected: bool = False,
) -> SessionContext:
    """What to put in a prompt: relevant long-term memories, then the newest messages that fit.

    Memories are those of the session's user most relevant to `query`, or to
    the last user message when no query is given, every word counting. A
    summary of the session (a `summary` memory of it, when extraction made
    one) stands in for the older messages that did not fit.
    """
    spent = 0
    memories: list[Memory] = []
    text = query if query and query.strip() else None
    if text is None and (last := last_user_message(session)) is not None:
        text = last.content[:MAX_QUERY_CHARS]
    if text and text.strip() and memory_limit > 0:
        hits = memories_search(namespace, query=text, user_id=session.user_id, limit=memory_limit, touch=True).items
        for hit in hits:
            cost = estimate_tokens(hit.memory.text)
            if spent + cost > token_budget:
                break
            spent += cost
            memories.append(hit.memory)
    summary = (
        Memory.objects.filter(
            namespace=namespace,
            user_id=session.user_id,
            session_id=session.session_id,
            memory_type=MemoryType.SUMMARY,
            status=MemoryStatus.ACTIVE,
        )
        .order_by("-updated_at")
        .values_list("text", flat=True)
        .first()
    )
    summary_cost = estimate_tokens(summary) if summary else 0
    if summary_cost > token_budget - spent:
        summary, summary_cost = None, 0
    messages, truncated = messages_within_budget(
        session, token_budget=token_budget - spent - summary_cost, include_injected=include_injected
    )
    if not truncated:
        summary, summary_cost = None, 0
    spent += summary_cost + sum(estimate_tokens(m.content) for m in messages)
    return SessionContext(summary=summary, messages=messages, memories=memories, token_estimate=spent)


def tombstones_page(
    namespace: Namespace,
    *,
    user_id: str | None = None,
    reason: str | None = None,
    cursor: str | None = None,
    limit: int = 50,
    oldest_first: bool = False,
) -> Page[Tombstone]:
    """A namespace's tombstones, newest (or oldest) first, keyset on (created_at, id): the tombstone_ns_created
    index, read forwards or backwards."""
    limit = clamp_limit(limit)
    qs = Tombstone.objects.filter(namespace=namespace)
    if user_id:
        qs = qs.filter(user_id=user_id)
    if reason:
        qs = qs.filter(reason=reason)
    return keyset_page(
        qs,
        tag="tombstones-oldest" if oldest_first else "tombstones",
        key=("created_at", "id"),
        types=(datetime, int),
        cursor=cursor,
        limit=limit,
        descending=not oldest_first,
    )


def tombstone_get(namespace: Namespace, tombstone_id: int) -> Tombstone:
    tombstone = Tombstone.objects.filter(namespace=namespace, pk=tombstone_id).first()
    if tombstone is None:
        raise NotFound("tombstone not found")
    return tombstone


def memories_per_namespace(user_id: str, namespace_ids: Sequence[int]) -> dict[int, tuple[int, int]]:
    """Where one person has memories: {namespace id: (memories, tombstones)}, one grouped query per table."""
    memories = dict(
        Memory.objects.filter(namespace_id__in=list(namespace_ids), user_id=user_id)
        .order_by()
        .values("namespace_id")
        .annotate(n=Count("id"))
        .values_list("namespace_id", "n")
    )
    tombstones = dict(
        Tombstone.objects.filter(namespace_id__in=list(namespace_ids), user_id=user_id)
        .order_by()
        .values("namespace_id")
        .annotate(n=Count("id"))
        .values_list("namespace_id", "n")
    )
    return {ns: (memories.get(ns, 0), tombstones.get(ns, 0)) for ns in memories.keys() | tombstones.keys()}
