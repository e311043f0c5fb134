"""Export: a namespace, or one person, as a snapshot.

It streams inside one REPEATABLE READ transaction (server-side cursors, or keyset
batches behind a transaction pooler), so the file is a consistent picture and memory
stays flat; each app gives the rows and the records of its own tables.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import orjson
from django.db import connections, transaction
from django.utils import timezone

from memoryadmin.audit.services import Actor, audit_record
from memoryadmin.conversations import records as conversation_records
from memoryadmin.core.app_ids import validate_app_id
from memoryadmin.core.personal_data import holdings
from memoryadmin.core.replicas import read_alias
from memoryadmin.core.streaming import rows_streamed
from memoryadmin.core.timestamps import rfc3339
from memoryadmin.governance.snapshots.format import FORMAT, RECORD_TYPES, VERSION, line
from memoryadmin.memories import records as memory_records
from memoryadmin.tenancy.models import Namespace

CHUNK = 5000
EXPORT_LINES = 1000
EXPORT_CHUNK_BYTES = 1024 * 1024
# Which app gives the records of each type.
OWNERS = {
    **dict.fromkeys(conversation_records.RECORD_TYPES, conversation_records),
    **dict.fromkeys(memory_records.RECORD_TYPES, memory_records),
}


def unexported_holdings() -> list[str]:
    """Tables about a person that no record type carries and that do not say why they stay out."""
    carried = {model for records in set(OWNERS.values()) for model in records.MODELS.values()}
    return [h.label for h in holdings() if h.model not in carried and getattr(h.model, "SNAPSHOT_EXPORT", True)]


@contextmanager
def _consistent_read() -> Iterator[None]:
    """One transaction for the whole export: REPEATABLE READ when we open it ourselves.

    On the database reads go to: a replica when the export is read as lag-tolerant.
    """
    alias = read_alias()
    reader = connections[alias]
    outermost = not reader.in_atomic_block
    with transaction.atomic(using=alias):
        if outermost:
            with reader.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        yield


def _querysets(namespace: Namespace, user_id: str | None, vectors: tuple[str, int] | None) -> dict[str, Any]:
    found = {
        **conversation_records.export_querysets(namespace, user_id),
        **memory_records.export_querysets(namespace, user_id, vectors),
    }
    return {kind: found[kind] for kind in RECORD_TYPES}


def _export_chunks(*, namespace: Namespace, user_id: str | None) -> Iterator[bytes]:
    """The snapshot's bytes: the header, then up to EXPORT_LINES whole lines at a time, then the trailer."""
    if user_id is not None:
        validate_app_id(user_id, "user_id")
    with _consistent_read():
        vectors = memory_records.export_vectors(namespace)
        querysets = _querysets(namespace, user_id, vectors)
        counts = {kind: qs.order_by().count() for kind, qs in querysets.items()}
        digest = hashlib.sha256()
        fields = {
            "format": FORMAT,
            "version": VERSION,
            "namespace": namespace.slug,
            "user_id": user_id,
            "created_at": rfc3339(timezone.now()),
            "counts": counts,
        }
        if vectors is not None:
            fields["vectors"] = {"model": vectors[0], "dimension": vectors[1]}
        header = line(fields)
        digest.update(header)
        yield header
        written = 0
        pending: list[bytes] = []
        size = 0
        dumps = orjson.dumps
        for kind, qs in querysets.items():
            record = OWNERS[kind].export_record
            for row in rows_streamed(qs, CHUNK):
                encoded = dumps(record(kind, row)) + b"\n"
                pending.append(encoded)
                size += len(encoded)
                if len(pending) >= EXPORT_LINES or size >= EXPORT_CHUNK_BYTES:
                    chunk = b"".join(pending)
                    digest.update(chunk)
                    written += len(pending)
                    pending, size = [], 0
                    yield chunk
        if pending:
            chunk = b"".join(pending)
            digest.update(chunk)
            written += len(pending)
            yield chunk
        yield line({"type": "end", "records": written, "sha256": digest.hexdigest()})


def snapshot_export_lines(*, namespace: Namespace, user_id: str | None = None) -> Iterator[bytes]:
    """The snapshot, line by line (each ends with a newline). Iterate it to the end or close it."""
    for chunk in _export_chunks(namespace=namespace, user_id=user_id):
        # JSON escapes every control character inside strings: a newline byte only ends a line.
        yield from chunk.splitlines(keepends=True)


def snapshot_export_stream(
    *, namespace: Namespace, user_id: str | None = None, actor: Actor | None = None
) -> Iterator[bytes]:
    """The same bytes as `snapshot_export_lines`, about a thousand lines at a time, for a response.

    A web server writes each yielded item on its own; a write per line would dominate the export.
    A chunk is capped in bytes as well, so long messages do not make the worker's memory grow.
    With an `actor`, the export is a recorded governance action: the audit event is written
    before the first byte goes.
    """
    if user_id is not None:
        validate_app_id(user_id, "user_id")
    if actor is not None:
        audit_record(
            actor=actor,
            action="subject.export" if user_id is not None else "snapshot.export",
            namespace_id=namespace.pk,
            target_type="subject" if user_id is not None else "namespace",
            user_id=user_id,
        )
    return _export_chunks(namespace=namespace, user_id=user_id)
