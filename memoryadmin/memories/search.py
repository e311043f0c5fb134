"""Search: questions as people write them, answered from full text and embeddings together.

A search gathers candidates within the scope (namespace, person and every filter, never
relaxed), scores each on three components, fuses them, and blends in recency:

- `fulltext`: the share of the query's words the memory contains (stemmed, PostgreSQL's
  `english` configuration), each word weighted by its inverse document frequency among
  the memories in scope (of a person; across a namespace, among those matching any word),
  so a name most memories repeat counts for little and a rare word for much. In `natural`
  syntax any word may match; in `websearch` syntax the query is `websearch_to_tsquery`,
  only its matches are candidates, and frequencies are counted among them.
- `vector`: the cosine similarity of the memory's embedding and the query's, the query's
  moved towards its FEEDBACK best candidates (pseudo-relevance feedback, Rocchio's: a
  question's vector is mostly its question words, its best answers' vectors say what it
  is about).
- `terms`: for each query word, its closest word in the memory by WordLlama word vectors
  (1.0 for the same word, less for a related one: "pet" ~ "dog"), weighted as in `fulltext`.

relevance = 0.3 * fulltext + 0.2 * vector + 0.5 * terms (a calibrated blend: each component is
in [0, 1]; the weights were chosen on LoCoMo conversations, see docs/benchmarks.md), and
score = text_weight * relevance + recency_weight * recency, as before.

Calendar dates in a query ("on 3 June, 2023", "in December 2023") say when, not what: a
memory's text seldom repeats them, so they are left out of the query's words and of the
text embedded for it.

Candidates are the best POOL memories by `fulltext` and, in `natural` syntax, the POOL
nearest by vector with a similarity of at least SEARCH_MIN_SIMILARITY. Vectors are compared
in PostgreSQL with pgvector when the database has it (HNSW for searches without a person);
without it, exactly, here, over the person's own memories, and a search without a person
takes its candidates from full text alone.

One module, though it is longer than most: the scope, the candidates' SQL (one statement
whose half is the full-text and vector pools), their scoring and the ranking all read and
write the same private `_Scope` and `_Candidate`, and a change to one component's
arithmetic is a change to the others' weights; split, the pieces would have to make those
private structures public and be read together anyway.
"""

from __future__ import annotations

import math
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

import numpy as np
from django.conf import settings
from django.db import connection
from django.utils import timezone

from memoryadmin.core.errors import InvalidInput
from memoryadmin.core.pagination import Page, clamp_limit, decode_cursor, encode_cursor
from memoryadmin.core.rows import RowLoader
from memoryadmin.memories.embeddings import content_words, embed_or_none, vector_from_bytes, word_vectors
from memoryadmin.memories.models import Memory, MemoryStatus, MemoryType
from memoryadmin.memories.vectors import hnsw_index_exists, pgvector, vector_literal
from memoryadmin.tenancy.models import Namespace

MAX_QUERY_CHARS = 2000
MAX_QUERY_WORDS = 64
# 0.5 ** 1000 is still a normal double; beyond it the decay underflows.
MAX_HALF_LIVES = 1000
STATUS_ANY = "any"
SYNTAXES = ("natural", "websearch")
# Candidates taken from each side (full text, vectors) before they are scored together.
POOL = 100
WEIGHTS = {"fulltext": 0.3, "vector": 0.2, "terms": 0.5}
# Pseudo-relevance feedback: the query's vector plus FEEDBACK_WEIGHT times the mean vector of the
# FEEDBACK best candidates of a first ranking (common Rocchio proportions, not tuned to a data set).
FEEDBACK = 3
FEEDBACK_WEIGHT = 0.5
# set_config(..., true) lasts until the end of the transaction; only added when that
# transaction is the statement alone, never a caller's with other writes.
_ASYNCHRONOUS = "AND set_config('synchronous_commit', 'off', true) = 'off'"
# A memory's access stats are written at most this often, so a hot memory
# does not turn every search into a stream of row updates.
ACCESS_TOUCH_INTERVAL = timedelta(minutes=15)
_WORD = re.compile(r"\w+", re.UNICODE)
_MONTH = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december"
    r"|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?"
)
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
_YEAR = r"(?:1[89]|2[01])\d\d"
# "3 June, 2023", "June 3rd 2023", "December 2023", "June 3", "2023", with a leading "on"/"in"/"of".
# A month name alone stays ("May" is also a verb).
_CALENDAR_DATE = re.compile(
    rf"(?:\b(?:on|in|of)\s+)?\b(?:{_DAY}\s+{_MONTH},?(?:\s+{_YEAR})?|{_MONTH},?\s+{_YEAR}"
    rf"|{_MONTH}\s+{_DAY}(?:,?\s+{_YEAR})?|{_YEAR})\b",
    re.IGNORECASE,
)

# Every stored column but the generated search vector, which no page shows: derived from the model.
_MEMORIES = RowLoader(Memory, [f for f in Memory._meta.concrete_fields if f.name != "search_vector"])


@dataclass(frozen=True)
class Recency:
    """How search blends relevance with how recently a memory was used and made.

    recency = access_weight * 0.5^(days since last access / access_half_life_days)
            + creation_weight * 0.5^(days since creation / freshness_half_life_days)
    score   = text_weight * relevance + recency_weight * recency
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

    def of(self, reference: datetime, created_at: datetime, last_accessed_at: datetime | None) -> float:
        def decay(since: datetime, half_life: float) -> float:
            days = max((reference - since).total_seconds() / 86400, 0.0)
            return 0.5 ** min(days / half_life, MAX_HALF_LIVES)

        accessed = last_accessed_at or created_at
        return self.access_weight * decay(accessed, self.access_half_life_days) + self.creation_weight * decay(
            created_at, self.freshness_half_life_days
        )


@dataclass
class SearchHit:
    memory: Memory
    score: float
    explain: dict[str, Any] | None = None


@dataclass
class _Candidate:
    id: uuid.UUID
    fulltext: float = 0.0
    vector: float | None = None
    terms: float = 0.0
    text: str = ""
    created_at: datetime | None = None
    last_accessed_at: datetime | None = None
    relevance: float = 0.0
    recency: float | None = None
    score: float = 0.0
    from_fulltext: bool = False
    # The memory's embedding (read with the candidates, for feedback) and its similarity to the query alone.
    embedding: np.ndarray | None = None
    vector_query: float | None = None
    matches: list[dict[str, Any]] = field(default_factory=list)


def clean_status(status: str | None, default: str | None) -> str | None:
    if status is None:
        return default
    if status == STATUS_ANY:
        return None
    if status not in MemoryStatus.values:
        raise InvalidInput(
            f"status must be one of {', '.join([*MemoryStatus.values, STATUS_ANY])}", details={"field": "status"}
        )
    return status


def clean_types(memory_types: Sequence[str] | None) -> list[str] | None:
    if memory_types is None:
        return None
    for memory_type in memory_types:
        if memory_type not in MemoryType.values:
            raise InvalidInput(
                f"memory_type must be one of {', '.join(MemoryType.values)}", details={"field": "memory_types"}
            )
    return list(memory_types)


@dataclass
class _Scope:
    """The WHERE clause every candidate statement shares (alias `m`), with its parameters."""

    sql: str
    params: list[Any]
    namespace_id: int
    user_id: str | None
    # Filters beyond the namespace, the person and the default status: a person's vector scan then
    # joins each vector to its memory; otherwise it reads the vectors alone and the few it picks
    # are checked against the scope when read.
    narrow: bool = False


def _scope(
    namespace: Namespace,
    *,
    user_id: str | None,
    session_id: str | None,
    agent_id: str | None,
    memory_types: list[str] | None,
    topics: Sequence[str] | None,
    entities: Sequence[str] | None,
    status: str | None,
    pinned: bool | None,
    created_after: datetime | None,
    created_before: datetime | None,
) -> _Scope:
    where = ["m.namespace_id = %s"]
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
    if status is not None:
        where.append("m.status = %s")
        params.append(status)
    if pinned is not None:
        where.append(("" if pinned else "NOT ") + "EXISTS (SELECT 1 FROM memories_pin p WHERE p.memory_id = m.id)")
    if created_after is not None:
        where.append("m.created_at >= %s")
        params.append(created_after)
    if created_before is not None:
        where.append("m.created_at < %s")
        params.append(created_before)
    basic = 1 + (user_id is not None) + (status is not None)
    narrow = len(where) > basic or status not in (None, MemoryStatus.ACTIVE)
    return _Scope(" AND ".join(where), params, namespace.pk, user_id, narrow)


def _candidates(
    scope: _Scope,
    query: str,
    words: list[str],
    syntax: str,
    model: str | None,
    vector: np.ndarray | None,
    weights: dict[str, float],
) -> tuple[dict[uuid.UUID, _Candidate], list[float | None]]:
    """The candidates with what scoring needs, and each query word's weight: one statement.

    Its first part takes the best POOL memories by `fulltext`: the words as tsqueries, the
    memories in scope matching the query, each word's inverse document frequency (among the
    person's memories in scope, or among the matches), and each memory's weighted share. Its
    second part, in `natural` syntax, takes the POOL nearest by vector: with pgvector, ranked
    by the database (by HNSW when there is no person to start from and the model has an
    index); without it, every vector of the person, compared here, exactly. Without pgvector
    a search without a person has no second part. Each word's weight is None when PostgreSQL
    does not index it (a stop word).
    """
    if syntax == "websearch":
        tsquery, tsquery_params = "websearch_to_tsquery('english', %s)", [query]
    else:
        # Any word may match: the words' own queries, OR-ed (their text form is already normalized).
        tsquery = "(SELECT string_agg('(' || w.tsq::text || ')', ' | ')::tsquery FROM words w WHERE w.indexed)"
        tsquery_params = []
    # A word's rarity among the person's memories in scope, all of which full text sees in natural syntax
    # (a word's matches are all candidates). Across a namespace, counting it would cost more than the
    # search: among the matches, as in websearch syntax, whose matches are not all the word's.
    by_scope = syntax == "natural" and scope.user_id is not None
    population = f"memories_memory m WHERE {scope.sql}" if by_scope else "hits"
    with_vector = model is not None and vector is not None
    database_compares = with_vector and pgvector()
    literal = vector_literal(vector) if database_compares else None  # type: ignore[arg-type]
    if database_compares:
        similarity, similarity_params = "1 - (v.embedding <=> %s::vector)", [literal]
    else:
        similarity, similarity_params = "NULL::float8", []
    # Without pgvector, a person's vectors all come with the second part; without a person, here.
    # Without pgvector the full-text candidates bring their own vectors, compared here exactly.
    # Every candidate brings its vector, for feedback: pgvector's in its binary form.
    sent = "vector_send(v.embedding)" if database_compares else "v.embedding"
    raw = sent if with_vector else "NULL::bytea"
    vector_join = "LEFT JOIN memories_memoryvector v ON v.memory_id = m.id AND v.model = %s" if with_vector else ""
    vector_join_params = [model] if with_vector else []
    sql = f"""
        WITH words AS MATERIALIZED (
            SELECT w.i, w.tsq, numnode(w.tsq) > 0 AS indexed
            FROM (SELECT i, plainto_tsquery('english', word) AS tsq
                  FROM unnest(%s::text[]) WITH ORDINALITY AS u(word, i)) w
        ),
        q AS MATERIALIZED (SELECT {tsquery} AS tsq),
        hits AS MATERIALIZED (
            SELECT m.id, m.search_vector AS sv FROM memories_memory m, q
            WHERE {scope.sql} AND m.search_vector @@ q.tsq
        ),
        weights AS MATERIALIZED (
            SELECT w.i, w.tsq, w.indexed,
                   CASE WHEN w.indexed THEN ln(1 + (n.n - d.df + 0.5) / (d.df + 0.5)) END AS idf
            FROM words w
            CROSS JOIN (SELECT count(*) AS n FROM {population}) n
            CROSS JOIN LATERAL (SELECT count(*) AS df FROM hits h WHERE w.indexed AND h.sv @@ w.tsq) d
        ),
        ft AS (
            SELECT h.id,
                   coalesce(sum(wt.idf) FILTER (WHERE h.sv @@ wt.tsq), 0)
                   / nullif((SELECT sum(idf) FROM weights), 0) AS share
            FROM hits h CROSS JOIN weights wt
            WHERE wt.indexed
            GROUP BY h.id
            ORDER BY share DESC NULLS LAST, h.id
            LIMIT %s
        )
        SELECT 'f', m.id, ft.share, (SELECT array_agg(idf ORDER BY i) FROM weights),
               m.text, m.created_at, m.last_accessed_at, {similarity}, {raw}
        FROM ft JOIN memories_memory m ON m.id = ft.id {vector_join}
    """
    params: list[Any] = [
        words,
        *tsquery_params,
        *scope.params,
        *(scope.params if by_scope else []),
        POOL,
        *similarity_params,
        *vector_join_params,
    ]
    nearest = (
        syntax == "natural"
        and with_vector
        and weights["vector"] > 0
        and (database_compares or scope.user_id is not None)
    )
    if nearest and database_compares:
        person, person_params = ("AND v.user_id = %s", [scope.user_id]) if scope.user_id is not None else ("", [])
        if scope.user_id is None and hnsw_index_exists(model):  # type: ignore[arg-type]
            # The HNSW index's expression; hnsw.ef_search and iterative scans are set per connection (settings).
            distance = f"(v.embedding::vector({len(vector)})) <=> %s::vector({len(vector)})"  # type: ignore[arg-type]
        else:
            distance = "v.embedding <=> %s::vector"
        sql += f"""
        UNION ALL
        (SELECT 'v', m.id, NULL, NULL, m.text, m.created_at, m.last_accessed_at, 1 - ({distance}), {sent}
         FROM memories_memoryvector v JOIN memories_memory m ON m.id = v.memory_id
         WHERE v.model = %s AND v.namespace_id = %s {person} AND {scope.sql}
         ORDER BY {distance}
         LIMIT %s)
        """
        params += [literal, model, scope.namespace_id, *person_params, *scope.params, literal, POOL]
    elif nearest:
        # Only ids and vectors: the person's whole scan picks the nearest, and the few of those that are
        # not full-text candidates are read afterwards.
        join, join_sql, join_params = "", "", []
        if scope.narrow:
            join, join_sql, join_params = (
                "JOIN memories_memory m ON m.id = v.memory_id",
                f"AND {scope.sql}",
                scope.params,
            )
        sql += f"""
        UNION ALL
        SELECT 'v', v.memory_id, NULL, NULL, NULL, NULL, NULL, NULL, v.embedding
        FROM memories_memoryvector v {join}
        WHERE v.namespace_id = %s AND v.user_id = %s AND v.model = %s {join_sql}
        """
        params += [scope.namespace_id, scope.user_id, model, *join_params]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()

    candidates: dict[uuid.UUID, _Candidate] = {}
    idf: list[float | None] = [None] * len(words)
    # The vector side: (id, similarity) from the database, or (id, raw vector) of a person's scan.
    near_ids: list[uuid.UUID] = []
    near_similarity: list[float] = []
    near_rows: dict[uuid.UUID, tuple[str, datetime, datetime | None, bytes | None]] = {}
    scan_ids: list[uuid.UUID] = []
    scan_raw: list[bytes] = []
    for kind, pk, share, word_weights, text, created_at, last_accessed_at, similar, stored in rows:
        if kind == "f":
            candidate = candidates[pk] = _Candidate(
                pk, text=text, created_at=created_at, last_accessed_at=last_accessed_at, from_fulltext=True
            )
            candidate.fulltext = float(share or 0.0)
            idf = [None if w is None else float(w) for w in word_weights]
            if stored is not None and vector is not None:
                candidate.embedding = _embedding(stored, len(vector), database_compares)
            if similar is not None:
                candidate.vector = float(similar)
            elif candidate.embedding is not None:
                candidate.vector = float(candidate.embedding @ vector)  # type: ignore[operator]
        elif similar is not None:
            near_ids.append(pk)
            near_similarity.append(float(similar))
            near_rows[pk] = (text, created_at, last_accessed_at, stored)
        elif stored is not None:
            scan_ids.append(pk)
            scan_raw.append(stored)
    lexical = weights["fulltext"] > 0 or weights["terms"] > 0
    floor = settings.SEARCH_MIN_SIMILARITY if lexical else -1.0
    if not lexical:
        candidates = {}
    if near_ids:
        # The database's exact similarities: the nearest POOL, and only those similar enough, join.
        for pk, similar in zip(near_ids[:POOL], near_similarity[:POOL], strict=True):
            if similar >= floor and pk not in candidates:
                text, created_at, last_accessed_at, stored = near_rows[pk]
                candidates[pk] = _Candidate(
                    pk,
                    vector=similar,
                    text=text,
                    created_at=created_at,
                    last_accessed_at=last_accessed_at,
                    embedding=_embedding(stored, len(vector), database_compares),  # type: ignore[arg-type]
                )
    elif scan_ids and vector is not None:
        # Picked from the person's vectors alone (see _Scope.narrow): twice the pool, for those out of scope.
        _scan(candidates, scan_ids, scan_raw, vector, floor, POOL if scope.narrow else 2 * POOL)
    unread = [c for c in candidates.values() if c.created_at is None]
    if unread:
        _read_candidates(unread, scope)
        # A candidate not read is out of scope (or was forgotten meanwhile).
        candidates = {pk: c for pk, c in candidates.items() if c.created_at is not None}
    for pk in [pk for pk, c in candidates.items() if not c.from_fulltext and (c.vector is None or c.vector < floor)]:
        del candidates[pk]
    return candidates, idf


def _embedding(raw: bytes | None, dimension: int, sent_by_pgvector: bool) -> np.ndarray | None:
    """A stored vector as read: little-endian float32 `bytea`, or pgvector's binary form.

    pgvector sends a vector as its dimension and a reserved word (two int16), then big-endian float4s.
    """
    if raw is None:
        return None
    stored = np.frombuffer(raw, dtype=">f4", offset=4) if sent_by_pgvector else vector_from_bytes(raw)
    return np.asarray(stored, dtype=np.float32) if len(stored) == dimension else None


def _scan(
    candidates: dict[uuid.UUID, _Candidate],
    ids: list[uuid.UUID],
    raw: list[bytes],
    vector: np.ndarray,
    floor: float,
    pool: int,
) -> None:
    """Add, from a person's vectors compared exactly, the nearest `pool` at or above the floor not yet candidates."""
    matrix = np.frombuffer(b"".join(raw), dtype="<f4")
    if matrix.size != len(ids) * len(vector):
        return
    matrix = matrix.reshape(len(ids), len(vector))
    similarity = matrix @ vector
    picked = 0
    for i in np.argsort(-similarity, kind="stable"):
        if similarity[i] < floor or picked >= pool:
            break
        if ids[i] not in candidates:
            candidates[ids[i]] = _Candidate(ids[i], vector=float(similarity[i]), embedding=matrix[i])
            picked += 1


def _read_candidates(unread: list[_Candidate], scope: _Scope) -> None:
    """Text and times of the candidates known so far by their vector alone, for those in scope."""
    by_id = {c.id: c for c in unread}
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT m.id, m.text, m.created_at, m.last_accessed_at FROM memories_memory m "
            f"WHERE m.id = ANY(%s) AND {scope.sql}",
            [list(by_id), *scope.params],
        )
        for pk, text, created_at, last_accessed_at in cursor.fetchall():
            candidate = by_id[pk]
            candidate.text, candidate.created_at, candidate.last_accessed_at = text, created_at, last_accessed_at


@lru_cache(maxsize=50_000)
def _text_words(text: str) -> tuple[str, ...]:
    """A memory's content words (cached: the same memories come back search after search)."""
    return tuple(content_words(text, limit=200))


# A memory word at least this close to a query word is shown as a reason for the match.
_SHOWN_SIMILARITY = 0.5


def _term_similarity(
    words: list[str], weights: np.ndarray, texts: list[str], *, with_matches: bool = False
) -> tuple[np.ndarray, list[list[dict[str, Any]]]]:
    """For each text: the weighted mean, over query words, of the closest word's similarity.

    With `with_matches`, also the query words each text comes close to, and by which of its words.
    """
    scores = np.zeros(len(texts), dtype=np.float64)
    matches: list[list[dict[str, Any]]] = [[] for _ in texts]
    if not words or not texts or weights.sum() <= 0:
        return scores, matches
    per_text = [_text_words(text) for text in texts]
    flat = [w for text_words in per_text for w in text_words]
    if not flat:
        return scores, matches
    matrix, rows = word_vectors.rows([*words, *flat])
    vectors = matrix[rows]
    similarity = np.clip(vectors[: len(words)] @ vectors[len(words) :].T, 0.0, 1.0)
    starts, start = [], 0
    for text_words in per_text:
        starts.append(start)
        start += len(text_words)
    filled = [i for i, text_words in enumerate(per_text) if text_words]
    closest = np.maximum.reduceat(similarity, [starts[i] for i in filled], axis=1)
    scores[filled] = (weights[:, None] * closest).sum(axis=0) / weights.sum()
    if with_matches:
        for column, i in enumerate(filled):
            segment = similarity[:, starts[i] : starts[i] + len(per_text[i])]
            best = segment.argmax(axis=1)
            found = [
                {"query": word, "memory": per_text[i][best[j]], "similarity": round(float(closest[j, column]), 3)}
                for j, word in enumerate(words)
                if closest[j, column] >= _SHOWN_SIMILARITY
            ]
            found.sort(key=lambda m: -m["similarity"])
            matches[i] = found
    return scores, matches


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
    syntax: str = "natural",
    explain: bool = False,
    touch: bool = True,
    weights: dict[str, float] | None = None,
) -> Page[SearchHit]:
    """Memories ranked for `query`, filtered exactly as asked (filters are never relaxed).

    `syntax="natural"` (the default) takes a question or any text as people write it;
    `syntax="websearch"` takes web-search syntax ("quoted phrases", or, -excluded) and
    returns only its matches. Candidates are left out unless `status` asks for them
    ("candidate" or "any"). Topics and entities match when a memory has any of the given
    ones (an empty list constrains nothing). Results are keyset-paginated on (score, id);
    the cursor keeps the reference time so scores stay stable from page to page. With
    `explain`, each hit carries its components. With `touch`, returned memories get their
    access stats updated (at most once per memory per 15 minutes). `weights` replaces the
    components' weights, for ablations (bench/retrieval.py): a component weighted 0 brings
    no candidates, and vector candidates then need no minimum similarity.
    """
    if not isinstance(query, str) or not query.strip():
        raise InvalidInput("query must not be empty", details={"field": "query"})
    if "\x00" in query or len(query) > MAX_QUERY_CHARS:
        raise InvalidInput(
            f"query must be at most {MAX_QUERY_CHARS} characters without NUL", details={"field": "query"}
        )
    if syntax not in SYNTAXES:
        raise InvalidInput(f"syntax must be one of {', '.join(SYNTAXES)}", details={"field": "syntax"})
    limit = clamp_limit(limit, default=10)
    recency = recency or Recency()
    scope = _scope(
        namespace,
        user_id=user_id,
        session_id=session_id,
        agent_id=agent_id,
        memory_types=clean_types(memory_types),
        topics=topics,
        entities=entities,
        status=clean_status(status, MemoryStatus.ACTIVE),
        pinned=pinned,
        created_after=created_after,
        created_before=created_before,
    )
    reference = timezone.now()
    after: tuple[float, uuid.UUID] | None = None
    if cursor:
        reference, score, last_id = decode_cursor(cursor, "search", (datetime, float, uuid.UUID))
        after = (score, last_id)

    # The words that say what the query is about, its dates left out; with none (a query of stop words or
    # a date only), its plain words.
    about = _CALENDAR_DATE.sub(" ", query)
    words = content_words(about, limit=MAX_QUERY_WORDS)
    if not words:
        about = query
        words = content_words(query, limit=MAX_QUERY_WORDS) or [w.lower() for w in _WORD.findall(query)]
        words = words[:MAX_QUERY_WORDS]
    embedded = embed_or_none([about])
    model = embedded[0].model if embedded else None
    vector = embedded[1][0] if embedded else None
    weights = {**WEIGHTS, **(weights or {})}
    candidates, idf = _candidates(scope, query, words, syntax, model, vector, weights)
    # A candidate forgotten between the statements has no text.
    ranked = _rank(
        [c for c in candidates.values() if c.created_at is not None],
        words,
        idf,
        vector,
        recency,
        reference,
        explain,
        weights,
    )
    if after is not None:
        ranked = [c for c in ranked if (c.score, c.id) < after]
    page = ranked[: limit + 1]
    next_cursor = None
    if len(page) > limit:
        page = page[:limit]
        next_cursor = encode_cursor("search", (reference, page[-1].score, page[-1].id))
    memories = _page_rows([c.id for c in page], touch)
    hits = []
    for candidate in page:
        memory = memories.get(candidate.id)
        if memory is None:
            continue
        hits.append(SearchHit(memory=memory, score=candidate.score, explain=_explain(candidate) if explain else None))
    return Page(hits, next_cursor)


def _rank(
    candidates: list[_Candidate],
    words: list[str],
    idf: list[float | None],
    vector: np.ndarray | None,
    recency: Recency,
    reference: datetime,
    with_matches: bool,
    weights: dict[str, float],
) -> list[_Candidate]:
    """The candidates scored and ranked, twice when there are vectors: the second time by the fed-back query."""
    if not candidates:
        return []
    with_vectors = vector is not None
    # Words PostgreSQL does not index (its stop words) and words no memory has weigh like the rarest.
    known = [w for w in idf if w is not None]
    heaviest = max(known, default=1.0)
    kept = [(word, heaviest if weight is None else weight) for word, weight in zip(words, idf, strict=True)]
    word_weights = np.array([w for _, w in kept], dtype=np.float64)
    if word_weights.sum() <= 0:
        word_weights = np.ones(len(kept))
    terms, matches = _term_similarity(
        [w for w, _ in kept], word_weights, [c.text for c in candidates], with_matches=with_matches
    )
    in_use = {name: w for name, w in weights.items() if with_vectors or name != "vector"}
    for candidate, term, matched in zip(candidates, terms, matches, strict=True):
        candidate.terms = float(term)
        candidate.matches = matched
        candidate.vector_query = candidate.vector
        if recency.enabled:
            candidate.recency = recency.of(reference, candidate.created_at, candidate.last_accessed_at)  # type: ignore[arg-type]
    ranked = _scored(candidates, in_use, recency)
    if with_vectors and in_use["vector"] > 0:
        best = [c.embedding for c in ranked[:FEEDBACK] if c.embedding is not None]
        if best:
            fed_back = vector + FEEDBACK_WEIGHT * np.mean(best, axis=0)  # type: ignore[operator]
            fed_back /= np.linalg.norm(fed_back) or 1.0
            for candidate in candidates:
                if candidate.embedding is not None:
                    candidate.vector = float(candidate.embedding @ fed_back)
            ranked = _scored(candidates, in_use, recency)
    return ranked


def _scored(candidates: list[_Candidate], weights: dict[str, float], recency: Recency) -> list[_Candidate]:
    """The candidates' relevance and score from their components, best first."""
    total = sum(weights.values()) or 1.0
    for candidate in candidates:
        relevance = weights["fulltext"] * candidate.fulltext + weights["terms"] * candidate.terms
        if "vector" in weights:
            relevance += weights["vector"] * max(candidate.vector or 0.0, 0.0)
        candidate.relevance = relevance / total
        if candidate.recency is not None:
            candidate.score = recency.text_weight * candidate.relevance + recency.recency_weight * candidate.recency
        else:
            candidate.score = candidate.relevance
        if not math.isfinite(candidate.score):
            candidate.score = 0.0
    return sorted(candidates, key=lambda c: (c.score, c.id), reverse=True)


def _explain(candidate: _Candidate) -> dict[str, Any]:
    return {
        "fulltext": candidate.fulltext,
        "vector": candidate.vector,
        "vector_query": candidate.vector_query,
        "terms": candidate.terms,
        "relevance": candidate.relevance,
        "recency": candidate.recency,
        "matches": candidate.matches,
    }


def _page_rows(ids: list[uuid.UUID], touch: bool) -> dict[uuid.UUID, Memory]:
    """The page's memories with `pinned`, and (with `touch`) their access recorded: one statement.

    The access update follows the rules of `memories_touch`: at most once per memory per
    interval, rows another transaction holds skipped, and no wait for the WAL flush when
    the statement is its own transaction. The values returned are from before it.
    """
    if not ids:
        return {}
    columns = ", ".join(_MEMORIES.columns("m"))
    page_sql = f"""
        SELECT {columns}, EXISTS (SELECT 1 FROM memories_pin p WHERE p.memory_id = m.id) AS pinned
        FROM memories_memory m WHERE m.id = ANY(%s)
    """
    params: list[Any] = [ids]
    if touch:
        now = timezone.now()
        asynchronous = _ASYNCHRONOUS if connection.get_autocommit() else ""
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
    with connection.cursor() as cursor:
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
