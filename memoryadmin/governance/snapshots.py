"""Snapshots: a namespace (or one person) as JSON Lines, and back.

Format: a header line, one record a line, a trailer with the SHA-256 of every
byte before it. Records carry the fields of the API objects of their kind
(the representation functions are shared) plus "type" and the keys that tie
them together (a message's session_id, an evidence's memory_id).

Export streams from server-side cursors inside one REPEATABLE READ
transaction, so the file is a consistent picture and memory stays flat.

Restore reads the file twice: the first pass validates everything (format,
version, order, every record, the checksum) and writes nothing; the second
applies it in batches inside one transaction. A tombstone or a later erasure
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
from django.db import connection, transaction
from django.db.models import Exists, F, Max, OuterRef
from django.utils import timezone

from memoryadmin.audit.services import Actor, audit_record
from memoryadmin.conversations.models import APP_ID_RE, Message, MessageKind, Role, Session
from memoryadmin.conversations.representations import message_dict, rfc3339, session_dict
from memoryadmin.conversations.services import validate_app_id
from memoryadmin.errors import InvalidInput, ServiceError
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
from memoryadmin.storable_json import json_problem
from memoryadmin.tenancy.fingerprints import subject_hmac, text_fingerprint
from memoryadmin.tenancy.models import Namespace

FORMAT = "memoryadmin.snapshot"
VERSION = 1
# Tombstones come first so a restore knows what must not come back before it meets a memory.
RECORD_TYPES = ("tombstone", "session", "message", "memory", "revision", "evidence", "pin")
OUTCOMES = ("created", "updated", "unchanged", "suppressed", "skipped_erased", "skipped")
CHUNK = 5000
STREAM_CHUNK_BYTES = 64 * 1024
BATCH = 1000
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


def snapshot_export_lines(*, namespace: Namespace, user_id: str | None = None) -> Iterator[bytes]:
    """The snapshot, line by line (each ends with a newline). Iterate it to the end or close it."""
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
        for kind, qs in querysets.items():
            for obj in qs.iterator(chunk_size=CHUNK):
                line = _line(_record(kind, obj))
                digest.update(line)
                written += 1
                yield line
        yield _line({"type": "end", "records": written, "sha256": digest.hexdigest()})


def snapshot_export_stream(*, namespace: Namespace, user_id: str | None = None) -> Iterator[bytes]:
    """The same bytes as `snapshot_export_lines`, grouped into chunks of about 64 KiB for a response.

    A web server writes each yielded item on its own; a write per line would dominate the export.
    """
    pending: list[bytes] = []
    size = 0
    for line in snapshot_export_lines(namespace=namespace, user_id=user_id):
        pending.append(line)
        size += len(line)
        if size >= STREAM_CHUNK_BYTES:
            yield b"".join(pending)
            pending, size = [], 0
    if pending:
        yield b"".join(pending)


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


def snapshot_validate(*, namespace: Namespace, source: BinaryIO) -> Records:
    """The first pass: everything a restore checks before it may write anything."""
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


class _Applier:
    """The second pass: batches of one record type at a time, set-based where it counts."""

    def __init__(self, namespace: Namespace, progress: Callable[[int], None] | None) -> None:
        self.namespace = namespace
        self.progress = progress
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

    def existing_pairs(self, table: str, pairs: Iterable[tuple[str, str]]) -> set[tuple[str, str]]:
        """Which (user_id, fingerprint) pairs `table` holds in this namespace: one index probe per pair."""
        users, fingerprints = [], []
        for user_id, fingerprint in set(pairs):
            users.append(user_id)
            fingerprints.append(fingerprint)
        if not users:
            return set()
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT t.user_id, t.fingerprint FROM {table} t "
                "JOIN unnest(%s::text[], %s::text[]) AS p(user_id, fingerprint) "
                "ON t.namespace_id = %s AND t.user_id = p.user_id AND t.fingerprint = p.fingerprint",
                [users, fingerprints, self.namespace.pk],
            )
            return {(u, f) for u, f in cursor.fetchall()}

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
        existing = self.existing_pairs("memories_tombstone", ((r["user_id"], r["fingerprint"]) for r in batch))
        free = self.free_ids(Tombstone, [r["id"] for r in batch])
        rows = []
        for r in batch:
            key = (r["user_id"], r["fingerprint"])
            if self.erased_after(r["user_id"], r["created_at"]):
                self.outcome("tombstone", "skipped_erased", r["fingerprint"][:12])
            elif key in existing:
                self.outcome("tombstone", "unchanged")
            else:
                existing.add(key)
                tid = r["id"] if r["id"] in free else None
                free.discard(r["id"])
                rows.append(
                    Tombstone(
                        id=tid,
                        namespace=self.namespace,
                        user_id=r["user_id"],
                        fingerprint=r["fingerprint"],
                        reason=r["reason"],
                        text=r["text"],
                        memory_type=r["memory_type"],
                        actor=r["actor"],
                        created_at=r["created_at"],
                    )
                )
                self.outcome("tombstone", "created", r["fingerprint"][:12])
        if not rows:
            return
        self.bump_sequence("memories_tombstone", [row.id for row in rows if row.id])
        with connection.cursor() as cursor:
            cursor.executemany(
                """
                INSERT INTO memories_tombstone
                    (id, namespace_id, user_id, fingerprint, reason, text, memory_type, actor, created_at)
                VALUES (COALESCE(%s, nextval(pg_get_serial_sequence('memories_tombstone', 'id'))),
                        %s, %s, %s, %s, %s, %s, %s, %s)
                """,
                [
                    [
                        t.id,
                        self.namespace.pk,
                        t.user_id,
                        t.fingerprint,
                        t.reason,
                        t.text,
                        t.memory_type,
                        t.actor,
                        t.created_at,
                    ]
                    for t in rows
                ],
            )

    def _apply_session(self, batch: list[dict[str, Any]]) -> None:
        self.session_of(r["session_id"] for r in batch)
        current = {
            s.session_id: s
            for s in Session.objects.filter(namespace=self.namespace, session_id__in=[r["session_id"] for r in batch])
        }
        inserts = []
        for r in batch:
            sid = r["session_id"]
            if self.erased_after(r["user_id"], r["updated_at"]):
                self.sessions[sid] = None
                self.outcome("session", "skipped_erased", sid)
                continue
            existing = current.get(sid)
            if existing is None:
                inserts.append(r)
                continue
            if existing.user_id != r["user_id"]:
                self.sessions[sid] = None
                self.outcome("session", "skipped", f"{sid}: belongs to another user")
                continue
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
                        orjson.dumps(r["metadata"]).decode(),
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
        with connection.cursor() as cursor:
            for r in inserts:
                cursor.execute(
                    """
                    INSERT INTO conversations_session
                        (namespace_id, session_id, user_id, agent_id, metadata, message_count,
                         created_at, updated_at, last_message_at, last_activity_at)
                    VALUES (%s, %s, %s, %s, %s::jsonb, %s, %s, %s, %s, %s)
                    RETURNING id
                    """,
                    [
                        self.namespace.pk,
                        r["session_id"],
                        r["user_id"],
                        r["agent_id"],
                        orjson.dumps(r["metadata"]).decode(),
                        r["message_count"],
                        r["created_at"],
                        r["updated_at"],
                        r["last_message_at"],
                        r["last_message_at"] or r["created_at"],
                    ],
                )
                self.sessions[r["session_id"]] = (cursor.fetchone()[0], r["user_id"])
                self.outcome("session", "created", r["session_id"])

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
        params = []
        for pk, r in rows:
            params.append(
                [
                    r["id"] if r["id"] in free else None,
                    pk,
                    r["seq"],
                    r["role"],
                    r["kind"],
                    r["content"],
                    r["name"],
                    r["run_id"],
                    None if r["tool_calls"] is None else orjson.dumps(r["tool_calls"]).decode(),
                    r["tool_call_id"],
                    orjson.dumps(r["metadata"]).decode(),
                    r["created_at"],
                    r["persisted_at"],
                    r["extracted_at"],
                ]
            )
            free.discard(r["id"])
            self.touched_sessions.add(pk)
            self.outcome("message", "created", f"{r['session_id']}#{r['seq']}")
        with connection.cursor() as cursor:
            cursor.executemany(
                """
                INSERT INTO conversations_message
                    (id, session_id, seq, role, kind, content, name, run_id, tool_calls, tool_call_id,
                     metadata, created_at, persisted_at, extracted_at)
                VALUES (COALESCE(%s, nextval(pg_get_serial_sequence('conversations_message', 'id'))),
                        %s, %s, %s, %s, %s, %s, %s, %s::jsonb, %s, %s::jsonb, %s, %s, %s)
                """,
                params,
            )

    def _apply_memory(self, batch: list[dict[str, Any]]) -> None:
        ids = [r["id"] for r in batch]
        current = {m.pk: m for m in Memory.objects.filter(pk__in=ids).defer("search_vector")}
        pairs = [(r["user_id"], r["fingerprint"]) for r in batch]
        stones = self.existing_pairs("memories_tombstone", pairs)
        taken = self.existing_pairs("memories_memory", pairs)
        inserts: list[dict[str, Any]] = []
        for r in batch:
            key = (r["user_id"], r["fingerprint"])
            label = f"{r['id']} ({r['memory_type']})"
            if self.erased_after(r["user_id"], r["updated_at"]):
                self.outcome("memory", "skipped_erased", str(r["id"]))
                continue
            if key in stones:
                self.outcome("memory", "suppressed", str(r["id"]))
                continue
            existing = current.get(r["id"])
            if existing is not None:
                if existing.namespace_id != self.namespace.pk or existing.user_id != r["user_id"]:
                    self.outcome("memory", "skipped", f"{r['id']}: the id belongs to another memory")
                elif self._memory_same(existing, r) or existing.updated_at > r["updated_at"]:
                    self.outcome("memory", "unchanged")
                elif existing.fingerprint != r["fingerprint"] and key in taken:
                    self.outcome("memory", "skipped", f"{r['id']}: another memory already has this text")
                else:
                    self._memory_update(r)
                    taken.add(key)
                    self.outcome("memory", "updated", label)
                continue
            if key in taken:
                self.outcome("memory", "unchanged")
                continue
            taken.add(key)
            inserts.append(r)
            self.outcome("memory", "created", label)
        if inserts:
            with connection.cursor() as cursor:
                cursor.executemany(
                    """
                    INSERT INTO memories_memory
                        (id, namespace_id, user_id, session_id, agent_id, text, memory_type, status, topics,
                         entities, metadata, source, fingerprint, created_at, updated_at, last_accessed_at,
                         revision, access_count)
                    VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s::jsonb, %s, %s, %s, %s, %s, %s, 0)
                    """,
                    [[r["id"], self.namespace.pk, *self._memory_values(r)] for r in inserts],
                )

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
            orjson.dumps(r["metadata"]).decode(),
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
        ids = {r["memory_id"] for r in batch}
        return dict(Memory.objects.filter(namespace=self.namespace, pk__in=ids).values_list("pk", "user_id"))

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
                    MemoryRevision(
                        memory_id=r["memory_id"],
                        revision=r["revision"],
                        text=r["text"],
                        memory_type=r["memory_type"],
                        topics=r["topics"],
                        entities=r["entities"],
                        metadata=r["metadata"],
                        actor=r["actor"],
                        reason=r["reason"],
                        created_at=r["created_at"],
                    )
                )
                self.outcome("revision", "created", f"{r['memory_id']} r{r['revision']}")
        MemoryRevision.objects.bulk_create(rows)

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
        if inserts:
            with connection.cursor() as cursor:
                cursor.executemany(
                    "INSERT INTO memories_memoryevidence (memory_id, message_id, created_at) VALUES (%s, %s, %s)",
                    inserts,
                )

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
        if inserts:
            with connection.cursor() as cursor:
                cursor.executemany(
                    "INSERT INTO memories_pin (memory_id, pinned_by, reason, created_at) VALUES (%s, %s, %s, %s)",
                    inserts,
                )

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
        batch.append(PARSERS[record_type](_Fields(raw, line_no)))
    if batch:
        applier.apply(kind, batch)  # type: ignore[arg-type]
    applier.finish()


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
    records = snapshot_validate(namespace=namespace, source=source)
    applier = _Applier(namespace, progress)
    try:
        with transaction.atomic():
            _apply_all(applier, source)
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
