"""Snapshots: a namespace (or one person) as JSON Lines, and back.

Format: a header line, one record a line, a trailer with the SHA-256 of every
byte before it. Records carry the fields of the API objects of their kind
(the representation functions are shared) plus "type" and the keys that tie
them together (a message's session_id, an evidence's memory_id).

Export streams from server-side cursors inside one REPEATABLE READ
transaction, so the file is a consistent picture and memory stays flat.

Restore reads the file twice: the first pass validates everything (format,
version, order, every record, the checksum) and writes nothing, and looks up
which of the snapshot's tombstones, texts and sessions the namespace already
holds; the second applies it in batches inside one transaction, with no batch
reading rows by namespace (so its cost does not grow with what the restore has
written) and the rows written by COPY or multi-row inserts. A tombstone or a later erasure
always wins over a record; ids and timestamps are kept; restoring the same
file again changes nothing.
"""

from __future__ import annotations

import hashlib
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, BinaryIO

import orjson
from django.db import DatabaseError, connection, transaction
from django.db.models import Exists, F, Max, OuterRef
from django.utils import timezone

from memoryadmin.audit.services import Actor, audit_record
from memoryadmin.conversations.models import Message, MessageKind, Role, Session
from memoryadmin.conversations.representations import message_dict, session_dict
from memoryadmin.core.app_ids import APP_ID_RE, validate_app_id
from memoryadmin.core.errors import InvalidInput, ServiceError
from memoryadmin.core.fingerprints import subject_hmac, text_fingerprint
from memoryadmin.core.storable_json import json_problem
from memoryadmin.core.timestamps import rfc3339
from memoryadmin.governance.models import ErasureRequest, ErasureStatus
from memoryadmin.memories.models import (
    Memory,
    MemoryEvidence,
    MemoryRevision,
    MemorySource,
    MemoryStatus,
    MemoryType,
    Pin,
    Tombstone,
    TombstoneReason,
)
from memoryadmin.memories.representations import evidence_fields, memory_dict, pin_dict, revision_dict, tombstone_dict
from memoryadmin.memories.services import clean_labels, clean_text
from memoryadmin.tenancy.models import Namespace

FORMAT = "memoryadmin.snapshot"
VERSION = 1
# Tombstones come first so a restore knows what must not come back before it meets a memory.
RECORD_TYPES = ("tombstone", "session", "message", "memory", "revision", "evidence", "pin")
OUTCOMES = ("created", "updated", "unchanged", "suppressed", "skipped_erased", "skipped")
CHUNK = 5000
EXPORT_LINES = 1000
EXPORT_CHUNK_BYTES = 1024 * 1024
BATCH = 1000
# A restore's memories pass through this temporary table on their way in (COPY cannot skip conflicts).
MEMORY_STAGE = "snapshot_restore_memory"
GIN_PENDING_LIST_LIMIT = "64MB"
GIN_TABLES = ("memories_memory", "conversations_message")
# Validation looks up what the namespace already holds this many records at a time.
LOOKUP_BATCH = 5000
MAX_LINE_BYTES = 4 * 1024 * 1024
SAMPLES_PER_OUTCOME = 5
# Django's `.values` builds a new list on every access; a restore asks millions of times.
TOMBSTONE_REASONS = tuple(TombstoneReason.values)
ROLES = tuple(Role.values)
MESSAGE_KINDS = tuple(MessageKind.values)
MEMORY_TYPES = tuple(MemoryType.values)
MEMORY_STATUSES = tuple(MemoryStatus.values)
MEMORY_SOURCES = tuple(MemorySource.values)


def _line(record: dict[str, Any]) -> bytes:
    return orjson.dumps(record) + b"\n"


@contextmanager
def _consistent_read() -> Iterator[None]:
    """One transaction for the whole export: REPEATABLE READ when we open it ourselves."""
    outermost = not connection.in_atomic_block
    with transaction.atomic():
        if outermost:
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        yield


def _querysets(namespace: Namespace, user_id: str | None) -> dict[str, Any]:
    tombstones = Tombstone.objects.filter(namespace=namespace)
    sessions = Session.objects.filter(namespace=namespace)
    messages = Message.objects.filter(session__namespace=namespace)
    memories = Memory.objects.filter(namespace=namespace)
    revisions = MemoryRevision.objects.filter(memory__namespace=namespace)
    evidence = MemoryEvidence.objects.filter(memory__namespace=namespace)
    pins = Pin.objects.filter(memory__namespace=namespace)
    if user_id is not None:
        tombstones = tombstones.filter(user_id=user_id)
        sessions = sessions.filter(user_id=user_id)
        messages = messages.filter(session__user_id=user_id)
        memories = memories.filter(user_id=user_id)
        revisions = revisions.filter(memory__user_id=user_id)
        # A person's export holds only messages of their own sessions, even as evidence.
        evidence = evidence.filter(memory__user_id=user_id, message__session__user_id=user_id)
        pins = pins.filter(memory__user_id=user_id)
    # Rows, not model instances: the representation functions read the same attribute names
    # from a named row, and an export of millions of records skips a model build per row.
    return {
        "tombstone": tombstones.order_by("user_id", "fingerprint").values_list(*_TOMBSTONE_FIELDS, named=True),
        # Sessions in id order, messages in (session id, seq) order: the unique index's order, no
        # sort of millions of rows; a restore inserts sessions in this order, so a re-export matches.
        "session": sessions.order_by("id").values_list(*_SESSION_FIELDS, named=True),
        "message": messages.annotate(sid=F("session__session_id"))
        .order_by("session_id", "seq")
        .values_list(*_MESSAGE_FIELDS, "sid", named=True),
        "memory": memories.annotate(is_pinned=Exists(Pin.objects.filter(memory_id=OuterRef("pk"))))
        .order_by("id")
        .values_list(*_MEMORY_FIELDS, "is_pinned", named=True),
        "revision": revisions.order_by("memory_id", "revision").values_list(*_REVISION_FIELDS, named=True),
        "evidence": evidence.order_by("memory_id", "message_id").values(
            "memory_id",
            "message_id",
            "created_at",
            session_id=F("message__session__session_id"),
            seq=F("message__seq"),
            role=F("message__role"),
            content=F("message__content"),
        ),
        "pin": pins.order_by("memory_id").values_list(*_PIN_FIELDS, named=True),
    }


# The columns each representation reads (search_vector, fingerprints of memories and other
# internals stay out of the snapshot).
_TOMBSTONE_FIELDS = ("id", "user_id", "fingerprint", "reason", "text", "memory_type", "actor", "created_at")
_SESSION_FIELDS = (
    "session_id",
    "user_id",
    "agent_id",
    "metadata",
    "message_count",
    "created_at",
    "updated_at",
    "last_message_at",
)
_MESSAGE_FIELDS = (
    "id",
    "seq",
    "role",
    "kind",
    "content",
    "name",
    "run_id",
    "tool_calls",
    "tool_call_id",
    "metadata",
    "created_at",
    "persisted_at",
    "extracted_at",
)
_MEMORY_FIELDS = (
    "id",
    "text",
    "user_id",
    "session_id",
    "agent_id",
    "memory_type",
    "status",
    "topics",
    "entities",
    "metadata",
    "source",
    "created_at",
    "updated_at",
    "last_accessed_at",
    "revision",
)
_REVISION_FIELDS = (
    "memory_id",
    "revision",
    "text",
    "memory_type",
    "topics",
    "entities",
    "metadata",
    "actor",
    "reason",
    "created_at",
)
_PIN_FIELDS = ("memory_id", "pinned_by", "reason", "created_at")


def _record(kind: str, row: Any) -> dict[str, Any]:
    if kind == "tombstone":
        return {"type": kind, **tombstone_dict(row)}
    if kind == "session":
        return {"type": kind, **session_dict(row)}
    if kind == "message":
        return {
            "type": kind,
            "session_id": row.sid,
            **message_dict(row),
            "extracted_at": rfc3339(row.extracted_at),
        }
    if kind == "memory":
        return {"type": kind, **memory_dict(row, pinned=row.is_pinned)}
    if kind == "revision":
        return {"type": kind, **revision_dict(row)}
    if kind == "evidence":
        return {"type": kind, **evidence_fields(**row)}
    return {"type": kind, **pin_dict(row)}


def _export_chunks(*, namespace: Namespace, user_id: str | None) -> Iterator[bytes]:
    """The snapshot's bytes: the header, then up to EXPORT_LINES whole lines at a time, then the trailer."""
    if user_id is not None:
        validate_app_id(user_id, "user_id")
    with _consistent_read():
        querysets = _querysets(namespace, user_id)
        counts = {kind: qs.order_by().count() for kind, qs in querysets.items()}
        digest = hashlib.sha256()
        header = _line(
            {
                "format": FORMAT,
                "version": VERSION,
                "namespace": namespace.slug,
                "user_id": user_id,
                "created_at": rfc3339(timezone.now()),
                "counts": counts,
            }
        )
        digest.update(header)
        yield header
        written = 0
        pending: list[bytes] = []
        size = 0
        dumps = orjson.dumps
        for kind, qs in querysets.items():
            for row in qs.iterator(chunk_size=CHUNK):
                line = dumps(_record(kind, row)) + b"\n"
                pending.append(line)
                size += len(line)
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
        yield _line({"type": "end", "records": written, "sha256": digest.hexdigest()})


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


# --- restore -----------------------------------------------------------------------------------


class SnapshotInvalid(InvalidInput):
    code = "invalid_snapshot"


class ChecksumMismatch(SnapshotInvalid):
    code = "checksum_mismatch"


class NamespaceMismatch(ServiceError):
    status = 409
    code = "namespace_mismatch"


def _fail(line_no: int, message: str, **details: Any) -> SnapshotInvalid:
    return SnapshotInvalid(f"line {line_no}: {message}", details={"line": line_no, **details})


class _Fields:
    """Typed reads of one record; every problem names the line and the field."""

    def __init__(self, record: dict[str, Any], line_no: int) -> None:
        self.record = record
        self.line_no = line_no

    def _get(self, key: str, required: bool) -> Any:
        if key not in self.record:
            if required:
                raise _fail(self.line_no, f"missing field {key!r}", field=key)
            return None
        return self.record[key]

    def text(self, key: str, *, required: bool = True, nullable: bool = False, max_len: int = 10_000_000) -> str | None:
        value = self._get(key, required)
        if value is None:
            if required and not nullable:
                raise _fail(self.line_no, f"{key} must not be null", field=key)
            return None
        if not isinstance(value, str) or "\x00" in value or len(value) > max_len:
            raise _fail(self.line_no, f"{key} must be a string of at most {max_len} characters", field=key)
        return value

    def app_id(self, key: str, *, nullable: bool = False) -> str | None:
        value = self.text(key, nullable=nullable, max_len=128)
        if value is None or (nullable and value == ""):
            return None
        try:
            validate_app_id(value, key)
        except InvalidInput:
            raise _fail(self.line_no, f"{key} must match {APP_ID_RE}", field=key) from None
        return value

    def when(self, key: str, *, nullable: bool = False) -> datetime | None:
        value = self.text(key, nullable=nullable, max_len=64)
        if value is None:
            return None
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError:
            parsed = None
        if parsed is None or parsed.tzinfo is None:
            raise _fail(self.line_no, f"{key} must be an RFC 3339 timestamp with offset", field=key)
        return parsed

    def number(self, key: str, *, minimum: int = 0, maximum: int = 2**31 - 1) -> int:
        value = self._get(key, True)
        if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= maximum:
            raise _fail(self.line_no, f"{key} must be an integer between {minimum} and {maximum}", field=key)
        return value

    def uuid(self, key: str) -> uuid.UUID:
        value = self.text(key, max_len=64)
        try:
            return uuid.UUID(value)
        except (TypeError, ValueError):
            raise _fail(self.line_no, f"{key} must be a UUID", field=key) from None

    def object(self, key: str) -> dict[str, Any]:
        value = self._get(key, True)
        if not isinstance(value, dict):
            raise _fail(self.line_no, f"{key} must be an object", field=key)
        # Whatever the API would refuse to store, a snapshot may not bring in either.
        if problem := json_problem(value):
            raise _fail(self.line_no, f"{key} {problem}", field=key)
        return value

    def labels(self, key: str) -> list[str]:
        value = self._get(key, True)
        if not isinstance(value, list):
            raise _fail(self.line_no, f"{key} must be a list of strings", field=key)
        try:
            return clean_labels(value, key)
        except InvalidInput as exc:
            raise _fail(self.line_no, exc.message, field=key) from None

    def choice(self, key: str, choices: tuple[str, ...], *, nullable: bool = False) -> str | None:
        value = self.text(key, nullable=nullable, max_len=40)
        if value is None:
            return None
        if value not in choices:
            raise _fail(self.line_no, f"{key} must be one of {', '.join(choices)}", field=key)
        return value


def _parse_tombstone(f: _Fields) -> dict[str, Any]:
    fingerprint = f.text("fingerprint", max_len=64)
    if not fingerprint or len(fingerprint) != 64 or any(c not in "0123456789abcdef" for c in fingerprint):
        raise _fail(f.line_no, "fingerprint must be 64 hex digits", field="fingerprint")
    return {
        "id": _int_id(f),
        "user_id": f.app_id("user_id"),
        "fingerprint": fingerprint,
        "reason": f.choice("reason", TOMBSTONE_REASONS),
        "text": f.text("text", nullable=True) or "",
        "memory_type": f.text("memory_type", nullable=True, max_len=12) or "",
        "actor": f.text("actor", max_len=220),
        "created_at": f.when("created_at"),
    }


def _parse_session(f: _Fields) -> dict[str, Any]:
    return {
        "session_id": f.app_id("session_id"),
        "user_id": f.app_id("user_id"),
        "agent_id": f.app_id("agent_id", nullable=True) or "",
        "metadata": f.object("metadata"),
        "message_count": f.number("message_count"),
        "created_at": f.when("created_at"),
        "updated_at": f.when("updated_at"),
        "last_message_at": f.when("last_message_at", nullable=True),
    }


def _parse_message(f: _Fields) -> dict[str, Any]:
    tool_calls = f.record.get("tool_calls")
    if tool_calls is not None and not isinstance(tool_calls, list | dict):
        raise _fail(f.line_no, "tool_calls must be a list, an object or null", field="tool_calls")
    if problem := json_problem(tool_calls):
        raise _fail(f.line_no, f"tool_calls {problem}", field="tool_calls")
    run_id = f.app_id("run_id", nullable=True) or ""
    return {
        "session_id": f.app_id("session_id"),
        "id": _int_id(f),
        "seq": f.number("seq", minimum=1),
        "role": f.choice("role", ROLES),
        "kind": f.choice("kind", MESSAGE_KINDS),
        "content": f.text("content", max_len=1_000_000) or "",
        "name": f.text("name", nullable=True, max_len=128) or "",
        "run_id": run_id,
        "tool_calls": tool_calls,
        "tool_call_id": f.text("tool_call_id", nullable=True, max_len=128) or "",
        "metadata": f.object("metadata"),
        "created_at": f.when("created_at"),
        "persisted_at": f.when("persisted_at"),
        "extracted_at": f.when("extracted_at", nullable=True) if "extracted_at" in f.record else None,
    }


def _int_id(f: _Fields) -> int:
    """Integer ids travel as strings (as the API shows them); plain integers are accepted too."""
    raw = f.record.get("id")
    if isinstance(raw, int) and not isinstance(raw, bool):
        raw = str(raw)
        f = _Fields({**f.record, "id": raw}, f.line_no)
    value = f.text("id", max_len=20)
    if not value or not value.isdigit() or not 1 <= int(value) < 2**63:
        raise _fail(f.line_no, "id must be a positive integer", field="id")
    return int(value)


def _parse_memory(f: _Fields) -> dict[str, Any]:
    try:
        text = clean_text(f.text("text", max_len=1_000_000) or "")
    except InvalidInput as exc:
        raise _fail(f.line_no, exc.message, **exc.details) from None
    memory_type = f.choice("memory_type", MEMORY_TYPES)
    return {
        "id": f.uuid("id"),
        "text": text,
        "user_id": f.app_id("user_id"),
        "session_id": f.app_id("session_id", nullable=True) or "",
        "agent_id": f.app_id("agent_id", nullable=True) or "",
        "memory_type": memory_type,
        "status": f.choice("status", MEMORY_STATUSES),
        "topics": f.labels("topics"),
        "entities": f.labels("entities"),
        "metadata": f.object("metadata"),
        "source": f.choice("source", MEMORY_SOURCES),
        "created_at": f.when("created_at"),
        "updated_at": f.when("updated_at"),
        "last_accessed_at": f.when("last_accessed_at", nullable=True),
        "revision": f.number("revision", minimum=1),
        "fingerprint": text_fingerprint(text),
    }


def _parse_revision(f: _Fields) -> dict[str, Any]:
    memory_type = f.choice("memory_type", MEMORY_TYPES)
    return {
        "memory_id": f.uuid("memory_id"),
        "revision": f.number("revision", minimum=1),
        "text": f.text("text", max_len=1_000_000) or "",
        "memory_type": memory_type,
        "topics": f.labels("topics"),
        "entities": f.labels("entities"),
        "metadata": f.object("metadata"),
        "actor": f.text("actor", max_len=220),
        "reason": f.text("reason", max_len=100_000) or "",
        "created_at": f.when("created_at"),
    }


def _parse_evidence(f: _Fields) -> dict[str, Any]:
    return {
        "memory_id": f.uuid("memory_id"),
        "session_id": f.app_id("session_id"),
        "seq": f.number("seq", minimum=1),
        "created_at": f.when("created_at"),
    }


def _parse_pin(f: _Fields) -> dict[str, Any]:
    return {
        "memory_id": f.uuid("memory_id"),
        "pinned_by": f.text("pinned_by", max_len=220),
        "reason": f.text("reason", max_len=100_000) or "",
        "created_at": f.when("created_at"),
    }


PARSERS: dict[str, Callable[[_Fields], dict[str, Any]]] = {
    "tombstone": _parse_tombstone,
    "session": _parse_session,
    "message": _parse_message,
    "memory": _parse_memory,
    "revision": _parse_revision,
    "evidence": _parse_evidence,
    "pin": _parse_pin,
}


@dataclass
class Header:
    namespace: str
    user_id: str | None
    created_at: datetime
    counts: dict[str, int]


def _lines(source: BinaryIO) -> Iterator[tuple[int, bytes]]:
    source.seek(0)
    line_no = 0
    while True:
        line = source.readline(MAX_LINE_BYTES + 1)
        if not line:
            return
        line_no += 1
        if len(line) > MAX_LINE_BYTES:
            raise _fail(line_no, f"a line is longer than {MAX_LINE_BYTES} bytes")
        yield line_no, line


def _loads(line_no: int, line: bytes) -> dict[str, Any]:
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:
        raise _fail(line_no, "not valid JSON") from None
    if not isinstance(value, dict):
        raise _fail(line_no, "each line must be a JSON object")
    return value


def _parse_header(raw: dict[str, Any]) -> Header:
    f = _Fields(raw, 1)
    if raw.get("format") != FORMAT:
        raise _fail(1, f"format must be {FORMAT!r}", field="format")
    if raw.get("version") != VERSION:
        raise _fail(1, f"unsupported version {raw.get('version')!r}; this server reads version {VERSION}")
    counts = f.object("counts")
    return Header(
        namespace=f.text("namespace", max_len=63) or "",
        user_id=f.app_id("user_id", nullable=True),
        created_at=f.when("created_at"),  # type: ignore[arg-type]
        counts={k: v for k, v in counts.items() if isinstance(v, int)},
    )


@dataclass
class Records:
    header: Header
    total: int


class _Committed:
    """What the namespace holds before a restore writes anything, looked up during validation.

    A restore's own writes make per-batch lookups by namespace slow: the statistics
    still describe the namespace as it was, so PostgreSQL reads every row written so
    far to answer each batch. Looked up once here, against committed data only, in
    batches whose cost does not depend on the restore; what the restore itself writes
    is known without asking the database.
    """

    def __init__(self, namespace: Namespace) -> None:
        self.namespace = namespace
        # Lines (tombstones and memories) whose (user_id, fingerprint) has a tombstone.
        self.tombstoned: set[int] = set()
        # session_id -> primary key of the sessions the snapshot names that exist.
        self.sessions: dict[str, int] = {}
        self._pairs: list[tuple[int, str, str]] = []
        self._session_ids: list[str] = []

    def add(self, kind: str, line_no: int, record: dict[str, Any]) -> None:
        if kind in ("tombstone", "memory"):
            self._pairs.append((line_no, record["user_id"], record["fingerprint"]))
            if len(self._pairs) >= LOOKUP_BATCH:
                self._look_up_pairs()
        elif kind == "session":
            self._session_ids.append(record["session_id"])
            if len(self._session_ids) >= LOOKUP_BATCH:
                self._look_up_sessions()

    def finish(self) -> None:
        self._look_up_pairs()
        self._look_up_sessions()

    def _look_up_pairs(self) -> None:
        if not self._pairs:
            return
        lines, users, fingerprints = zip(*self._pairs, strict=True)
        self._pairs = []
        with connection.cursor() as cursor:
            cursor.execute(
                """
                SELECT p.line FROM unnest(%s::int[], %s::text[], %s::text[]) AS p(line, user_id, fingerprint)
                WHERE EXISTS (SELECT 1 FROM memories_tombstone t
                              WHERE t.namespace_id = %s AND t.user_id = p.user_id AND t.fingerprint = p.fingerprint)
                """,
                [list(lines), list(users), list(fingerprints), self.namespace.pk],
            )
            self.tombstoned.update(line for (line,) in cursor.fetchall())

    def _look_up_sessions(self) -> None:
        if not self._session_ids:
            return
        rows = Session.objects.filter(namespace=self.namespace, session_id__in=self._session_ids).values_list(
            "session_id", "pk"
        )
        self._session_ids = []
        self.sessions.update(rows)


def snapshot_validate(*, namespace: Namespace, source: BinaryIO, committed: _Committed | None = None) -> Records:
    """The first pass: everything a restore checks before it may write anything.

    With `committed`, it also looks up what the namespace already holds of the snapshot's records.
    """
    digest = hashlib.sha256()
    header: Header | None = None
    trailer: dict[str, Any] | None = None
    last_rank = 0
    total = 0
    for line_no, line in _lines(source):
        if trailer is not None:
            raise _fail(line_no, "nothing may follow the trailer")
        raw = _loads(line_no, line)
        if header is None:
            header = _parse_header(raw)
            if header.namespace != namespace.slug:
                raise NamespaceMismatch(
                    f"this snapshot is of namespace {header.namespace!r}, not {namespace.slug!r}",
                    details={"snapshot_namespace": header.namespace},
                )
            digest.update(line)
            continue
        kind = raw.get("type")
        if kind == "end":
            trailer = raw
            continue
        if kind not in PARSERS:
            raise _fail(line_no, f"unknown record type {kind!r}", field="type")
        rank = RECORD_TYPES.index(kind)
        if rank < last_rank:
            raise _fail(line_no, f"{kind} records must come before {RECORD_TYPES[last_rank]} records")
        last_rank = rank
        parsed = PARSERS[kind](_Fields(raw, line_no))
        if header.user_id is not None and parsed.get("user_id", header.user_id) != header.user_id:
            raise _fail(line_no, "a snapshot of one person may hold only that person's records", field="user_id")
        if committed is not None:
            committed.add(kind, line_no, parsed)
        digest.update(line)
        total += 1
    if header is None:
        raise SnapshotInvalid("the snapshot is empty", details={})
    if trailer is None:
        raise SnapshotInvalid("the snapshot has no trailer: it is truncated", details={})
    if trailer.get("sha256") != digest.hexdigest():
        raise ChecksumMismatch("the checksum does not match the content: the file was changed or damaged", details={})
    if "records" in trailer and trailer["records"] != total:
        raise SnapshotInvalid("the trailer's record count does not match the file", details={})
    if committed is not None:
        committed.finish()
    return Records(header=header, total=total)


@dataclass
class RestoreResult:
    dry_run: bool
    counts: dict[str, int]
    by_type: dict[str, dict[str, int]]
    samples: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    records: int = 0


class _DryRunRollback(Exception):
    pass


def _insert(
    table: str,
    columns: tuple[str, ...],
    rows: list[list[Any]],
    *,
    values: str | None = None,
    suffix: str = "",
) -> list[tuple[Any, ...]]:
    """One multi-row INSERT for a batch; `values` is the placeholder list of one row (casts, defaults)."""
    if not rows:
        return []
    row_sql = f"({values or ', '.join(['%s'] * len(columns))})"
    sql = f"INSERT INTO {table} ({', '.join(columns)}) VALUES {', '.join([row_sql] * len(rows))} {suffix}"
    with connection.cursor() as cursor:
        cursor.execute(sql, [value for row in rows for value in row])
        return cursor.fetchall() if "RETURNING" in suffix else []


def _copy(table: str, columns: tuple[str, ...], rows: list[list[Any]]) -> None:
    """A batch through COPY: no statement to build or parse, whatever the batch's size."""
    if not rows:
        return
    with connection.cursor() as cursor, cursor.cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


def _next_ids(table: str, count: int) -> list[int]:
    """`count` ids drawn from the table's sequence, for rows written by COPY."""
    if not count:
        return []
    with connection.cursor() as cursor:
        cursor.execute("SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)", [table, count])
        return [row[0] for row in cursor.fetchall()]


def _json(value: Any) -> str:
    return orjson.dumps(value).decode()


class _Applier:
    """The second pass: batches of one record type at a time, set-based where it counts.

    No statement of a batch reads rows by namespace: what existed before the restore
    comes from `_Committed`, what the restore wrote is kept here, and everything else
    is looked up by primary key or by a parent's key, whose cost stays flat however
    much the restore has written.
    """

    def __init__(
        self, namespace: Namespace, progress: Callable[[int], None] | None, committed: _Committed | None = None
    ) -> None:
        self.namespace = namespace
        self.progress = progress
        self.committed = committed or _Committed(namespace)
        self.by_type: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(OUTCOMES, 0))
        self.samples: dict[str, list[dict[str, str]]] = defaultdict(list)
        self.done = 0
        ledger = (
            ErasureRequest.objects.filter(namespace=namespace, status=ErasureStatus.COMPLETED)
            .values("subject_hash")
            .annotate(last=Max("completed_at"))
        )
        self.erased_at = {row["subject_hash"]: row["last"] for row in ledger}
        self.sessions: dict[str, tuple[int, str] | None] = {}
        self.touched_sessions: set[int] = set()
        # (user_id, fingerprint) of the snapshot's tombstones that this restore wrote or found.
        self.restored_tombstones: set[tuple[str, str]] = set()

    # helpers

    def erased_after(self, user_id: str, written_at: datetime | None) -> bool:
        if not self.erased_at:
            return False
        when = self.erased_at.get(subject_hmac(self.namespace.pk, user_id))
        return when is not None and (written_at is None or written_at <= when)

    def outcome(self, kind: str, outcome: str, label: str = "") -> None:
        self.by_type[kind][outcome] += 1
        if outcome != "unchanged" and len(self.samples[outcome]) < SAMPLES_PER_OUTCOME:
            self.samples[outcome].append({"type": kind, "label": label[:120]})

    def session_of(self, session_ids: Iterable[str]) -> None:
        """Sessions a record names that the snapshot's session records did not (rare: hand-made files)."""
        missing = [s for s in set(session_ids) if s not in self.sessions]
        if not missing:
            return
        rows = Session.objects.filter(namespace=self.namespace, session_id__in=missing).values_list(
            "pk", "session_id", "user_id"
        )
        found = {sid: (pk, uid) for pk, sid, uid in rows}
        for sid in missing:
            self.sessions[sid] = found.get(sid)

    def bump_sequence(self, table: str, kept_ids: list[int]) -> None:
        """Move the id sequence past ids kept from the snapshot, before anything draws from it."""
        if not kept_ids:
            return
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_get_serial_sequence(%s, 'id')", [table])
            sequence = cursor.fetchone()[0]
            cursor.execute(
                f"SELECT setval(%s, GREATEST(%s, (SELECT last_value FROM {sequence})))", [sequence, max(kept_ids)]
            )

    def tombstoned(self, r: dict[str, Any]) -> bool:
        return r["line"] in self.committed.tombstoned or (r["user_id"], r["fingerprint"]) in self.restored_tombstones

    def pair_taken(self, user_id: str, fingerprint: str) -> bool:
        """Whether a memory of this namespace has this text: one probe of the unique index."""
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT 1 FROM memories_memory WHERE namespace_id = %s AND user_id = %s AND fingerprint = %s",
                [self.namespace.pk, user_id, fingerprint],
            )
            return cursor.fetchone() is not None

    def free_ids(self, model: Any, ids: list[int]) -> set[int]:
        taken = set(model.objects.filter(pk__in=ids).values_list("pk", flat=True))
        return {i for i in ids if i not in taken}

    # per type

    def apply(self, kind: str, batch: list[dict[str, Any]]) -> None:
        getattr(self, f"_apply_{kind}")(batch)
        self.done += len(batch)
        if self.progress:
            self.progress(self.done)

    def _apply_tombstone(self, batch: list[dict[str, Any]]) -> None:
        wanted = []
        for r in batch:
            if self.erased_after(r["user_id"], r["created_at"]):
                self.outcome("tombstone", "skipped_erased", r["fingerprint"][:12])
            elif self.tombstoned(r):
                self.outcome("tombstone", "unchanged")
            else:
                wanted.append(r)
        if not wanted:
            return
        free = self.free_ids(Tombstone, [r["id"] for r in wanted])
        rows = []
        for r in wanted:
            tid = r["id"] if r["id"] in free else None
            free.discard(r["id"])
            rows.append(
                [
                    tid,
                    self.namespace.pk,
                    r["user_id"],
                    r["fingerprint"],
                    r["reason"],
                    r["text"],
                    r["memory_type"],
                    r["actor"],
                    r["created_at"],
                ]
            )
        self.bump_sequence("memories_tombstone", [row[0] for row in rows if row[0]])
        # A pair twice in the snapshot, or written meanwhile by someone else, is not written again.
        written = _insert(
            "memories_tombstone",
            ("id", "namespace_id", "user_id", "fingerprint", "reason", "text", "memory_type", "actor", "created_at"),
            rows,
            values="COALESCE(%s, nextval(pg_get_serial_sequence('memories_tombstone', 'id'))), "
            "%s, %s, %s, %s, %s, %s, %s, %s",
            suffix="ON CONFLICT DO NOTHING RETURNING user_id, fingerprint",
        )
        # Written now or already there: either way the pair is tombstoned from here on.
        self.restored_tombstones.update((r["user_id"], r["fingerprint"]) for r in wanted)
        created = set(written)
        for r in wanted:
            key = (r["user_id"], r["fingerprint"])
            if key in created:
                created.discard(key)
                self.outcome("tombstone", "created", r["fingerprint"][:12])
            else:
                self.outcome("tombstone", "unchanged")

    def _apply_session(self, batch: list[dict[str, Any]]) -> None:
        known = self.committed.sessions
        pks = [known[r["session_id"]] for r in batch if r["session_id"] in known]
        current = {s.session_id: s for s in Session.objects.filter(pk__in=pks)} if pks else {}
        inserts = []
        for r in batch:
            sid = r["session_id"]
            if self.erased_after(r["user_id"], r["updated_at"]):
                self.sessions[sid] = None
                self.outcome("session", "skipped_erased", sid)
                continue
            existing = current.get(sid)
            if existing is None:
                if sid in self.sessions:
                    # The same session twice in one snapshot: the first one stands.
                    self.outcome("session", "unchanged")
                    continue
                self.sessions[sid] = None
                inserts.append(r)
                continue
            if existing.user_id != r["user_id"]:
                self.sessions[sid] = None
                self.outcome("session", "skipped", f"{sid}: belongs to another user")
                continue
            self.sessions[sid] = (existing.pk, existing.user_id)
            same = (
                existing.agent_id == r["agent_id"]
                and existing.metadata == r["metadata"]
                and existing.message_count == r["message_count"]
                and existing.created_at == r["created_at"]
                and existing.updated_at == r["updated_at"]
                and existing.last_message_at == r["last_message_at"]
            )
            if same or existing.updated_at > r["updated_at"]:
                self.outcome("session", "unchanged")
                continue
            with connection.cursor() as cursor:
                cursor.execute(
                    """
                    UPDATE conversations_session
                    SET agent_id = %s, metadata = %s, created_at = %s, updated_at = %s,
                        last_message_at = %s, message_count = GREATEST(message_count, %s),
                        last_activity_at = GREATEST(last_activity_at, COALESCE(%s, %s))
                    WHERE id = %s
                    """,
                    [
                        r["agent_id"],
                        _json(r["metadata"]),
                        r["created_at"],
                        r["updated_at"],
                        r["last_message_at"],
                        r["message_count"],
                        r["last_message_at"],
                        r["created_at"],
                        existing.pk,
                    ],
                )
            self.outcome("session", "updated", sid)
        if not inserts:
            return
        # Inserted in the snapshot's order, so the new ids (and a re-export) keep it.
        written = _insert(
            "conversations_session",
            (
                "namespace_id",
                "session_id",
                "user_id",
                "agent_id",
                "metadata",
                "message_count",
                "created_at",
                "updated_at",
                "last_message_at",
                "last_activity_at",
            ),
            [
                [
                    self.namespace.pk,
                    r["session_id"],
                    r["user_id"],
                    r["agent_id"],
                    _json(r["metadata"]),
                    r["message_count"],
                    r["created_at"],
                    r["updated_at"],
                    r["last_message_at"],
                    r["last_message_at"] or r["created_at"],
                ]
                for r in inserts
            ],
            values="%s, %s, %s, %s, %s::jsonb, %s, %s, %s, %s, %s",
            suffix="ON CONFLICT DO NOTHING RETURNING id, session_id",
        )
        ids = {sid: pk for pk, sid in written}
        raced = {}
        for r in inserts:
            sid = r["session_id"]
            if sid in ids:
                self.sessions[sid] = (ids[sid], r["user_id"])
                self.outcome("session", "created", sid)
            else:
                raced[sid] = r["user_id"]
                del self.sessions[sid]
        if raced:
            # Created by someone else since validation: theirs stands, as an existing one would.
            self.session_of(raced)
            for sid, user_id in raced.items():
                theirs = self.sessions[sid]
                if theirs is not None and theirs[1] != user_id:
                    self.sessions[sid] = None
                    self.outcome("session", "skipped", f"{sid}: belongs to another user")
                else:
                    self.outcome("session", "unchanged")

    def _apply_message(self, batch: list[dict[str, Any]]) -> None:
        self.session_of(r["session_id"] for r in batch)
        pks = {s[0] for r in batch if (s := self.sessions.get(r["session_id"]))}
        existing = set(Message.objects.filter(session_id__in=pks).values_list("session_id", "seq")) if pks else set()
        rows = []
        for r in batch:
            session = self.sessions.get(r["session_id"])
            if session is None:
                self.outcome("message", "skipped", f"{r['session_id']}#{r['seq']}: no session")
                continue
            pk, user_id = session
            if self.erased_after(user_id, r["persisted_at"]):
                self.outcome("message", "skipped_erased", f"{r['session_id']}#{r['seq']}")
            elif (pk, r["seq"]) in existing:
                self.outcome("message", "unchanged")
            else:
                existing.add((pk, r["seq"]))
                rows.append((pk, r))
        if not rows:
            return
        free = self.free_ids(Message, [r["id"] for _, r in rows])
        self.bump_sequence("conversations_message", list(free))
        kept = []
        for _, r in rows:
            kept.append(r["id"] in free)
            free.discard(r["id"])
        fresh = iter(_next_ids("conversations_message", kept.count(False)))
        params = []
        for (pk, r), keep in zip(rows, kept, strict=True):
            params.append(
                [
                    r["id"] if keep else next(fresh),
                    pk,
                    r["seq"],
                    r["role"],
                    r["kind"],
                    r["content"],
                    r["name"],
                    r["run_id"],
                    None if r["tool_calls"] is None else _json(r["tool_calls"]),
                    r["tool_call_id"],
                    _json(r["metadata"]),
                    r["created_at"],
                    r["persisted_at"],
                    r["extracted_at"],
                ]
            )
            self.touched_sessions.add(pk)
            self.outcome("message", "created", f"{r['session_id']}#{r['seq']}")
        # A message's columns are its representation's fields with the session's key after the id.
        _copy("conversations_message", ("id", "session_id", *_MESSAGE_FIELDS[1:]), params)

    def _apply_memory(self, batch: list[dict[str, Any]]) -> None:
        ids = [r["id"] for r in batch]
        current = {m.pk: m for m in Memory.objects.filter(pk__in=ids).defer("search_vector")}
        inserts: list[dict[str, Any]] = []
        for r in batch:
            if self.erased_after(r["user_id"], r["updated_at"]):
                self.outcome("memory", "skipped_erased", str(r["id"]))
                continue
            if self.tombstoned(r):
                self.outcome("memory", "suppressed", str(r["id"]))
                continue
            existing = current.get(r["id"])
            if existing is not None:
                if existing.namespace_id != self.namespace.pk or existing.user_id != r["user_id"]:
                    self.outcome("memory", "skipped", f"{r['id']}: the id belongs to another memory")
                elif self._memory_same(existing, r) or existing.updated_at > r["updated_at"]:
                    self.outcome("memory", "unchanged")
                elif existing.fingerprint != r["fingerprint"] and self.pair_taken(r["user_id"], r["fingerprint"]):
                    self.outcome("memory", "skipped", f"{r['id']}: another memory already has this text")
                else:
                    self._memory_update(r)
                    self.outcome("memory", "updated", f"{r['id']} ({r['memory_type']})")
                continue
            inserts.append(r)
        if not inserts:
            return
        # A text the user already has (from before, or earlier in this snapshot) is not written
        # again: the unique index answers, at the cost of the insert's own probe.
        columns = (
            "id",
            "namespace_id",
            "user_id",
            "session_id",
            "agent_id",
            "text",
            "memory_type",
            "status",
            "topics",
            "entities",
            "metadata",
            "source",
            "fingerprint",
            "created_at",
            "updated_at",
            "last_accessed_at",
            "revision",
            "access_count",
        )
        with connection.cursor() as cursor:
            cursor.execute(f"CREATE TEMP TABLE IF NOT EXISTS {MEMORY_STAGE} (LIKE memories_memory) ON COMMIT DROP")
        _copy(MEMORY_STAGE, columns, [[r["id"], self.namespace.pk, *self._memory_values(r), 0] for r in inserts])
        names = ", ".join(columns)
        with connection.cursor() as cursor:
            cursor.execute(
                f"WITH staged AS (DELETE FROM {MEMORY_STAGE} RETURNING {names}) "
                f"INSERT INTO memories_memory ({names}) SELECT {names} FROM staged "
                "ON CONFLICT DO NOTHING RETURNING id"
            )
            created = {row[0] for row in cursor.fetchall()}
        for r in inserts:
            if r["id"] in created:
                created.discard(r["id"])
                self.outcome("memory", "created", f"{r['id']} ({r['memory_type']})")
            else:
                self.outcome("memory", "unchanged")

    @staticmethod
    def _memory_same(m: Memory, r: dict[str, Any]) -> bool:
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
        )

    def _memory_values(self, r: dict[str, Any]) -> list[Any]:
        return [
            r["user_id"],
            r["session_id"],
            r["agent_id"],
            r["text"],
            r["memory_type"],
            r["status"],
            r["topics"],
            r["entities"],
            _json(r["metadata"]),
            r["source"],
            r["fingerprint"],
            r["created_at"],
            r["updated_at"],
            r["last_accessed_at"],
            r["revision"],
        ]

    def _memory_update(self, r: dict[str, Any]) -> None:
        with connection.cursor() as cursor:
            cursor.execute(
                """
                UPDATE memories_memory
                SET user_id = %s, session_id = %s, agent_id = %s, text = %s, memory_type = %s, status = %s,
                    topics = %s, entities = %s, metadata = %s::jsonb, source = %s, fingerprint = %s,
                    created_at = %s, updated_at = %s, last_accessed_at = %s, revision = %s
                WHERE id = %s AND namespace_id = %s
                """,
                [*self._memory_values(r), r["id"], self.namespace.pk],
            )

    def _memories_here(self, batch: list[dict[str, Any]]) -> dict[uuid.UUID, str]:
        # By primary key alone: a filter on the namespace would let the planner read the
        # namespace's rows (all those restored so far) instead.
        ids = list({r["memory_id"] for r in batch})
        rows = Memory.objects.filter(pk__in=ids).values_list("pk", "namespace_id", "user_id")
        return {pk: user_id for pk, namespace_id, user_id in rows if namespace_id == self.namespace.pk}

    def _apply_revision(self, batch: list[dict[str, Any]]) -> None:
        owners = self._memories_here(batch)
        existing = set(MemoryRevision.objects.filter(memory_id__in=list(owners)).values_list("memory_id", "revision"))
        rows = []
        for r in batch:
            user_id = owners.get(r["memory_id"])
            if user_id is None:
                self.outcome("revision", "skipped", f"{r['memory_id']} r{r['revision']}: no memory")
            elif self.erased_after(user_id, r["created_at"]):
                self.outcome("revision", "skipped_erased", f"{r['memory_id']} r{r['revision']}")
            elif (r["memory_id"], r["revision"]) in existing:
                self.outcome("revision", "unchanged")
            else:
                existing.add((r["memory_id"], r["revision"]))
                rows.append(
                    [
                        r["memory_id"],
                        r["revision"],
                        r["text"],
                        r["memory_type"],
                        r["topics"],
                        r["entities"],
                        _json(r["metadata"]),
                        r["actor"],
                        r["reason"],
                        r["created_at"],
                    ]
                )
                self.outcome("revision", "created", f"{r['memory_id']} r{r['revision']}")
        _copy(
            "memories_memoryrevision",
            (
                "memory_id",
                "revision",
                "text",
                "memory_type",
                "topics",
                "entities",
                "metadata",
                "actor",
                "reason",
                "created_at",
            ),
            rows,
        )

    def _apply_evidence(self, batch: list[dict[str, Any]]) -> None:
        owners = self._memories_here(batch)
        self.session_of(r["session_id"] for r in batch)
        wanted = {(s[0], r["seq"]) for r in batch if (s := self.sessions.get(r["session_id"]))}
        messages: dict[tuple[int, int], int] = {}
        if wanted:
            session_pks = {w[0] for w in wanted}
            seqs = {w[1] for w in wanted}
            for pk, session_pk, seq in Message.objects.filter(session_id__in=session_pks, seq__in=seqs).values_list(
                "pk", "session_id", "seq"
            ):
                messages[(session_pk, seq)] = pk
        existing = set(
            MemoryEvidence.objects.filter(
                memory_id__in=list(owners), message_id__in=list(messages.values())
            ).values_list("memory_id", "message_id")
        )
        inserts = []
        for r in batch:
            label = f"{r['memory_id']} <- {r['session_id']}#{r['seq']}"
            user_id = owners.get(r["memory_id"])
            session = self.sessions.get(r["session_id"])
            message_pk = messages.get((session[0], r["seq"])) if session else None
            if user_id is None or message_pk is None:
                self.outcome("evidence", "skipped", f"{label}: no memory or message")
            elif self.erased_after(user_id, r["created_at"]):
                self.outcome("evidence", "skipped_erased", label)
            elif (r["memory_id"], message_pk) in existing:
                self.outcome("evidence", "unchanged")
            else:
                existing.add((r["memory_id"], message_pk))
                inserts.append([r["memory_id"], message_pk, r["created_at"]])
                self.outcome("evidence", "created", label)
        _copy("memories_memoryevidence", ("memory_id", "message_id", "created_at"), inserts)

    def _apply_pin(self, batch: list[dict[str, Any]]) -> None:
        owners = self._memories_here(batch)
        existing = set(Pin.objects.filter(memory_id__in=list(owners)).values_list("memory_id", flat=True))
        inserts = []
        for r in batch:
            user_id = owners.get(r["memory_id"])
            if user_id is None:
                self.outcome("pin", "skipped", f"{r['memory_id']}: no memory")
            elif self.erased_after(user_id, r["created_at"]):
                self.outcome("pin", "skipped_erased", str(r["memory_id"]))
            elif r["memory_id"] in existing:
                self.outcome("pin", "unchanged")
            else:
                existing.add(r["memory_id"])
                inserts.append([r["memory_id"], r["pinned_by"], r["reason"], r["created_at"]])
                self.outcome("pin", "created", str(r["memory_id"]))
        _copy("memories_pin", ("memory_id", "pinned_by", "reason", "created_at"), inserts)

    def finish(self) -> None:
        with connection.cursor() as cursor:
            if self.touched_sessions:
                # The seq counter must stay ahead of every stored message, or the next append would collide.
                cursor.execute(
                    """
                    UPDATE conversations_session s
                    SET message_count = GREATEST(s.message_count, m.top)
                    FROM (SELECT session_id, max(seq) AS top FROM conversations_message
                          WHERE session_id = ANY(%s) GROUP BY session_id) m
                    WHERE s.id = m.session_id
                    """,
                    [sorted(self.touched_sessions)],
                )

    def totals(self) -> dict[str, int]:
        totals = dict.fromkeys(OUTCOMES, 0)
        for counts in self.by_type.values():
            for outcome, n in counts.items():
                totals[outcome] += n
        return totals


def _apply_all(applier: _Applier, source: BinaryIO) -> None:
    kind: str | None = None
    batch: list[dict[str, Any]] = []
    for line_no, line in _lines(source):
        if line_no == 1:
            continue
        raw = _loads(line_no, line)
        record_type = raw.get("type")
        if record_type == "end":
            break
        if record_type != kind or len(batch) >= BATCH:
            if batch:
                applier.apply(kind, batch)  # type: ignore[arg-type]
            kind, batch = record_type, []
        record = PARSERS[record_type](_Fields(raw, line_no))
        record["line"] = line_no
        batch.append(record)
    if batch:
        applier.apply(kind, batch)  # type: ignore[arg-type]
    applier.finish()


def _bulk_settings() -> None:
    """A restore writes many rows into tables with GIN indexes (memory text and search vectors).

    Each GIN index first collects new entries in a pending list and merges it into the
    index when it outgrows `gin_pending_list_limit` (4 MB by default); merging fewer,
    larger lists is about twice as fast for a restore's volume. SET LOCAL lasts until the
    end of the transaction, so it is used only when the restore's transaction is its own.
    """
    with connection.cursor() as cursor:
        cursor.execute(f"SET LOCAL gin_pending_list_limit = '{GIN_PENDING_LIST_LIMIT}'")
        cursor.execute(f"SET LOCAL work_mem = '{GIN_PENDING_LIST_LIMIT}'")


def _merge_gin_pending_lists() -> None:
    """Leave no large pending list behind: every search would scan it until the next merge."""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT i.indexrelid::regclass::text
            FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
            WHERE a.amname = 'gin' AND i.indrelid = ANY(%s::regclass[])
            ORDER BY 1
            """,
            [list(GIN_TABLES)],
        )
        indexes = [row[0] for row in cursor.fetchall()]
    for index in indexes:
        try:
            # Merging needs to own the index; without that right, the next insert merges as usual.
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute("SELECT gin_clean_pending_list(%s::regclass)", [index])
        except DatabaseError:
            pass


def snapshot_restore(
    *,
    namespace: Namespace,
    source: BinaryIO,
    actor: Actor,
    dry_run: bool = True,
    progress: Callable[[int], None] | None = None,
    reason: str = "",
) -> RestoreResult:
    """Validate the whole file, then apply it in one transaction (rolled back for a dry run).

    A dry run does every write and then undoes it, so its counts are exactly
    what a real restore would report.
    """
    committed = _Committed(namespace)
    records = snapshot_validate(namespace=namespace, source=source, committed=committed)
    applier = _Applier(namespace, progress, committed)
    try:
        outermost = not connection.in_atomic_block
        with transaction.atomic():
            if outermost:
                _bulk_settings()
            _apply_all(applier, source)
            _merge_gin_pending_lists()
            totals = applier.totals()
            audit_record(
                actor=actor,
                action="snapshot.restore",
                namespace_id=namespace.pk,
                target_type="snapshot",
                target_id=rfc3339(records.header.created_at) or "",
                user_id=records.header.user_id,
                reason=reason,
                data={
                    "records": records.total,
                    "counts": totals,
                    "scope": "user" if records.header.user_id else "namespace",
                },
            )
            if dry_run:
                raise _DryRunRollback
    except _DryRunRollback:
        pass
    return RestoreResult(
        dry_run=dry_run,
        counts=applier.totals(),
        by_type={k: dict(v) for k, v in applier.by_type.items()},
        samples=dict(applier.samples),
        records=records.total,
    )
