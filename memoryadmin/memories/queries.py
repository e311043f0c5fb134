"""Reads of long-term memory, shared by the API and the operators' console.

Every function starts from a namespace: a memory of another namespace is
indistinguishable from one that does not exist.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from django.db import connection
from django.db.models import BooleanField, Count, Exists, OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce

from memoryadmin.conversations.models import Message, Session
from memoryadmin.conversations.queries import estimate_tokens, last_user_message, messages_within_budget
from memoryadmin.core.errors import NotFound, found
from memoryadmin.core.estimates import EXACT_UP_TO, Estimate, estimate, per_day
from memoryadmin.core.pagination import Page, asked_tag, clamp_limit, keyset_page, narrowed
from memoryadmin.core.replicas import read_connection
from memoryadmin.memories.models import (
    Memory,
    MemoryEvidence,
    MemoryRevision,
    MemoryStatus,
    MemoryType,
    Pin,
    Tombstone,
    TombstoneReason,
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


def subject_memory_get(namespace: Namespace, user_id: str, memory_id: uuid.UUID) -> Memory | None:
    """One of a person's own memories: another person's is not found, whatever its id."""
    return Memory.objects.filter(namespace=namespace, user_id=user_id, pk=memory_id).first()


def memory_namespace(memory_id: uuid.UUID) -> Namespace | None:
    """The namespace a memory belongs to, whichever it is: where a console URL naming only the memory starts."""
    return Namespace.objects.filter(memories__id=memory_id).first()


def memory_namespace_id(memory_id: uuid.UUID) -> int | None:
    return Memory.objects.filter(pk=memory_id).values_list("namespace_id", flat=True).first()


def memories_by_ids(namespace: Namespace, ids: Sequence[Any]) -> list[Memory]:
    """The namespace's memories among `ids`, with `pinned`; ids of other namespaces simply are not found."""
    return list(memories_in(namespace).filter(pk__in=list(ids)))


def pin_of(memory: Memory) -> Pin | None:
    return Pin.objects.filter(memory=memory).first()


def memories_estimate(
    namespace_ids: Sequence[int], *, status: str | None = None, user_id: str | None = None
) -> Estimate:
    """How many memories the namespaces hold (of one status, of one person): exact up to a cap, then estimated."""
    qs = Memory.objects.filter(namespace_id__in=list(namespace_ids))
    if status is not None:
        qs = qs.filter(status=status)
    if user_id is not None:
        qs = qs.filter(user_id=user_id)
    return estimate(qs)


def candidates_by_namespace(namespace_ids: Sequence[int], *, cap: int = EXACT_UP_TO) -> dict[int, int]:
    """Candidates waiting in each namespace, each count stopped at `cap`: one statement, an index range each."""
    table = Memory._meta.db_table
    with read_connection().cursor() as cursor:
        # Only the model's own table name is formatted in; the ids and the cap are parameters.
        cursor.execute(
            f"""
            SELECT ns.id, (
                SELECT count(*) FROM (
                    SELECT 1 FROM {table} m WHERE m.namespace_id = ns.id AND m.status = %s LIMIT %s
                ) waiting
            ) FROM unnest(%s::bigint[]) AS ns(id)
            """,
            [MemoryStatus.CANDIDATE, cap, list(namespace_ids)],
        )
        return {namespace_id: n for namespace_id, n in cursor.fetchall() if n}


def memories_created_per_day(namespace_ids: Sequence[int], *, since: datetime, until: datetime) -> dict[date, int]:
    """Memories created (and still held) each day of [since, until): a range scan of (namespace, created_at)."""
    return per_day(Memory.objects.filter(namespace_id__in=namespace_ids, created_at__lt=until), "created_at", since)


def memories_forgotten_per_day(namespace_ids: Sequence[int], *, since: datetime, until: datetime) -> dict[date, int]:
    """Memories forgotten by hand or by policy each day of [since, until), from their tombstones."""
    tombstones = Tombstone.objects.filter(
        namespace_id__in=namespace_ids,
        reason__in=[TombstoneReason.FORGOTTEN, TombstoneReason.POLICY],
        created_at__lt=until,
    )
    return per_day(tombstones, "created_at", since)


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
    qs = narrowed(memories_in(namespace), user_id=user_id, session_id=session_id, agent_id=agent_id)
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
        qs = narrowed(
            qs,
            stated_at__gte=times.stated_after,
            stated_at__lt=times.stated_before,
            event_date__gte=times.event_after,
            event_date__lt=times.event_before,
        )
    asked = asked_tag(
        "memories",
        user_id=user_id,
        session_id=session_id,
        agent_id=agent_id,
        memory_type=memory_type,
        status=status,
        pinned=pinned,
        topics=sorted(topics or ()),
        created=(created_after, created_before),
        times=times,
    )
    return keyset_page(qs, tag=asked, key=("created_at", "id"), cursor=cursor, limit=limit, oldest_first=oldest_first)


def memory_revisions(memory: Memory) -> list[MemoryRevision]:
    return list(MemoryRevision.objects.filter(memory=memory).order_by("revision"))


def memory_evidence(memory: Memory) -> list[MemoryEvidence]:
    return list(
        MemoryEvidence.objects.filter(memory=memory)
        .select_related("message__session")
        .order_by("message__session_id", "message__seq")
    )


def evidence_of_messages(message_ids: Sequence[int]) -> dict[int, list[tuple[uuid.UUID, str]]]:
    """The memories each of these messages is evidence for: {message id: [(memory id, text)]}."""
    evidence: dict[int, list[tuple[uuid.UUID, str]]] = {}
    for message_id, memory_id, text in MemoryEvidence.objects.filter(message_id__in=list(message_ids)).values_list(
        "message_id", "memory_id", "memory__text"
    ):
        evidence.setdefault(message_id, []).append((memory_id, text))
    return evidence


@dataclass
class ReviewItem:
    memory: Memory
    evidence: list[MemoryEvidence]


def review_page(namespace: Namespace, *, cursor: str | None = None, limit: int = 20) -> Page[ReviewItem]:
    """Candidates oldest first (they have waited longest), each with the messages it came from."""
    qs = memories_in(namespace).filter(status=MemoryStatus.CANDIDATE)
    page = keyset_page(
        qs,
        tag="review",
        key=("created_at", "id"),
        cursor=cursor,
        limit=limit,
        descending=False,
    )
    rows, next_cursor = page.items, page.next_cursor
    evidence: dict[Any, list[MemoryEvidence]] = {}
    for ev in (
        MemoryEvidence.objects.filter(memory_id__in=[m.pk for m in rows])
        .select_related("message__session")
        .order_by("message__session_id", "message__seq")
    ):
        evidence.setdefault(ev.memory_id, []).append(ev)
    return Page([ReviewItem(memory=m, evidence=evidence.get(m.pk, [])) for m in rows], next_cursor)


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


def session_summary(
    *, namespace_id: int, user_id: str, session_id: str, status: str | None = None, lock: bool = False
) -> Memory | None:
    """The summary memory extraction keeps of a session (of one status), the newest if there are several;
    locked for the caller's transaction with `lock`."""
    qs = Memory.objects.select_for_update() if lock else Memory.objects.all()
    qs = qs.filter(namespace_id=namespace_id, user_id=user_id, session_id=session_id, memory_type=MemoryType.SUMMARY)
    if status is not None:
        qs = qs.filter(status=status)
    return qs.order_by("-updated_at", "-id").first()


MAX_KNOWN_FACTS = 50


def known_facts(*, namespace_id: int, user_id: str, limit: int = MAX_KNOWN_FACTS) -> list[tuple[Any, ...]]:
    """(id, text, subject, attribute) of the person's active memories that state an attribute, newest first:
    what a new fact may replace."""
    # Asked by every extraction run: written out, as compiling it through the ORM cost more than running it.
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            SELECT id, text, subject, attribute FROM {Memory._meta.db_table}
            WHERE namespace_id = %s AND user_id = %s AND status = %s AND attribute <> ''
            ORDER BY coalesce(stated_at, created_at) DESC, id DESC
            LIMIT %s
            """,
            [namespace_id, user_id, MemoryStatus.ACTIVE, limit],
        )
        return cursor.fetchall()


def _spelt(name: str) -> str:
    """A name as a pattern both PostgreSQL and Python read, its possessive s typed either way ("golds" names
    "Gold's Gym")."""
    if len(name) > 3 and name[-1] in "sS" and name[-2].isalpha():
        return re.escape(name[:-1]) + "'?" + name[-1]
    return re.escape(name)


def memories_stating(*, namespace_id: int, user_id: str, names: Sequence[str]) -> dict[tuple[str, str], list[Any]]:
    """The person's current facts that name one of `names` as a word ("Pat banks with Barclays" for "Barclays"):
    (subject, name lower-cased) -> ids. What a statement that leaves the name behind replaces. A fact is a
    semantic memory or a preference ("Pat loves jollof rice" for "jollof's a close second now"), or any memory
    stating an attribute ("Pat got a Ford Ranger" is the car they have)."""
    names = [name for name in dict.fromkeys(names) if name.strip()]
    if not names:
        return {}
    named = Q()
    for name in names:
        # A model's number may follow a make: "Mazda" names "Pat drives a Mazda3".
        named |= Q(text__iregex=r"\m" + _spelt(name) + r"\d*\M")
    rows = (
        Memory.objects.filter(
            Q(memory_type__in=(MemoryType.SEMANTIC, MemoryType.PREFERENCE)) | ~Q(attribute=""),
            named,
            namespace_id=namespace_id,
            user_id=user_id,
            status=MemoryStatus.ACTIVE,
        )
        .order_by("id")
        # A group chat's run may lead with many names, each of its own speaker: the bound grows with them.
        .values_list("id", "subject", "text")[: MAX_KNOWN_FACTS * len(names)]
    )
    found: dict[tuple[str, str], list[Any]] = {}
    for pk, subject, text in rows:
        for name in names:
            if re.search(r"\b" + _spelt(name) + r"\d*\b", text, re.IGNORECASE):
                found.setdefault((subject, name.lower()), []).append(pk)
    return found


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
    held = session_summary(
        namespace_id=namespace.pk, user_id=session.user_id, session_id=session.session_id, status=MemoryStatus.ACTIVE
    )
    summary = held.text if held is not None else None
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
    qs = narrowed(Tombstone.objects.filter(namespace=namespace), user_id=user_id or None, reason=reason or None)
    key = ("created_at", "id")
    return keyset_page(qs, tag="tombstones", key=key, cursor=cursor, limit=limit, oldest_first=oldest_first)


def tombstone_get(namespace: Namespace, tombstone_id: int) -> Tombstone:
    return found(Tombstone.objects.filter(namespace=namespace, pk=tombstone_id), "tombstone not found")


def tombstone_by_pk(tombstone_id: int) -> Tombstone | None:
    """A tombstone by id, whichever namespace it is in."""
    return Tombstone.objects.filter(pk=tombstone_id).first()


def tombstone_namespace_id(tombstone_id: int) -> int | None:
    return Tombstone.objects.filter(pk=tombstone_id).values_list("namespace_id", flat=True).first()


def tombstones_estimate(namespace_ids: Sequence[int], *, user_id: str | None = None) -> Estimate:
    qs = Tombstone.objects.filter(namespace_id__in=list(namespace_ids))
    if user_id is not None:
        qs = qs.filter(user_id=user_id)
    return estimate(qs)


def memories_per_namespace(user_id: str, namespace_ids: Sequence[int]) -> dict[int, tuple[int, int]]:
    """Where one person has memories: {namespace id: (memories, tombstones)}, one grouped query per table."""
    memories, tombstones = (
        dict(
            model.objects.filter(namespace_id__in=list(namespace_ids), user_id=user_id)
            .order_by()
            .values("namespace_id")
            .annotate(n=Count("id"))
            .values_list("namespace_id", "n")
        )
        for model in (Memory, Tombstone)
    )
    return {ns: (memories.get(ns, 0), tombstones.get(ns, 0)) for ns in memories.keys() | tombstones.keys()}
