"""All SQL on memory vectors: store, read for exact comparison, nearest neighbours, and the HNSW index.

The `embedding` column is pgvector's `vector` when the database had the extension when
the table was made, else `bytea` (float32). Each function asks `pgvector()` which it is.
"""

from __future__ import annotations

import hashlib
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import orjson
from django.db import connection
from django.utils import timezone
from psycopg import sql

from memoryadmin.core.bulk import copy_rows, send_later
from memoryadmin.memories.capabilities import _key, _known, forget_capabilities, index_exists
from memoryadmin.memories.embeddings import Embedder, embed_or_none, vector_from_bytes

TABLE = "memories_memoryvector"


def pgvector() -> bool:
    """Whether the embedding column is pgvector's `vector` in this database."""
    key = _key(connection, "column:embedding")
    if key not in _known:
        _known[key] = _column_is_vector(connection)
    return _known[key]


def vector_literal(vector: np.ndarray) -> str:
    """pgvector's text form of a vector."""
    return "[" + ",".join(f"{x:.8g}" for x in np.asarray(vector, dtype=np.float32).tolist()) + "]"


def vector_param(vector: np.ndarray) -> Any:
    return vector_literal(vector) if pgvector() else np.asarray(vector, dtype="<f4").tobytes()


def vector_codes(vectors: np.ndarray) -> list[bytes]:
    """Each vector as its float32 scale then one int8 per dimension (the `code` column).

    Each vector is scaled by its own largest component, so a unit vector's cosine with
    another comes back within about 0.01 (`code_matrix`): enough to rank a person's
    memories, at a quarter of the bytes.
    """
    vectors = np.atleast_2d(np.asarray(vectors, dtype=np.float32))
    if not len(vectors):
        return []
    scale = np.abs(vectors).max(axis=1) / 127.0
    scale[scale == 0] = 1.0
    codes = np.clip(np.rint(vectors / scale[:, None]), -127, 127).astype(np.int8)
    return [scale[i].astype("<f4").tobytes() + codes[i].tobytes() for i in range(len(vectors))]


def code_dtype(dimension: int) -> np.dtype:
    """One record of a person's vectors as `person_codes` sends them: the memory id, then its code."""
    return np.dtype([("id", "V16"), ("scale", "<f4"), ("code", "i1", (dimension,))])


def code_matrix(records: np.ndarray) -> np.ndarray:
    """The float32 vectors (approximately) that records of `code_dtype` hold."""
    return records["code"].astype(np.float32) * records["scale"][:, None]


def person_codes_sql() -> str:
    """One row of one person's vectors by one model: their count, their mark, and every (id, code)
    packed in one `bytea`, the last only when the mark differs from the one the caller holds.

    The mark is a fingerprint of the person's vector rows (their ids and memories'). A row's id
    comes from a sequence and a vector written again takes a new one (`vectors_store`), so any
    change of the person's vectors changes the mark. Parameters: the mark held (count, mark; two
    None when none), then the namespace id, the user id and the model, twice. The covering index
    answers it alone (an index-only scan), whatever the table's size; when the marks agree, the
    codes are not read at all.
    """
    person = "v.namespace_id = %s AND v.user_id = %s AND v.model = %s AND v.code IS NOT NULL"
    return f"""
        SELECT held.count, held.mark,
               CASE WHEN (held.count, held.mark) IS DISTINCT FROM (%s::bigint, %s::bigint) THEN
                   (SELECT string_agg(uuid_send(v.memory_id) || v.code, ''::bytea) FROM {TABLE} v WHERE {person})
               END AS codes
        FROM (SELECT count(*) AS count,
                     bit_xor(hashint8extended(v.id, 0) # uuid_hash_extended(v.memory_id, 0)) AS mark
              FROM {TABLE} v WHERE {person}) held
    """


def nearest_sql(model: str, vector: np.ndarray, scope_sql: str, limit: int) -> tuple[str, list[Any]]:
    """The `limit` memories nearest `vector` by pgvector within a scope (its WHERE clause on `m`):
    rows ('v', id, similarity, NULL, NULL, NULL, NULL), by the model's HNSW index when it has one.

    Parameters in order: the vector literal, the model, then the namespace id and the scope's own
    parameters (the caller's), then the vector literal again and the limit.
    """
    literal = vector_literal(vector)
    if hnsw_index_exists(model):
        # The HNSW index's expression; hnsw.ef_search and iterative scans come from the connection
        # settings (settings.DATABASE_SESSION_SETTINGS; the caller runs this with execute_with_session_settings).
        distance = f"(v.embedding::vector({len(vector)})) <=> %s::vector({len(vector)})"
    else:
        distance = "v.embedding <=> %s::vector"
    sql = f"""
        SELECT 'v', m.id, 1 - ({distance}), NULL, NULL::bigint, NULL::bytea, NULL::bigint
        FROM {TABLE} v JOIN memories_memory m ON m.id = v.memory_id
        WHERE v.model = %s AND v.namespace_id = %s AND {scope_sql}
        ORDER BY {distance}
        LIMIT %s
    """
    return sql, [literal, model, literal, limit]


def codes_backfill(connection: Any, batch: int = 10_000) -> int:
    """Fill the `code` of every vector that has none (the migration that added the column): batch by batch."""
    done, after = 0, 0
    while True:
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT id, embedding::text FROM {TABLE} WHERE id > %s AND code IS NULL ORDER BY id LIMIT %s"
                if _column_is_vector(connection)
                else f"SELECT id, embedding FROM {TABLE} WHERE id > %s AND code IS NULL ORDER BY id LIMIT %s",
                [after, batch],
            )
            rows = cursor.fetchall()
            if not rows:
                return done
            codes = vector_codes(np.stack([_decode(raw) for _, raw in rows]))
            cursor.execute(
                f"UPDATE {TABLE} v SET code = c.code FROM unnest(%s::bigint[], %s::bytea[]) AS c(id, code) "
                "WHERE v.id = c.id",
                [[pk for pk, _ in rows], codes],
            )
        done += len(rows)
        after = rows[-1][0]


def _column_is_vector(connection: Any) -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
            "WHERE attrelid = %s::regclass AND attname = 'embedding'",
            [TABLE],
        )
        row = cursor.fetchone()
        return bool(row) and row[0].startswith("vector")


@dataclass(frozen=True)
class Owner:
    """What a vector row repeats of its memory."""

    memory_id: uuid.UUID
    namespace_id: int
    user_id: str


def vectors_store(owners: Sequence[Owner], embedder: Embedder, vectors: np.ndarray, *, fresh: bool = False) -> None:
    """Insert (or replace) the vectors of these memories by this embedder's model: one statement.

    A vector replaced takes a new id, so the person's mark (`person_codes_sql`) changes with it.
    `fresh` says the memories were written in this transaction and have no vector yet (a restore's
    new memories): their rows go in by COPY, with nothing to replace and no parameters to quote.
    """
    if not owners:
        return
    now = timezone.now()
    if fresh:
        copy_rows(
            TABLE,
            ("memory_id", "namespace_id", "user_id", "model", "dimension", "embedding", "code", "created_at"),
            [
                [o.memory_id, o.namespace_id, o.user_id, embedder.model, embedder.dimension, vector_param(v), code, now]
                for o, v, code in zip(owners, vectors[: len(owners)], vector_codes(vectors[: len(owners)]), strict=True)
            ],
        )
        return
    kind = "text" if pgvector() else "bytea"
    cast = "::vector" if pgvector() else ""
    conflict = """
        ON CONFLICT (memory_id, model) DO UPDATE
            SET id = DEFAULT, embedding = EXCLUDED.embedding, code = EXCLUDED.code, dimension = EXCLUDED.dimension,
                created_at = EXCLUDED.created_at
    """
    codes = vector_codes(vectors[: len(owners)])
    if len(owners) == 1:
        # One memory (an API write): plain values, which PostgreSQL plans and runs faster than unnest.
        (owner,) = owners
        with connection.cursor() as cursor:
            cursor.execute(
                f"INSERT INTO {TABLE} "
                "(memory_id, namespace_id, user_id, model, dimension, embedding, code, created_at) "
                f"VALUES (%s, %s, %s, %s, %s, %s{cast}, %s, %s) {conflict}",
                [
                    owner.memory_id,
                    owner.namespace_id,
                    owner.user_id,
                    embedder.model,
                    embedder.dimension,
                    vector_param(vectors[0]),
                    codes[0],
                    now,
                ],
            )
        return
    # The rows travel as one JSON parameter, quoted once rather than value by value (see core.bulk).
    rows = orjson.dumps(
        [
            {
                "memory_id": o.memory_id,
                "namespace_id": o.namespace_id,
                "user_id": o.user_id,
                "embedding": _json_param(vector_param(v)),
                "code": _json_param(code),
            }
            for o, v, code in zip(owners, vectors, codes, strict=False)
        ]
    ).decode()
    # Nothing is read back: inside `writes_sent_later` it travels with the next statement.
    send_later(
        f"""
        INSERT INTO {TABLE} (memory_id, namespace_id, user_id, model, dimension, embedding, code, created_at)
        SELECT v.memory_id, v.namespace_id, v.user_id, %s, %s, v.embedding{cast}, v.code, %s
        FROM json_to_recordset(%s)
            AS v(memory_id uuid, namespace_id bigint, user_id text, embedding {kind}, code bytea)
        {conflict}
        """,
        [embedder.model, embedder.dimension, now, rows],
    )


def _json_param(value: str | bytes) -> str:
    # bytea's text form, which PostgreSQL reads from a JSON string.
    return "\\x" + value.hex() if isinstance(value, bytes) else value


def memories_embed(owners: Sequence[Owner], texts: Sequence[str]) -> bool:
    """Embed these memories' texts and store the vectors; False (and nothing stored) when the embedder failed."""
    if not owners:
        return True
    embedded = embed_or_none(texts)
    if embedded is None:
        return False
    embedder, vectors = embedded
    vectors_store(owners, embedder, vectors)
    return True


def vectors_of(memory_ids: Sequence[uuid.UUID], model: str) -> dict[uuid.UUID, np.ndarray]:
    """The stored vectors of these memories by this model."""
    if not memory_ids:
        return {}
    column = "embedding::text" if pgvector() else "embedding"
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT memory_id, {column} FROM {TABLE} WHERE memory_id = ANY(%s) AND model = %s",
            [list(memory_ids), model],
        )
        return {pk: _decode(raw) for pk, raw in cursor.fetchall()}


def _decode(raw: Any) -> np.ndarray:
    if isinstance(raw, str):
        return np.array([float(x) for x in raw.strip("[]").split(",")], dtype=np.float32)
    return vector_from_bytes(raw)


def models_present(namespace_id: int | None = None) -> dict[str, int]:
    """How many vectors each model holds (of one namespace, or all)."""
    where, params = ("WHERE namespace_id = %s", [namespace_id]) if namespace_id is not None else ("", [])
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT model, count(*) FROM {TABLE} {where} GROUP BY model ORDER BY model", params)
        return dict(cursor.fetchall())


def memories_without_vector(
    model: str, *, after: uuid.UUID | None, limit: int
) -> list[tuple[uuid.UUID, int, str, str]]:
    """(id, namespace_id, user_id, text) of memories with no vector by `model`, in id order after `after`."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            SELECT m.id, m.namespace_id, m.user_id, m.text FROM memories_memory m
            WHERE (%s::uuid IS NULL OR m.id > %s::uuid)
              AND NOT EXISTS (SELECT 1 FROM {TABLE} v WHERE v.memory_id = m.id AND v.model = %s)
            ORDER BY m.id
            LIMIT %s
            """,
            [after, after, model, limit],
        )
        return cursor.fetchall()


def memories_unchanged(texts: dict[uuid.UUID, str]) -> set[uuid.UUID]:
    """Which of these memories still exist with the text given, held (FOR SHARE) until the transaction ends:
    an edit or a deletion waits, so a vector of that text stored now is stored for the memory as it is."""
    if not texts:
        return set()
    with connection.cursor() as cursor:
        cursor.execute("SELECT id, text FROM memories_memory WHERE id = ANY(%s) ORDER BY id FOR SHARE", [list(texts)])
        return {pk for pk, text in cursor.fetchall() if texts.get(pk) == text}


def memories_count_without_vector(model: str) -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT count(*) FROM memories_memory m "
            f"WHERE NOT EXISTS (SELECT 1 FROM {TABLE} v WHERE v.memory_id = m.id AND v.model = %s)",
            [model],
        )
        return cursor.fetchone()[0]


def vectors_prune(keep_model: str) -> int:
    """Delete every vector not made by `keep_model`; how many went."""
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {TABLE} WHERE model <> %s", [keep_model])
        return cursor.rowcount


def hnsw_index_name(model: str) -> str:
    return "memory_vector_hnsw_" + hashlib.sha256(model.encode()).hexdigest()[:12]


def hnsw_index_ensure(model: str, dimension: int) -> bool:
    """The HNSW index of one model's vectors (cosine), made when missing; False without pgvector."""
    if not pgvector():
        return False
    name = hnsw_index_name(model)
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_class WHERE relname = %s", [name])
        if cursor.fetchone() is None:
            # DDL takes no parameters: the model's name goes in as a quoted literal.
            cursor.execute(
                sql.SQL(
                    "CREATE INDEX IF NOT EXISTS {} ON {} USING hnsw ((embedding::vector({})) vector_cosine_ops) "
                    "WHERE model = {}"
                )
                .format(sql.Identifier(name), sql.Identifier(TABLE), sql.Literal(int(dimension)), sql.Literal(model))
                .as_string(cursor.connection)
            )
            forget_capabilities()
    return True


# An index that exists stays; one that does not may be made by another process (embed_memories):
# asked again after this long.
_ABSENT_RECHECK_SECONDS = 60.0
_absent_since: dict[tuple[str, str], float] = {}


def hnsw_index_exists(model: str) -> bool:
    """Whether the model's HNSW index exists, without a catalogue lookup per search."""
    if not pgvector():
        return False
    name = hnsw_index_name(model)
    key = _key(connection, f"index:{name}")
    checked = _absent_since.get(key)
    if checked is not None and time.monotonic() - checked > _ABSENT_RECHECK_SECONDS:
        _known.pop(key, None)
    found = index_exists(connection, name)
    if found:
        _absent_since.pop(key, None)
    elif key not in _absent_since or checked is None or time.monotonic() - checked > _ABSENT_RECHECK_SECONDS:
        _absent_since[key] = time.monotonic()
    return found


def person_pools(
    namespace_id: int, users: Sequence[str], model: str
) -> dict[str, list[tuple[uuid.UUID, str, np.ndarray]]]:
    """(id, text, vector) of the memories of these people a new one may be a paraphrase of: one statement.

    Utterances (a turn kept as said), superseded memories and memories stating an attribute (settled
    by supersession, never merged) are no paraphrase targets.
    """
    column = "v.embedding::text" if pgvector() else "v.embedding"
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            SELECT v.user_id, m.id, m.text, {column}
            FROM {TABLE} v JOIN memories_memory m ON m.id = v.memory_id
            WHERE v.namespace_id = %s AND v.user_id = ANY(%s) AND v.model = %s
              AND m.memory_type <> 'utterance' AND m.status <> 'superseded' AND m.attribute = ''
            """,
            [namespace_id, list(users), model],
        )
        rows = cursor.fetchall()
    pools: dict[str, list[tuple[uuid.UUID, str, np.ndarray]]] = {user: [] for user in users}
    for user_id, pk, text, raw in rows:
        pools[user_id].append((pk, text, _decode(raw)))
    return pools
