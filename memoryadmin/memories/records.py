"""Tombstones, memories, revisions, evidence and pins as snapshot records, out and back in: all the SQL a
snapshot needs on this app's tables.

Export hands rows to the representation functions the API uses. Import takes records the
snapshot format has already validated and decided on (tombstones and erasures win), and
writes them in batches; every lookup is by primary key or by a parent's key, because a
filter on the namespace would let the planner read every row the restore has written so far.
"""

from __future__ import annotations

import base64
import uuid
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import orjson
from django.db import connection
from django.db.models import BooleanField, Exists, F, OuterRef, Subquery
from django.db.models.expressions import RawSQL

from memoryadmin.core.bulk import (
    array_literal,
    copy_rows,
    insert_json_objects,
    insert_rows,
    record_values,
    reusable_ids,
)
from memoryadmin.memories.embeddings import EmbeddingError, embed_or_none, get_embedder
from memoryadmin.memories.models import Memory, MemoryEvidence, MemoryRevision, MemoryVector, Pin, Tombstone
from memoryadmin.memories.representations import (
    MEMORY,
    PIN,
    REVISION,
    SUPERSESSION_FIELDS,
    TOMBSTONE,
    evidence_fields,
    memory_dict,
    pin_dict,
    revision_dict,
    tombstone_dict,
)
from memoryadmin.memories.vectors import Owner, memories_embed, vectors_store
from memoryadmin.tenancy.models import Namespace

RECORD_TYPES = ("tombstone", "memory", "revision", "evidence", "pin")
# The table each record type carries.
MODELS = {
    "tombstone": Tombstone,
    "memory": Memory,
    "revision": MemoryRevision,
    "evidence": MemoryEvidence,
    "pin": Pin,
}
BULK_TABLES = (Memory._meta.db_table,)

# The columns a memory's representation reads (search_vector, fingerprints and other internals
# stay out of the snapshot).
MEMORY_FIELDS = MEMORY.read
# A memory's columns as a restore writes them, after its id and namespace.
_MEMORY_COLUMNS = (*MEMORY_FIELDS[1:], "fingerprint")
_MEMORY_INSERT = ("id", "namespace_id", *_MEMORY_COLUMNS, "access_count")
# A text the user already has (from before, or earlier in this snapshot) is left to the unique index.
_MEMORY_CONFLICT = "ON CONFLICT DO NOTHING RETURNING id"
_REVISION_COLUMNS = (*REVISION.fields, "fingerprint")

# --- export ------------------------------------------------------------------------------------


def export_vectors(namespace: Namespace) -> tuple[str, int] | None:
    """The model and dimension of the vectors a snapshot of this namespace carries: the configured
    embedder's, when the namespace has vectors by it. A restore by the same embedder writes them as
    they are instead of embedding every memory again."""
    try:
        model = get_embedder().model
    except EmbeddingError:
        return None
    dimension = (
        MemoryVector.objects.filter(namespace=namespace, model=model).values_list("dimension", flat=True).first()
    )
    return None if dimension is None else (model, dimension)


def export_querysets(
    namespace: Namespace, user_id: str | None, vectors: tuple[str, int] | None = None
) -> dict[str, Any]:
    tombstones = Tombstone.objects.filter(namespace=namespace)
    memories = Memory.objects.filter(namespace=namespace)
    revisions = MemoryRevision.objects.filter(memory__namespace=namespace)
    evidence = MemoryEvidence.objects.filter(memory__namespace=namespace)
    pins = Pin.objects.filter(memory__namespace=namespace)
    if user_id is not None:
        tombstones = tombstones.filter(user_id=user_id)
        memories = memories.filter(user_id=user_id)
        revisions = revisions.filter(memory__user_id=user_id)
        # A person's export holds only messages of their own sessions, even as evidence.
        evidence = evidence.filter(memory__user_id=user_id, message__session__user_id=user_id)
        pins = pins.filter(memory__user_id=user_id)
    memories = memories.annotate(is_pinned=Exists(Pin.objects.filter(memory_id=OuterRef("pk"))))
    if vectors is not None:
        model, dimension = vectors
        vector = MemoryVector.objects.filter(memory_id=OuterRef("pk"), model=model, dimension=dimension)
        memories = memories.annotate(vector=Subquery(vector.values("embedding")[:1]))
    # Each order is unique within the namespace, so it is also the key of a keyset stream (core.streaming).
    return {
        "tombstone": tombstones.order_by("user_id", "fingerprint").values_list(*TOMBSTONE.fields, named=True),
        "memory": memories.order_by("id").values_list(
            *MEMORY_FIELDS, "is_pinned", *(("vector",) if vectors else ()), named=True
        ),
        "revision": revisions.order_by("memory_id", "revision").values_list(*REVISION.fields, named=True),
        "evidence": evidence.order_by("memory_id", "message_id").values(
            "memory_id",
            "message_id",
            "created_at",
            session_id=F("message__session__session_id"),
            seq=F("message__seq"),
            role=F("message__role"),
            content=F("message__content"),
        ),
        "pin": pins.order_by("memory_id").values_list(*PIN.fields, named=True),
    }


def export_record(kind: str, row: Any) -> dict[str, Any]:
    if kind == "tombstone":
        return {"type": kind, **tombstone_dict(row)}
    if kind == "memory":
        record = {"type": kind, **memory_dict(row, pinned=row.is_pinned)}
        vector = getattr(row, "vector", None)
        if vector is not None:
            # Little-endian float32, as the snapshot's header names its model and dimension.
            record["vector"] = base64.b64encode(np.asarray(vector, dtype="<f4").tobytes()).decode()
        return record
    if kind == "revision":
        return {"type": kind, **revision_dict(row)}
    if kind == "evidence":
        return {"type": kind, **evidence_fields(**row)}
    return {"type": kind, **pin_dict(row)}


# --- import: lookups ---------------------------------------------------------------------------


def tombstoned_keys(namespace: Namespace, keys: list[tuple[Any, str, str]]) -> set[Any]:
    """Of (key, user_id, fingerprint) triples, the keys whose pair has a tombstone: one statement."""
    if not keys:
        return set()
    tags, users, fingerprints = zip(*keys, strict=True)
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT p.tag FROM unnest(%s::int[], %s::text[], %s::text[]) AS p(tag, user_id, fingerprint)
            WHERE EXISTS (SELECT 1 FROM memories_tombstone t
                          WHERE t.namespace_id = %s AND t.user_id = p.user_id AND t.fingerprint = p.fingerprint)
            """,
            [array_literal(tags), array_literal(users), array_literal(fingerprints), namespace.pk],
        )
        return {tag for (tag,) in cursor.fetchall()}


def tombstone_fingerprints(namespace: Namespace, limit: int) -> set[str] | None:
    """The fingerprints the namespace's tombstones hold, or None when they are more than `limit`."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT DISTINCT fingerprint FROM memories_tombstone WHERE namespace_id = %s LIMIT %s",
            [namespace.pk, limit + 1],
        )
        rows = cursor.fetchall()
    return None if len(rows) > limit else {fingerprint for (fingerprint,) in rows}


def _among(column: str, ids: Iterable[uuid.UUID]) -> RawSQL:
    """`column` is one of these memory ids: the ids travel as one array literal (`array_literal`), where
    `__in` would have psycopg quote each of a batch's thousand ids."""
    return RawSQL(f"{column} = ANY(%s::uuid[])", [array_literal(ids)], output_field=BooleanField())  # noqa: S611 - a column of this module


def memories_by_pk(ids: Iterable[uuid.UUID]) -> dict[uuid.UUID, Memory]:
    return {m.pk: m for m in Memory.objects.filter(_among("memories_memory.id", ids)).defer("search_vector")}


def memory_text_taken(namespace: Namespace, user_id: str, fingerprint: str) -> bool:
    """Whether a memory of this namespace has this text: one probe of the unique index."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT 1 FROM memories_memory WHERE namespace_id = %s AND user_id = %s AND fingerprint = %s",
            [namespace.pk, user_id, fingerprint],
        )
        return cursor.fetchone() is not None


def memory_owners(namespace: Namespace, ids: Iterable[uuid.UUID]) -> dict[uuid.UUID, str]:
    """memory id -> user_id, for the ids that are memories of this namespace."""
    # By primary key alone, then filtered here: see the module's note on namespace filters.
    rows = Memory.objects.filter(_among("memories_memory.id", set(ids))).values_list("pk", "namespace_id", "user_id")
    return {pk: user_id for pk, namespace_id, user_id in rows if namespace_id == namespace.pk}


def memory_heads(namespace: Namespace, ids: Iterable[uuid.UUID]) -> dict[uuid.UUID, tuple[str, int]]:
    """memory id -> (user_id, revision), for the ids that are memories of this namespace."""
    rows = Memory.objects.filter(_among("memories_memory.id", set(ids))).values_list(
        "pk", "namespace_id", "user_id", "revision"
    )
    return {pk: (user_id, revision) for pk, namespace_id, user_id, revision in rows if namespace_id == namespace.pk}


def memory_is_same(m: Memory, r: dict[str, Any]) -> bool:
    return (
        m.text == r["text"]
        and m.memory_type == r["memory_type"]
        and m.status == r["status"]
        and list(m.topics) == r["topics"]
        and list(m.entities) == r["entities"]
        and m.metadata == r["metadata"]
        and m.session_id == r["session_id"]
        and m.agent_id == r["agent_id"]
        and m.source == r["source"]
        and m.created_at == r["created_at"]
        and m.updated_at == r["updated_at"]
        and m.last_accessed_at == r["last_accessed_at"]
        and m.revision == r["revision"]
        and all(getattr(m, key) == r[key] for key in SUPERSESSION_FIELDS)
    )


def revisions_taken(memory_ids: Iterable[uuid.UUID]) -> set[tuple[uuid.UUID, int]]:
    revisions = MemoryRevision.objects.filter(_among("memories_memoryrevision.memory_id", memory_ids))
    return set(revisions.values_list("memory_id", "revision"))


def evidence_taken(memory_ids: Iterable[uuid.UUID], message_ids: Iterable[int]) -> set[tuple[uuid.UUID, int]]:
    return set(
        MemoryEvidence.objects.filter(memory_id__in=list(memory_ids), message_id__in=list(message_ids)).values_list(
            "memory_id", "message_id"
        )
    )


def pins_taken(memory_ids: Iterable[uuid.UUID]) -> set[uuid.UUID]:
    return set(Pin.objects.filter(_among("memories_pin.memory_id", memory_ids)).values_list("memory_id", flat=True))


# --- import: writes ----------------------------------------------------------------------------


def tombstones_restore_insert(namespace: Namespace, records: list[dict[str, Any]]) -> set[tuple[str, str]]:
    """Insert tombstones, keeping each record's id where it may be kept (`reusable_ids`); the pairs written.

    A pair twice in the batch, or written meanwhile by someone else, is not written again.
    """
    if not records:
        return set()
    free = reusable_ids(Tombstone, [r["id"] for r in records])
    rows = []
    for r in records:
        tid = r["id"] if r["id"] in free else None
        free.discard(r["id"])
        rows.append(
            [
                tid,
                namespace.pk,
                r["user_id"],
                r["fingerprint"],
                r["reason"],
                r["text"],
                r["memory_type"],
                r["actor"],
                r["created_at"],
            ]
        )
    table = Tombstone._meta.db_table
    written = insert_rows(
        table,
        ("id", "namespace_id", "user_id", "fingerprint", "reason", "text", "memory_type", "actor", "created_at"),
        rows,
        values=f"COALESCE(%s, nextval(pg_get_serial_sequence('{table}', 'id'))), %s, %s, %s, %s, %s, %s, %s, %s",
        suffix="ON CONFLICT DO NOTHING RETURNING user_id, fingerprint",
    )
    return set(written)


def vectors_carried(vectors: tuple[str, int] | None) -> bool:
    """Whether a snapshot's vectors (model, dimension) are the configured embedder's, so a restore may write them."""
    if vectors is None:
        return False
    embedder = get_embedder()
    if embedder.model != vectors[0]:
        return False
    try:
        return embedder.dimension == vectors[1]
    except EmbeddingError:
        return False


def memory_restore_update(namespace: Namespace, r: dict[str, Any], *, carried: bool = False) -> None:
    """A newer version of a stored memory of this namespace, as the snapshot has it (its vector follows its text:
    the record's own when `carried`, see `vectors_carried`)."""
    assignments = ", ".join(f"{c} = %s::jsonb" if c == "metadata" else f"{c} = %s" for c in _MEMORY_COLUMNS)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE memories_memory m SET {assignments} FROM memories_memory old "
            "WHERE m.id = %s AND m.namespace_id = %s AND old.id = m.id RETURNING old.text",
            [*record_values(r, _MEMORY_COLUMNS), r["id"], namespace.pk],
        )
        row = cursor.fetchone()
    if row is None or row[0] == r["text"]:
        return
    owner = Owner(r["id"], namespace.pk, r["user_id"])
    if carried and r.get("vector") is not None:
        vectors_store([owner], get_embedder(), np.frombuffer(r["vector"], dtype="<f4")[None, :])
    else:
        memories_embed([owner], [r["text"]])


def memory_row(namespace_id: int, r: dict[str, Any]) -> orjson.Fragment:
    """A memory record as the JSON object of the columns `memories_restore_insert` writes."""
    return orjson.Fragment(
        orjson.dumps(
            {"id": r["id"], "namespace_id": namespace_id, **{c: r[c] for c in _MEMORY_COLUMNS}, "access_count": 0}
        )
    )


def revision_row(r: dict[str, Any]) -> orjson.Fragment:
    """A revision record as the JSON object of the columns `revisions_restore_insert` writes."""
    return orjson.Fragment(orjson.dumps({c: r[c] for c in _REVISION_COLUMNS}))


def _row_of(r: dict[str, Any], key: str) -> orjson.Fragment | None:
    """The row made beforehand for a record (`row`, with the `key` it was made for), while it still holds."""
    made = r.get("row")
    return made[1] if made is not None and made[0] == r[key] else None


def memories_restore_insert(
    namespace: Namespace, records: list[dict[str, Any]], *, carried: bool = False
) -> set[uuid.UUID]:
    """Insert new memories, their rows as one JSON document (`memory_row`, made beforehand by the caller
    where it can: a record's `row` is (its id, its row)); the ids written.

    A text the user already has (from before, or earlier in this snapshot) is not written
    again: the unique index answers, at the cost of the insert's own probe. With `carried`
    (`vectors_carried`), a record's own vector is written as it is; the others are embedded.
    """
    if not records:
        return set()
    to_embed = [i for i, r in enumerate(records) if not carried or r.get("vector") is None]
    # The restore embeds in a thread while PostgreSQL writes the rows (the embedder and the wait for the
    # database both let go of the GIL). A text that turns out not to be written was embedded for nothing;
    # nothing of it is kept.
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="restore-embedding") as pool:
        embedding = pool.submit(embed_or_none, [records[i]["text"] for i in to_embed]) if to_embed else None
        rows = [_row_of(r, "id") or memory_row(namespace.pk, r) for r in records]
        written = {
            row[0] for row in insert_json_objects(Memory._meta.db_table, _MEMORY_INSERT, rows, suffix=_MEMORY_CONFLICT)
        }
        embedded = embedding.result() if embedding is not None else None
    made = dict(zip(to_embed, embedded[1], strict=True)) if embedded is not None else {}
    owners, vectors = [], []
    for i, r in enumerate(records):
        if r["id"] not in written:
            continue
        if i in made:
            vectors.append(made[i])
        elif carried and r.get("vector") is not None:
            vectors.append(np.frombuffer(r["vector"], dtype="<f4"))
        else:
            continue  # the embedder failed: found by full text until `embed_memories` fills it in
        owners.append(Owner(r["id"], namespace.pk, r["user_id"]))
    if owners:
        vectors_store(owners, embedded[0] if embedded is not None else get_embedder(), np.stack(vectors), fresh=True)
    return written


def revisions_restore_insert(records: list[dict[str, Any]]) -> None:
    """Insert revisions, their rows as one JSON document (`revision_row`, or a record's `row` made beforehand)."""
    rows = [_row_of(r, "memory_id") or revision_row(r) for r in records]
    insert_json_objects(MemoryRevision._meta.db_table, _REVISION_COLUMNS, rows)


def evidence_restore_insert(rows: list[tuple[uuid.UUID, int, Any]]) -> None:
    """(memory id, message pk, created_at) triples."""
    copy_rows(MemoryEvidence._meta.db_table, ("memory_id", "message_id", "created_at"), [list(row) for row in rows])


def pins_restore_insert(records: list[dict[str, Any]]) -> None:
    copy_rows(Pin._meta.db_table, PIN.fields, [record_values(r, PIN.fields) for r in records])
