"""Reads of long-term memory, shared by the API and the operators' console.

Every function starts from a namespace: a memory of another namespace is
indistinguishable from one that does not exist.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import connection
from django.db.models import BooleanField, Exists, OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from memoryadmin.conversations.models import Message, Session
from memoryadmin.conversations.queries import estimate_tokens, last_user_message, messages_within_budget
from memoryadmin.core.errors import InvalidInput, NotFound
from memoryadmin.core.pagination import Page, clamp_limit, decode_cursor, encode_cursor, keyset_page
from memoryadmin.core.rows import RowLoader
from memoryadmin.memories.models import (
    Memory,
    MemoryEvidence,
    MemoryRevision,
    MemoryStatus,
    MemoryType,
    Pin,
    Tombstone,
)
from memoryadmin.tenancy.models import Namespace

# A memory's access stats are written at most this often, so a hot memory
# does not turn every search into a stream of row updates.
ACCESS_TOUCH_INTERVAL = timedelta(minutes=15)
# set_config(..., true) lasts until the end of the transaction; only added when that
# transaction is the statement alone, never a caller's with other writes.
_ASYNCHRONOUS = "AND set_config('synchronous_commit', 'off', true) = 'off'"
MAX_QUERY_CHARS = 2000
MAX_ANY_TERMS = 64
# 0.5 ** 1000 is still a normal double; beyond it PostgreSQL reports underflow.
MAX_HALF_LIVES = 1000
STATUS_ANY = "any"


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


def _clean_status(status: str | None, default: str | None) -> str | None:
    if status is None:
        return default
    if status == STATUS_ANY:
        return None
    if status not in MemoryStatus.values:
        raise InvalidInput(
            f"status must be one of {', '.join([*MemoryStatus.values, STATUS_ANY])}", details={"field": "status"}
        )
    return status


def _clean_types(memory_types: Sequence[str] | None) -> list[str] | None:
    if memory_types is None:
        return None
    for memory_type in memory_types:
        if memory_type not in MemoryType.values:
            raise InvalidInput(
                f"memory_type must be one of {', '.join(MemoryType.values)}", details={"field": "memory_types"}
            )
    return list(memory_types)


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
) -> Page[Memory]:
    """Newest first, keyset-paginated on (created_at, id). All statuses unless `status` narrows it.

    Topics match when a memory has any of them; the created range is [after, before).
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
        qs = qs.filter(memory_type__in=_clean_types([memory_type]))
    if (wanted := _clean_status(status, None)) is not None:
        qs = qs.filter(status=wanted)
    if pinned is not None:
        qs = qs.filter(_pinned_filter(pinned))
    if topics:
        qs = qs.filter(topics__overlap=list(topics))
    if created_after is not None:
        qs = qs.filter(created_at__gte=created_after)
    if created_before is not None:
        qs = qs.filter(created_at__lt=created_before)
    return keyset_page(
        qs, tag="memories", key=("created_at", "id"), types=(datetime, uuid.UUID), cursor=cursor, limit=limit
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


@dataclass(frozen=True)
class Recency:
    """How search blends text rank with how recently a memory was used and made.

    recency = access_weight * 0.5^(days since last access / access_half_life_days)
            + creation_weight * 0.5^(days since creation / freshness_half_life_days)
    score   = text_weight * text rank + recency_weight * recency
    A memory never accessed counts from its creation.
    """

    enabled: bool = True
    access_half_life_days: float = 7.0
    freshness_half_life_days: float = 30.0
    access_weight: float = 0.6
    creation_weight: float = 0.4
    text_weight: float = 0.8
    recency_weight: float = 0.2

    def __post_init__(self) -> None:
        for name in ("access_half_life_days", "freshness_half_life_days"):
            if not 0 < getattr(self, name) <= 36500:
                raise InvalidInput(f"recency.{name} must be > 0 and <= 36500", details={"field": f"recency.{name}"})
        for name in ("access_weight", "creation_weight", "text_weight", "recency_weight"):
            if not 0 <= getattr(self, name) <= 1000:
                raise InvalidInput(f"recency.{name} must be between 0 and 1000", details={"field": f"recency.{name}"})


@dataclass
class SearchHit:
    memory: Memory
    score: float


_WORD = re.compile(r"\w+", re.UNICODE)

_COLUMNS = (
    "id, namespace_id, user_id, session_id, agent_id, text, memory_type, status, topics, entities, metadata, "
    "source, fingerprint, created_at, updated_at, last_accessed_at, access_count, revision, subject, attribute, "
    "event_date, stated_at, superseded_by, superseded_at"
)


_MEMORIES = RowLoader(Memory, [Memory._meta.get_field(name.strip()) for name in _COLUMNS.split(",")])


def _memories_from_sql(sql: str, params: list[Any], *, extra: Sequence[str]) -> list[Memory]:
    """Memory instances from a statement selecting `_COLUMNS` then `extra`, set as attributes."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    memories = []
    for row in rows:
        memory = _MEMORIES.load(row[: _MEMORIES.width])
        for name, value in zip(extra, row[_MEMORIES.width :], strict=True):
            setattr(memory, name, value)
        memories.append(memory)
    return memories


def _tsquery_sql(query: str, match: str) -> tuple[str, list[Any]]:
    if match == "websearch":
        return "websearch_to_tsquery('english', %s)", [query]
    # "any": each word may match on its own, for free text such as a user's last message.
    words = _WORD.findall(query)[:MAX_ANY_TERMS]
    return "to_tsquery('english', %s)", [" | ".join(words)]


def memories_search(
    namespace: Namespace,
    *,
    query: str,
    user_id: str | None = None,
    session_id: str | None = None,
    agent_id: str | None = None,
    memory_types: Sequence[str] | None = None,
    topics: Sequence[str] | None = None,
    entities: Sequence[str] | None = None,
    status: str | None = None,
    pinned: bool | None = None,
    created_after: datetime | None = None,
    created_before: datetime | None = None,
    recency: Recency | None = None,
    limit: int | None = 10,
    cursor: str | None = None,
    match: str = "websearch",
    touch: bool = True,
) -> Page[SearchHit]:
    """Full-text search, ranked, filtered exactly as asked (filters are never relaxed).

    `query` uses web-search syntax ("quoted phrases", or, -excluded); with
    match="any" every word counts on its own. Candidates are left out unless
    `status` asks for them ("candidate" or "any"). Topics and entities match
    when a memory has any of the given ones (an empty list constrains
    nothing). Results are keyset-paginated on
    (score, id); the cursor keeps the reference time so scores stay stable
    from page to page. With `touch`, returned memories get their access
    stats updated (at most once per memory per 15 minutes).
    """
    if not isinstance(query, str) or not query.strip():
        raise InvalidInput("query must not be empty", details={"field": "query"})
    if "\x00" in query or len(query) > MAX_QUERY_CHARS:
        raise InvalidInput(
            f"query must be at most {MAX_QUERY_CHARS} characters without NUL", details={"field": "query"}
        )
    if match not in ("websearch", "any"):
        raise InvalidInput("match must be websearch or any", details={"field": "match"})
    limit = clamp_limit(limit, default=10)
    recency = recency or Recency()
    wanted_status = _clean_status(status, MemoryStatus.ACTIVE)
    memory_types = _clean_types(memory_types)

    reference = timezone.now()
    after: tuple[float, uuid.UUID] | None = None
    if cursor:
        reference, score, last_id = decode_cursor(cursor, "search", (datetime, float, uuid.UUID))
        after = (score, last_id)

    tsquery, tsquery_params = _tsquery_sql(query, match)
    where = ["m.namespace_id = %s", "m.search_vector @@ q.tsq"]
    params: list[Any] = [namespace.pk]
    for column, value in (("user_id", user_id), ("session_id", session_id), ("agent_id", agent_id)):
        if value is not None:
            where.append(f"m.{column} = %s")
            params.append(value)
    if memory_types:
        where.append("m.memory_type = ANY(%s)")
        params.append(memory_types)
    if topics:
        where.append("m.topics && %s::varchar(100)[]")
        params.append(list(topics))
    if entities:
        where.append("m.entities && %s::varchar(200)[]")
        params.append(list(entities))
    if wanted_status is not None:
        where.append("m.status = %s")
        params.append(wanted_status)
    if pinned is not None:
        where.append(("" if pinned else "NOT ") + "EXISTS (SELECT 1 FROM memories_pin p WHERE p.memory_id = m.id)")
    if created_after is not None:
        where.append("m.created_at >= %s")
        params.append(created_after)
    if created_before is not None:
        where.append("m.created_at < %s")
        params.append(created_before)

    text_rank = "ts_rank_cd(m.search_vector, q.tsq, 32)::float8"
    if recency.enabled:
        score_sql = (
            f"%s * {text_rank} + %s * ("
            "  %s * power(0.5::float8, least(greatest(extract(epoch FROM (%s - coalesce(m.last_accessed_at,"
            "       m.created_at)))::float8 / 86400, 0) / %s, %s))"
            "+ %s * power(0.5::float8, least(greatest(extract(epoch FROM (%s - m.created_at))::float8 / 86400, 0)"
            "       / %s, %s)))"
        )
        score_params: list[Any] = [
            recency.text_weight,
            recency.recency_weight,
            recency.access_weight,
            reference,
            recency.access_half_life_days,
            MAX_HALF_LIVES,
            recency.creation_weight,
            reference,
            recency.freshness_half_life_days,
            MAX_HALF_LIVES,
        ]
    else:
        score_sql, score_params = text_rank, []

    outer_where = ""
    outer_params: list[Any] = []
    if after is not None:
        outer_where = "WHERE (ranked.score, ranked.id) < (%s, %s)"
        outer_params = [after[0], after[1]]

    # Every value is a parameter; only fixed fragments are formatted into the text.
    # Whether a hit is pinned is asked of the page alone: asked of every match, PostgreSQL
    # hashes the whole pin table once per search rather than probe its index a few times.
    sql = f"""
        SELECT page.*, EXISTS (SELECT 1 FROM memories_pin p WHERE p.memory_id = page.id) AS pinned
        FROM (
            SELECT * FROM (
                SELECT {", ".join("m." + c.strip() for c in _COLUMNS.split(","))},
                       ({score_sql})::float8 AS score
                FROM memories_memory m, (SELECT {tsquery} AS tsq) q
                WHERE {" AND ".join(where)}
            ) ranked
            {outer_where}
            ORDER BY ranked.score DESC, ranked.id DESC
            LIMIT %s
        ) page
        ORDER BY page.score DESC, page.id DESC
    """
    all_params = [*score_params, *tsquery_params, *params, *outer_params, limit + 1]
    touched_at = timezone.now()
    if touch:
        sql, all_params = _with_touch(sql, all_params, limit, touched_at)
    rows = _memories_from_sql(sql, all_params, extra=("score", "pinned", "touched") if touch else ("score", "pinned"))
    next_cursor = None
    if len(rows) > limit:
        rows = rows[:limit]
        next_cursor = encode_cursor("search", (reference, rows[-1].score, rows[-1].pk))
    if touch:
        for row in rows:
            if row.touched:
                row.last_accessed_at = touched_at
                row.access_count += 1
    return Page([SearchHit(memory=row, score=row.score) for row in rows], next_cursor)


def _with_touch(search_sql: str, params: list[Any], limit: int, now: datetime) -> tuple[str, list[Any]]:
    """The search and the access update of the page it returns, in one statement (one round trip).

    The update follows the rules of `memories_touch`: at most once per memory per interval,
    rows another transaction holds skipped, and no wait for the WAL flush when the statement
    is its own transaction. Each row says whether it was touched; the values are from before.
    """
    asynchronous = _ASYNCHRONOUS if connection.get_autocommit() else ""
    sql = f"""
        WITH hits AS MATERIALIZED ({search_sql}),
        touched AS (
            UPDATE memories_memory SET last_accessed_at = %s, access_count = access_count + 1
            WHERE id IN (
                SELECT id FROM memories_memory
                WHERE id IN (
                    -- The page first, then the rows of it that are due: the extra row fetched to
                    -- tell whether a next page exists is not shown, so it must not be touched (its
                    -- new recency would lift it above the cursor, out of every later page).
                    SELECT h.id FROM (SELECT id, last_accessed_at FROM hits ORDER BY score DESC, id DESC LIMIT %s) h
                    WHERE h.last_accessed_at IS NULL OR h.last_accessed_at < %s
                )
                ORDER BY id
                FOR UPDATE SKIP LOCKED
            ) {asynchronous}
            RETURNING id
        )
        SELECT hits.*, touched.id IS NOT NULL AS touched
        FROM hits LEFT JOIN touched ON touched.id = hits.id
        ORDER BY hits.score DESC, hits.id DESC
    """
    return sql, [*params, now, limit, now - ACCESS_TOUCH_INTERVAL]


def memories_touch(memories: Sequence[Memory]) -> None:
    """Record an access to these memories in one statement, at most once per memory per interval.

    Rows another transaction holds are skipped rather than waited for: an
    access stat is not worth blocking a search, and a fixed id order keeps
    concurrent searches from deadlocking on each other. When the statement is
    its own transaction, its commit does not wait for the WAL flush: an
    access stat lost in a crash is harmless, a flush on every search is not.
    """
    now = timezone.now()
    cutoff = now - ACCESS_TOUCH_INTERVAL
    due = [m.pk for m in memories if m.last_accessed_at is None or m.last_accessed_at < cutoff]
    if not due:
        return
    asynchronous = _ASYNCHRONOUS if connection.get_autocommit() else ""
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            UPDATE memories_memory SET last_accessed_at = %s, access_count = access_count + 1
            WHERE id IN (
                SELECT id FROM memories_memory
                WHERE id = ANY(%s) AND (last_accessed_at IS NULL OR last_accessed_at < %s)
                ORDER BY id
                FOR UPDATE SKIP LOCKED
            ) {asynchronous}
            RETURNING id
            """,
            [now, due, cutoff],
        )
        touched = {row[0] for row in cursor.fetchall()}
    for memory in memories:
        if memory.pk in touched:
            memory.last_accessed_at = now
            memory.access_count += 1


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
        hits = memories_search(
            namespace, query=text, user_id=session.user_id, limit=memory_limit, match="any", touch=True
        ).items
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
) -> Page[Tombstone]:
    """A namespace's tombstones, newest first, keyset on (created_at, id): the tombstone_ns_created index."""
    limit = clamp_limit(limit)
    qs = Tombstone.objects.filter(namespace=namespace)
    if user_id:
        qs = qs.filter(user_id=user_id)
    if reason:
        qs = qs.filter(reason=reason)
    return keyset_page(
        qs, tag="tombstones", key=("created_at", "id"), types=(datetime, int), cursor=cursor, limit=limit
    )


def tombstone_get(namespace: Namespace, tombstone_id: int) -> Tombstone:
    tombstone = Tombstone.objects.filter(namespace=namespace, pk=tombstone_id).first()
    if tombstone is None:
        raise NotFound("tombstone not found")
    return tombstone
