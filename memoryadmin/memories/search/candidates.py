"""Candidates: the memories worth scoring, gathered in one statement, and their rows in a second.

The first statement takes, within the scope:

- the best POOL memories by full text (`fulltext`, below), ties broken by how near a
  memory was said to the times the question names;
- a person's vectors, when the search has a person: every (id, int8 code) of theirs from
  the covering index alone (`vectors.person_codes_sql`), compared here; only their mark when
  this process holds them already, unchanged (people.py); with pgvector and no person, the
  POOL nearest by the HNSW index;
- when the question names times, the POOL memories said nearest them (their words may
  differ from the question's: "What did she do in May?");
- when the search has a person and the question asks about attributes ("Where does she
  work?", attributes.py), the ATTRIBUTED newest of the person's memories stating them.

`fulltext` is the share of the question's words a memory holds, each word weighted by its
rarity (inverse document frequency) among the person's memories, or, across a namespace,
among the matches. A word naming a category also matches the category's members, at
MEMBER_WEIGHT. In `natural` syntax any word may match; in `websearch` syntax the question is
`websearch_to_tsquery` and only its matches are candidates. Across a namespace, the matches
are the WIDE_MATCHES newest: ranking every match of a common word would cost more than the
search should (62,000 rows for "coffee" in a million memories).

The second statement reads the candidates' rows, in scope: a vector candidate the scope
refuses (another status, a filter) is dropped there. For a person's search it also reads the
sittings of the best full-text and the nearest candidate (what was said within SITTING of
them): their mates join the candidates, and scoring keeps those beside the best match.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field, fields
from datetime import date, datetime, timedelta
from typing import Any

import numpy as np

from memoryadmin.core.replicas import read_connection
from memoryadmin.core.session_settings import execute_with_session_settings
from memoryadmin.memories.models import Memory
from memoryadmin.memories.search.categories import MEMBER_WEIGHT
from memoryadmin.memories.search.people import PEOPLE, PersonVectors, person_key
from memoryadmin.memories.search.query import Question
from memoryadmin.memories.search.scope import Scope
from memoryadmin.memories.vectors import nearest_sql, person_codes_sql, pgvector

# Candidates taken from each side (full text, vectors, dates) before they are scored together.
POOL = 100
# A sitting: what was said within this time of a memory (its context, scoring.said_beside).
SITTING = timedelta(hours=1)
# At most this many memories of an anchor's sitting join its candidates (candidate_rows).
MATES = 20
# At most this many of a person's memories of the attributes a question asks about.
ATTRIBUTED = 20
# Across a namespace, full text ranks at most this many matches: the newest.
WIDE_MATCHES = 200


@dataclass
class Pool:
    """What the first statement found."""

    # Full-text candidates and their share, best first.
    fulltext: dict[uuid.UUID, float] = field(default_factory=dict)
    # Each question word's weight (None when PostgreSQL does not index it: a stop word).
    idf: list[float | None] = field(default_factory=list)
    # A person's vectors (as this process held them, or as the database sent them).
    person: PersonVectors | None = None
    # The nearest by the database (pgvector): id -> similarity.
    nearest: dict[uuid.UUID, float] = field(default_factory=dict)
    # Said nearest the question's times.
    dated: list[uuid.UUID] = field(default_factory=list)
    # The person's memories of the attributes the question asks about (attributes.py), newest first.
    attributed: list[uuid.UUID] = field(default_factory=list)


def _words_sql(question: Question) -> tuple[str, list[Any]]:
    """CTEs `words` (i, exact, members, indexed, tsq) and `q` (the question's tsquery), with parameters.

    A word's `exact` query also matches its irregular forms ("win" finds "won").
    """
    member_index = [i + 1 for i, members in enumerate(question.members) for _ in members]
    member_text = [m for members in question.members for m in members]
    if question.syntax == "websearch":
        tsquery, tsquery_params = "websearch_to_tsquery('english', %s)", [question.text]
    else:
        # Any word may match: the words' own queries, OR-ed (their text form is already normalized).
        tsquery = "(SELECT string_agg('(' || w.tsq::text || ')', ' | ')::tsquery FROM words w WHERE w.tsq IS NOT NULL)"
        tsquery_params = []
    sql = f"""
        members AS (
            SELECT x.i, string_agg('(' || x.q::text || ')', ' | ')::tsquery AS q
            FROM (SELECT mm.i, phraseto_tsquery('english', mm.member) AS q
                  FROM unnest(%s::int[], %s::text[]) AS mm(i, member)) x
            WHERE numnode(x.q) > 0
            GROUP BY x.i
        ),
        words AS MATERIALIZED (
            SELECT w.i, w.exact, mb.q AS members, numnode(w.exact) > 0 AS indexed,
                   CASE WHEN mb.q IS NULL THEN nullif(w.exact, ''::tsquery)
                        WHEN numnode(w.exact) > 0 THEN w.exact || mb.q ELSE mb.q END AS tsq
            FROM (SELECT u.i, CASE WHEN u.forms = '' THEN plainto_tsquery('english', u.word)
                              ELSE plainto_tsquery('english', u.word) || to_tsquery('english', u.forms) END AS exact
                  FROM unnest(%s::text[], %s::text[]) WITH ORDINALITY AS u(word, forms, i)) w
            LEFT JOIN members mb ON mb.i = w.i
        ),
        q AS MATERIALIZED (SELECT {tsquery} AS tsq)
    """
    # A word's irregular forms match as the word (inflections.py: plain lower-case letters, OR-ed).
    forms = [" | ".join(f) for f in question.forms] if question.forms else [""] * len(question.words)
    return sql, [member_index, member_text, question.words, forms, *tsquery_params]


def candidates_fetch(
    scope: Scope,
    question: Question,
    *,
    model: str | None,
    vector: np.ndarray | None,
    with_vectors: bool,
    population_from_codes: bool,
) -> Pool:
    """The first statement: full-text candidates, the person's vectors or the nearest, the dated ones."""
    words_sql, params = _words_sql(question)
    person = scope.user_id is not None
    codes = with_vectors and person and model is not None
    wide = not person
    # A word's rarity among the person's memories (their vectors' count stands for it when the
    # scope is the person's whole memory), or among the matches.
    if person and question.syntax == "natural":
        population = "(SELECT person.count FROM person)" if codes and population_from_codes else None
        if population is None:
            population = f"(SELECT count(*) FROM memories_memory m WHERE {scope.sql})"
            params_population = list(scope.params)
        else:
            params_population = []
    else:
        population, params_population = "(SELECT count(*) FROM hits)", []
    starts = [p.start for p in question.periods]
    ends = [p.end for p in question.periods]
    gap = (
        "(SELECT min(CASE WHEN h.said < p.lo THEN p.lo - h.said WHEN h.said >= p.hi THEN h.said - p.hi + 1 "
        "ELSE 0 END) FROM unnest(%s::date[], %s::date[]) AS p(lo, hi))"
        if starts
        else "0"
    )
    gap_params = [starts, ends] if starts else []
    order = "m.created_at DESC, m.id DESC LIMIT %s" if wide else ""
    order_params = [WIDE_MATCHES] if wide else []
    person_cte, person_params = "", []
    held: PersonVectors | None = None
    if codes:
        reader = read_connection()
        key = person_key(reader, scope.namespace_id, scope.user_id, model)  # type: ignore[arg-type]
        held = PEOPLE.held(key)
        person_cte = f"person AS MATERIALIZED ({person_codes_sql()}),"
        owner = [scope.namespace_id, scope.user_id, model]
        person_params = [held.count if held else None, held.mark if held else None, *owner, *owner]
    sql = f"""
        WITH {person_cte} {words_sql},
        hits AS MATERIALIZED (
            SELECT m.id, m.search_vector AS sv, (m.stated_at AT TIME ZONE 'UTC')::date AS said
            FROM memories_memory m, q
            WHERE {scope.sql} AND m.search_vector @@ q.tsq
            {"ORDER BY " + order if order else ""}
        ),
        weights AS MATERIALIZED (
            SELECT w.i, w.exact, w.members, w.indexed,
                   CASE WHEN w.tsq IS NOT NULL THEN ln(1 + (n.n - d.df + 0.5) / (d.df + 0.5)) END AS idf
            FROM words w
            CROSS JOIN (SELECT GREATEST({population}, (SELECT count(*) FROM hits)) AS n) n
            CROSS JOIN LATERAL (SELECT count(*) AS df FROM hits h WHERE w.tsq IS NOT NULL AND h.sv @@ w.tsq) d
        ),
        ft AS (
            SELECT h.id,
                   coalesce(sum(wt.idf * CASE WHEN wt.indexed AND h.sv @@ wt.exact THEN 1.0
                                              WHEN wt.members IS NOT NULL AND h.sv @@ wt.members THEN {MEMBER_WEIGHT}
                                              ELSE 0 END), 0)
                   / nullif((SELECT sum(idf) FROM weights), 0) AS share,
                   {gap} AS gap
            FROM hits h CROSS JOIN weights wt
            WHERE wt.idf IS NOT NULL
            GROUP BY h.id, h.said
            ORDER BY share DESC NULLS LAST, gap, h.id
            LIMIT %s
        )
        SELECT 'f', ft.id, ft.share, (SELECT array_agg(idf ORDER BY i) FROM weights),
               NULL::bigint, NULL::bytea, NULL::bigint
        FROM ft
    """
    params = [
        *person_params,
        *params,
        *scope.params,
        *order_params,
        *params_population,
        *gap_params,
        POOL,
    ]
    if codes:
        sql += "UNION ALL SELECT 'p', NULL, NULL, NULL, person.count, person.codes, person.mark FROM person"
    elif with_vectors and wide and pgvector() and model is not None and vector is not None:
        nearest, nearest_params = nearest_sql(model, vector, scope.sql, POOL)
        sql += f"UNION ALL ({nearest})"
        params += [*nearest_params[:2], scope.namespace_id, *scope.params, *nearest_params[2:]]
    if starts and person:
        # Said then, and (by their own index) happened then.
        lo, hi = min(starts), max(ends)
        sql += f"""
        UNION ALL
        (SELECT 'd', m.id, NULL, NULL, NULL, NULL, NULL FROM memories_memory m
         WHERE {scope.sql} AND m.stated_at >= %s AND m.stated_at < %s
         ORDER BY m.stated_at DESC LIMIT %s)
        UNION ALL
        (SELECT 'd', m.id, NULL, NULL, NULL, NULL, NULL FROM memories_memory m
         WHERE {scope.sql} AND m.event_date >= %s AND m.event_date < %s
         ORDER BY m.event_date DESC LIMIT %s)
        """
        params += [*scope.params, lo, hi, POOL, *scope.params, lo, hi, POOL]
    if question.attributes and person:
        # What the person's current facts of those attributes say, whatever their words (by the attribute index).
        sql += f"""
        UNION ALL
        (SELECT 'a', m.id, NULL, NULL, NULL, NULL, NULL FROM memories_memory m
         WHERE {scope.sql} AND m.attribute = ANY(%s)
         ORDER BY m.stated_at DESC NULLS LAST LIMIT %s)
        """
        params += [*scope.params, list(question.attributes), ATTRIBUTED]
    with read_connection().cursor() as cursor:
        # JIT off and the HNSW scan's settings, also behind a transaction pooler.
        execute_with_session_settings(cursor, sql, params)
        rows = cursor.fetchall()

    pool = Pool(idf=[None] * len(question.words))
    for kind, pk, share, idf, count, blob, mark in rows:
        if kind == "f":
            pool.fulltext[pk] = float(share or 0.0)
            pool.idf = [None if w is None else float(w) for w in idf]
        elif kind == "p":
            if held is not None and (held.count, held.mark) == (count, mark):
                # What this process holds is what the database holds.
                pool.person = held
            elif count and blob and vector is not None:
                pool.person = PersonVectors.decoded(count, mark, bytes(blob), len(vector))
                PEOPLE.keep(key, pool.person)
            else:
                PEOPLE.drop(key)
        elif kind == "v":
            pool.nearest[pk] = float(share)
        elif kind == "d":
            pool.dated.append(pk)
        elif kind == "a":
            pool.attributed.append(pk)
    # Said then and happened then: once.
    pool.dated = list(dict.fromkeys(pool.dated))
    return pool


@dataclass
class Facts:
    """What scoring reads of a candidate's row."""

    id: uuid.UUID
    text: str
    memory_type: str
    created_at: datetime
    last_accessed_at: datetime | None
    stated_at: datetime | None
    event_date: date | None
    event_date_precision: str
    attribute: str


FACT_COLUMNS = [f.name for f in fields(Facts)]


def candidate_rows(
    ids: list[uuid.UUID], scope: Scope, *, model: str | None, anchors: list[uuid.UUID] | None = None
) -> list[tuple[Any, ...]]:
    """The candidates' facts (FACT_COLUMNS), in scope; with `model`, each row's int8 code (None without); last,
    whether the row is a sitting mate.

    With `anchors` (some of `ids`, the likely best matches), the same statement also reads up to MATES memories
    in scope said within SITTING of each anchor and not among `ids`, nearest in time first: what was said
    beside an event often answers a question about it in other words (scoring.said_beside).
    """
    if not ids:
        return []
    columns = ", ".join(f"m.{Memory._meta.get_field(name).column}" for name in FACT_COLUMNS)
    code, join, join_params = "NULL::bytea", "", []
    if model is not None:
        code = "v.code"
        join = "LEFT JOIN memories_memoryvector v ON v.memory_id = m.id AND v.model = %s"
        join_params = [model]
    # The rows by primary key, then the scope's conditions on them (without the fence, PostgreSQL may
    # also scan the person's index to AND it with the keys, for rows it already has).
    sql = (
        f"SELECT {columns}, {code}, false FROM (SELECT * FROM memories_memory WHERE id = ANY(%s) OFFSET 0) m {join} "
        f"WHERE {scope.sql}"
    )
    params: list[Any] = [ids, *join_params, *scope.params]
    if anchors:
        # Each anchor's sitting by the person's (namespace, user, stated_at) index, nearest in time first.
        sql += f"""
            UNION ALL
            SELECT {columns}, {code}, true FROM (
                SELECT DISTINCT near.id FROM (
                    SELECT a.stated_at AS said FROM memories_memory a
                    WHERE a.id = ANY(%s) AND a.stated_at IS NOT NULL
                ) anchor
                CROSS JOIN LATERAL (
                    SELECT m.id FROM memories_memory m
                    WHERE {scope.sql} AND m.stated_at >= anchor.said - %s AND m.stated_at <= anchor.said + %s
                          AND m.id <> ALL(%s)
                    ORDER BY abs(extract(epoch FROM m.stated_at - anchor.said)), m.id
                    LIMIT %s
                ) near
            ) mate
            JOIN memories_memory m ON m.id = mate.id {join}
        """
        params += [anchors, *scope.params, SITTING, SITTING, ids, MATES, *join_params]
    with read_connection().cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def uuid_of(raw: np.void) -> uuid.UUID:
    return uuid.UUID(bytes=bytes(raw))


def reference_time(now: datetime, as_of: datetime | None) -> datetime:
    return as_of if as_of is not None else now
