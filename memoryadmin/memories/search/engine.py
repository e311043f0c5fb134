"""`memories_search`: a question in, a page of memories ranked for it out, filtered exactly as asked.

Three statements whatever the data's size: the candidates (candidates.py), their rows, and
the page's pins with its access stats recorded. Between them, here: the vector side of a
person's search (their int8 vectors, compared exactly), the scoring and the ranking.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import numpy as np
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connection
from django.utils import timezone

from memoryadmin.core.metrics import SEARCHES, timed
from memoryadmin.core.pagination import Page, asked_tag, clamp_limit, decode_cursor, encode_cursor
from memoryadmin.core.replicas import read_connection
from memoryadmin.core.rows import RowLoader
from memoryadmin.memories.embeddings import embed_or_none
from memoryadmin.memories.models import Memory, MemoryStatus
from memoryadmin.memories.search.candidates import (
    FACT_COLUMNS,
    POOL,
    Facts,
    Pool,
    candidate_rows,
    candidates_fetch,
)
from memoryadmin.memories.search.query import Question, question_parse
from memoryadmin.memories.search.scope import Scope, TimeFilters, clean_status, clean_types, scope_for
from memoryadmin.memories.search.scoring import WEIGHTS, Candidate, Recency, explained, rank
from memoryadmin.memories.vectors import code_dtype, code_matrix
from memoryadmin.tenancy.models import Namespace

# set_config(..., true) lasts until the end of the transaction; only added when that
# transaction is the statement alone, never a caller's with other writes.
ASYNCHRONOUS = "AND set_config('synchronous_commit', 'off', true) = 'off'"
# A memory's access stats are written at most this often, so a hot memory
# does not turn every search into a stream of row updates.
ACCESS_TOUCH_INTERVAL = timedelta(minutes=15)
# A memory found only by its date needs at least this likeness to the question (cosine).
DATED_MIN_SIMILARITY = 0.1

# Every stored column but the generated search vector, which no page shows: derived from the model.
_MEMORIES = RowLoader(Memory, [f for f in Memory._meta.concrete_fields if f.name != "search_vector"])
_FACTS = len(FACT_COLUMNS)


@dataclass
class SearchHit:
    memory: Memory
    score: float
    explain: dict[str, Any] | None = None


@timed(SEARCHES)
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
    times: TimeFilters | None = None,
    as_of: datetime | None = None,
    recency: Recency | None = None,
    limit: int | None = 10,
    cursor: str | None = None,
    syntax: str = "natural",
    explain: bool = False,
    touch: bool = True,
    weights: dict[str, float] | None = None,
) -> Page[SearchHit]:
    """Memories ranked for `query`, filtered exactly as asked (filters are never relaxed).

    `syntax="natural"` (the default) takes a question or any text as people write it, its
    dates and periods ("in August 2023", "last week") a preference for memories said or
    happening then; `syntax="websearch"` takes web-search syntax ("quoted phrases", or,
    -excluded) and returns only its matches. Candidates and superseded memories are left out
    unless `status` asks for them ("candidate", "superseded" or "any"); with `as_of`, the
    search answers as of that time: memories said by then, superseded ones included when
    their replacement was said later, and relative dates counted from it. Topics and entities
    match when a memory has any of the given ones. Results are keyset-paginated on
    (score, id); the cursor keeps the reference time so scores stay stable from page to
    page. With `explain`, each hit carries its components. With `touch`, returned memories
    get their access stats updated (at most once per memory per 15 minutes). `weights`
    replaces the components' weights, for ablations (bench/retrieval.py): a component
    weighted 0 brings no candidates, and vector candidates then need no minimum similarity.
    """
    limit = clamp_limit(limit, default=10)
    recency = recency or Recency()
    now = timezone.now()
    # Recency counts from now (a memory's life in the store); the question's relative dates from as_of.
    reference = now
    after: tuple[float, uuid.UUID] | None = None
    # A page's cursor goes on only with the search that ranked it.
    tag = asked_tag(
        "search",
        query=query,
        syntax=syntax,
        scope=(user_id, session_id, agent_id, status, pinned),
        labels=[sorted(memory_types or ()), sorted(topics or ()), sorted(entities or ())],
        times=(created_after, created_before, times, as_of),
        recency=recency,
        weights=weights,
    )
    if cursor:
        reference, score, last_id = decode_cursor(cursor, tag, (datetime, float, uuid.UUID))
        after = (score, last_id)
    question = question_parse(query, syntax=syntax, reference=(as_of or reference).date())
    if created_after is not None or created_before is not None:
        base = times or TimeFilters()
        times = TimeFilters(
            stated_after=base.stated_after,
            stated_before=base.stated_before,
            event_after=base.event_after,
            event_before=base.event_before,
            created_after=created_after,
            created_before=created_before,
        )
    scope = scope_for(
        namespace,
        user_id=user_id,
        session_id=session_id,
        agent_id=agent_id,
        memory_types=clean_types(memory_types),
        topics=topics,
        entities=entities,
        status=clean_status(status, MemoryStatus.ACTIVE),
        pinned=pinned,
        times=times,
        as_of=as_of,
    )
    weights = {**WEIGHTS, **(weights or {})}
    embedded = embed_or_none([question.about])
    model = embedded[0].model if embedded else None
    vector = embedded[1][0] if embedded else None
    lexical = weights["fulltext"] > 0 or weights["terms"] > 0
    with_vectors = vector is not None and weights["vector"] > 0
    pool = candidates_fetch(
        scope,
        question,
        model=model,
        vector=vector,
        with_vectors=with_vectors,
        population_from_codes=not scope.narrow,
    )
    candidates = _gathered(pool, scope, question, model, vector, lexical, with_vectors)
    ranked = rank(
        candidates,
        words=question.words,
        categories=[bool(m) for m in question.members],
        names=question.names,
        asked_sentiment=question.sentiment,
        idf=pool.idf,
        vector=vector,
        periods=question.periods,
        recency=recency,
        reference=reference,
        with_matches=explain,
        weights=weights,
        asks_period=question.asks_period,
    )
    if after is not None:
        ranked = [c for c in ranked if (c.score, c.id) < after]
    page = ranked[: limit + 1]
    next_cursor = None
    if len(page) > limit:
        page = page[:limit]
        next_cursor = encode_cursor(tag, (reference, page[-1].score, page[-1].id))
    # The page's access is recorded only when one of its memories is due (as its row read a moment
    # ago says): a person searched again and again reads, and writes nothing.
    due = touch and any(_touch_due(c.facts.last_accessed_at, now) for c in page)
    memories = _page_rows([c.id for c in page], due, now)
    hits = []
    for candidate in page:
        memory = memories.get(candidate.id)
        if memory is None:
            # Forgotten between the statements.
            continue
        hits.append(SearchHit(memory=memory, score=candidate.score, explain=explained(candidate) if explain else None))
    return Page(hits, next_cursor)


def _gathered(
    pool: Pool,
    scope: Scope,
    question: Question,
    model: str | None,
    vector: np.ndarray | None,
    lexical: bool,
    with_vectors: bool,
) -> list[Candidate]:
    """Every candidate of the pool with its row, its components so far and its vector."""
    syntax = question.syntax
    floor = settings.SEARCH_MIN_SIMILARITY if lexical else -1.0
    fulltext = pool.fulltext if lexical else {}
    similar: dict[uuid.UUID, float] = {}
    embeddings: dict[uuid.UUID, np.ndarray] = {}
    person = pool.person
    if person is not None and vector is not None:
        similarity = person.similarity(vector)
        # The vectors of the full-text and dated candidates, found by id in the sorted ids (no UUID object
        # is made for the person's other memories).
        known = [*fulltext, *pool.dated, *pool.attributed]
        for pk, position in zip(known, person.positions([pk.bytes for pk in known]), strict=True):
            if position is not None:
                embeddings[pk] = person.vector(position)
                similar[pk] = float(similarity[position])
        if with_vectors and syntax == "natural":
            # The nearest others above the floor; twice the pool when the scope may refuse some (they were
            # read without their memories).
            wanted = POOL if not scope.narrow else 2 * POOL
            reach = min(len(similarity), wanted + len(fulltext))
            nearest = np.argpartition(-similarity, reach - 1)[:reach] if reach < len(similarity) else np.arange(reach)
            picked = 0
            for i in nearest[np.argsort(-similarity[nearest], kind="stable")]:
                if similarity[i] < floor or picked >= wanted:
                    break
                pk = uuid.UUID(bytes=person.ids[i].tobytes())
                if pk not in fulltext:
                    similar[pk] = float(similarity[i])
                    embeddings[pk] = person.vector(i)
                    picked += 1
    if with_vectors and syntax == "natural":
        for pk, value in pool.nearest.items():
            if value >= floor:
                similar.setdefault(pk, value)
    ids = list(dict.fromkeys([*fulltext, *similar, *pool.dated, *pool.attributed]))
    attributed = set(pool.attributed)
    # Found by their date alone, they must be relevant too, unless the question asks for that time alone.
    dated_only = set(pool.dated).difference(fulltext) if lexical and not question.asks_period else set()
    # Without a person's vectors at hand, each candidate's code comes with its row.
    codes_needed = model is not None and pool.person is None
    anchors = _anchors(fulltext, similar) if lexical and with_vectors and person is not None else None
    rows = candidate_rows(ids, scope, model=model if codes_needed else None, anchors=anchors)
    mates = [row[0] for row in rows if row[-1]]
    if mates and person is not None and vector is not None:
        for pk, position in zip(mates, person.positions([pk.bytes for pk in mates]), strict=True):
            if position is not None:
                embeddings[pk] = person.vector(position)
    candidates = []
    dimension = len(vector) if vector is not None else 0
    for row in rows:
        facts = Facts(*row[:_FACTS])
        candidate = Candidate(facts.id, facts, fulltext=fulltext.get(facts.id, 0.0), mate=row[-1])
        embedding = embeddings.get(facts.id)
        code = row[_FACTS]
        if embedding is None and code is not None and vector is not None:
            records = np.frombuffer(bytes(16) + bytes(code), dtype=code_dtype(dimension))
            if len(records) == 1:
                embedding = code_matrix(records)[0]
        candidate.embedding = embedding
        if facts.id in similar:
            candidate.vector = similar[facts.id]
        elif embedding is not None:
            candidate.vector = float(embedding @ vector)  # type: ignore[operator]
        if not lexical and candidate.vector is None:
            continue
        candidate.attribute_asked = facts.id in attributed
        if (
            (candidate.mate or facts.id in dated_only)
            and not candidate.attribute_asked
            and (candidate.vector is None or candidate.vector < DATED_MIN_SIMILARITY)
        ):
            # A date is a preference among relevant memories: said on the day asked about is no reason
            # to be found on its own ("Can I eat peanuts tonight?" is not about where Alice lives).
            continue
        candidates.append(candidate)
    return candidates


def _anchors(fulltext: dict[uuid.UUID, float], similar: dict[uuid.UUID, float]) -> list[uuid.UUID]:
    """The likely best matches whose sittings are read too: the best by full text and the nearest by vector."""
    anchors = [next(iter(fulltext))] if fulltext else []
    if similar:
        anchors.append(max(similar, key=similar.__getitem__))
    return list(dict.fromkeys(anchors))


def _touch_due(last_accessed_at: datetime | None, now: datetime) -> bool:
    """A memory's access is recorded at most once per ACCESS_TOUCH_INTERVAL (the SQL checks the same)."""
    return last_accessed_at is None or last_accessed_at < now - ACCESS_TOUCH_INTERVAL


def _page_rows(ids: list[uuid.UUID], touch: bool, now: datetime) -> dict[uuid.UUID, Memory]:
    """The page's memories with `pinned`, and (with `touch`) their access recorded: one statement.

    The access update is at most once per memory per interval, skips rows another transaction
    holds, and waits for no WAL flush when the statement is its own transaction. The values
    returned are from before it.
    """
    if not ids:
        return {}
    reader = read_connection()
    if touch and reader.alias != DEFAULT_DB_ALIAS:
        # The page from a replica; its access stats written on the primary.
        found = _page_rows(ids, False, now)
        memories_touch(list(found.values()))
        return found
    columns = ", ".join(_MEMORIES.columns("m"))
    page_sql = f"""
        SELECT {columns}, EXISTS (SELECT 1 FROM memories_pin p WHERE p.memory_id = m.id) AS pinned
        FROM memories_memory m WHERE m.id = ANY(%s)
    """
    params: list[Any] = [ids]
    if touch:
        asynchronous = ASYNCHRONOUS if connection.get_autocommit() else ""
        sql = f"""
            WITH page AS MATERIALIZED ({page_sql}),
            touched AS (
                UPDATE memories_memory SET last_accessed_at = %s, access_count = access_count + 1
                WHERE id IN (
                    SELECT id FROM memories_memory
                    WHERE id IN (SELECT p.id FROM page p
                                 WHERE p.last_accessed_at IS NULL OR p.last_accessed_at < %s)
                    ORDER BY id
                    FOR UPDATE SKIP LOCKED
                ) {asynchronous}
                RETURNING id
            )
            SELECT page.*, touched.id IS NOT NULL FROM page LEFT JOIN touched ON touched.id = page.id
        """
        params += [now, now - ACCESS_TOUCH_INTERVAL]
    else:
        sql = page_sql
    with reader.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    found = {}
    for row in rows:
        memory = _MEMORIES.load(row[: _MEMORIES.width])
        memory.pinned = row[_MEMORIES.width]
        if touch and row[_MEMORIES.width + 1]:
            memory.last_accessed_at = now
            memory.access_count += 1
        found[memory.pk] = memory
    return found


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
    due = [m.pk for m in memories if _touch_due(m.last_accessed_at, now)]
    if not due:
        return
    asynchronous = ASYNCHRONOUS if connection.get_autocommit() else ""
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
