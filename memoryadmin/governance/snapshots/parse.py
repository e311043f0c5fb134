"""Reading records: typed fields, one parser a record type, every problem naming its line and field.

What the API would refuse to store, a snapshot may not bring in either: the same cleaning
functions and limits apply.
"""

from __future__ import annotations

import base64
import binascii
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, date, datetime
from typing import Any

import numpy as np

from memoryadmin.conversations.models import MessageKind, Role
from memoryadmin.core.app_ids import APP_ID_RE, validate_app_id
from memoryadmin.core.errors import InvalidInput
from memoryadmin.core.fingerprints import other_text_fingerprints, text_fingerprint
from memoryadmin.core.storable_json import json_problem
from memoryadmin.core.timestamps import in_utc, not_in_future
from memoryadmin.governance.snapshots.format import FORMAT, VERSION, Header, fail
from memoryadmin.memories.models import DatePrecision, MemorySource, MemoryStatus, MemoryType, TombstoneReason
from memoryadmin.memories.representations import SUPERSESSION_FIELDS
from memoryadmin.memories.services import clean_labels, clean_text, strings_of

# A session's counter is the next message's seq: a snapshot may not set it where appends could overflow it.
MAX_SESSION_MESSAGES = 1_000_000_000
# Far beyond any memory's edits, and far below the column's end: the next edit must fit.
MAX_REVISION = 1_000_000
# Django's `.values` builds a new list on every access; a restore asks millions of times.
TOMBSTONE_REASONS = tuple(TombstoneReason.values)
ROLES = tuple(Role.values)
MESSAGE_KINDS = tuple(MessageKind.values)
MEMORY_TYPES = tuple(MemoryType.values)
DATE_PRECISIONS = tuple(DatePrecision.values)
MEMORY_STATUSES = tuple(MemoryStatus.values)
MEMORY_SOURCES = tuple(MemorySource.values)
# pgvector's limit, far beyond any embedder's.
MAX_VECTOR_DIMENSION = 16_000
# Every embedder writes unit vectors (a text with nothing to embed gives zeros): a vector's squared length
# is 1 within float32 rounding, or 0.
UNIT_TOLERANCE = 1e-3


class Fields:
    """Typed reads of one record; every problem names the line and the field."""

    def __init__(self, record: dict[str, Any], line_no: int) -> None:
        self.record = record
        self.line_no = line_no

    def _get(self, key: str, required: bool) -> Any:
        if key not in self.record:
            if required:
                raise fail(self.line_no, f"missing field {key!r}", field=key)
            return None
        return self.record[key]

    def text(self, key: str, *, required: bool = True, nullable: bool = False, max_len: int = 10_000_000) -> str | None:
        value = self._get(key, required)
        if value is None:
            if required and not nullable:
                raise fail(self.line_no, f"{key} must not be null", field=key)
            return None
        if not isinstance(value, str) or len(value) > max_len:
            raise fail(self.line_no, f"{key} must be a string of at most {max_len} characters", field=key)
        if "\x00" in value:
            raise fail(self.line_no, f"{key} must not contain NUL characters", field=key)
        return value

    def app_id(self, key: str, *, nullable: bool = False) -> str | None:
        value = self.text(key, nullable=nullable, max_len=128)
        if value is None or (nullable and value == ""):
            return None
        try:
            validate_app_id(value, key)
        except InvalidInput:
            raise fail(self.line_no, f"{key} must match {APP_ID_RE}", field=key) from None
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
            raise fail(self.line_no, f"{key} must be an RFC 3339 timestamp with offset", field=key)
        try:
            parsed = in_utc(parsed)
        except ValueError as exc:
            raise fail(self.line_no, f"{key} {exc}", field=key) from None
        # Every time a snapshot holds is of something that has happened: one to come would sort
        # before everything real and break what counts ages (forgetting policies, budgets).
        if not not_in_future(parsed, datetime.now(UTC)):
            raise fail(self.line_no, f"{key} must not lie in the future", field=key)
        return parsed

    def number(self, key: str, *, minimum: int = 0, maximum: int = 2**31 - 1) -> int:
        value = self._get(key, True)
        if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= maximum:
            raise fail(self.line_no, f"{key} must be an integer between {minimum} and {maximum}", field=key)
        return value

    def uuid(self, key: str) -> uuid.UUID:
        value = self.text(key, max_len=64)
        try:
            return uuid.UUID(value)
        except (TypeError, ValueError):
            raise fail(self.line_no, f"{key} must be a UUID", field=key) from None

    def object(self, key: str) -> dict[str, Any]:
        value = self._get(key, True)
        if not isinstance(value, dict):
            raise fail(self.line_no, f"{key} must be an object", field=key)
        # Whatever the API would refuse to store, a snapshot may not bring in either.
        if problem := json_problem(value):
            raise fail(self.line_no, f"{key} {problem}", field=key)
        return value

    def labels(self, key: str) -> list[str]:
        value = self._get(key, True)
        if not isinstance(value, list):
            raise fail(self.line_no, f"{key} must be a list of strings", field=key)
        try:
            return clean_labels(value, key)
        except InvalidInput as exc:
            raise fail(self.line_no, exc.message, field=key) from None

    def choice(self, key: str, choices: tuple[str, ...], *, nullable: bool = False) -> str | None:
        value = self.text(key, nullable=nullable, max_len=40)
        if value is None:
            return None
        if value not in choices:
            raise fail(self.line_no, f"{key} must be one of {', '.join(choices)}", field=key)
        return value


def _parse_tombstone(f: Fields) -> dict[str, Any]:
    fingerprint = f.text("fingerprint", max_len=64)
    if not fingerprint or len(fingerprint) != 64 or any(c not in "0123456789abcdef" for c in fingerprint):
        raise fail(f.line_no, "fingerprint must be 64 hex digits", field="fingerprint")
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


def _parse_session(f: Fields) -> dict[str, Any]:
    return {
        "session_id": f.app_id("session_id"),
        "user_id": f.app_id("user_id"),
        "agent_id": f.app_id("agent_id", nullable=True) or "",
        "metadata": f.object("metadata"),
        "message_count": f.number("message_count", maximum=MAX_SESSION_MESSAGES),
        "created_at": f.when("created_at"),
        "updated_at": f.when("updated_at"),
        "last_message_at": f.when("last_message_at", nullable=True),
    }


def _parse_message(f: Fields) -> dict[str, Any]:
    tool_calls = f.record.get("tool_calls")
    if tool_calls is not None and not isinstance(tool_calls, list | dict):
        raise fail(f.line_no, "tool_calls must be a list, an object or null", field="tool_calls")
    if problem := json_problem(tool_calls):
        raise fail(f.line_no, f"tool_calls {problem}", field="tool_calls")
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


def _int_id(f: Fields) -> int:
    """Integer ids travel as strings (as the API shows them); plain integers are accepted too."""
    raw = f.record.get("id")
    if isinstance(raw, int) and not isinstance(raw, bool):
        raw = str(raw)
        f = Fields({**f.record, "id": raw}, f.line_no)
    value = f.text("id", max_len=20)
    if not value or not value.isdigit() or not 1 <= int(value) < 2**63:
        raise fail(f.line_no, "id must be a positive integer", field="id")
    return int(value)


def _parse_memory(f: Fields) -> dict[str, Any]:
    said = f.text("text", max_len=1_000_000) or ""
    try:
        text = clean_text(said)
    except InvalidInput as exc:
        raise fail(f.line_no, exc.message, **exc.details) from None
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
        "revision": f.number("revision", minimum=1, maximum=MAX_REVISION),
        "fingerprint": text_fingerprint(text),
        **_parse_supersession(f),
    }


def _parse_supersession(f: Fields) -> dict[str, Any]:
    """A memory's knowledge-update fields; optional, so snapshots written before them still restore."""
    present = {key: f.record.get(key) is not None for key in SUPERSESSION_FIELDS}
    event_date = None
    if present["event_date"]:
        try:
            event_date = date.fromisoformat(f.text("event_date", max_len=10) or "")
        except ValueError:
            raise fail(f.line_no, "event_date must be a date (YYYY-MM-DD)", field="event_date") from None
    return {
        "subject": f.text("subject", max_len=200) if present["subject"] else "",
        "attribute": f.text("attribute", max_len=100) if present["attribute"] else "",
        "event_date": event_date,
        # A date without its precision (a snapshot from before precisions) is a day.
        "event_date_precision": (
            f.choice("event_date_precision", DATE_PRECISIONS)
            if present["event_date_precision"]
            else (DatePrecision.DAY if event_date else "")
        ),
        # Unknown in snapshots from before it was always set: when the memory was written.
        "stated_at": f.when("stated_at") if present["stated_at"] else f.when("created_at"),
        "superseded_by": f.uuid("superseded_by") if present["superseded_by"] else None,
        "superseded_at": f.when("superseded_at") if present["superseded_at"] else None,
    }


def _parse_revision(f: Fields) -> dict[str, Any]:
    memory_type = f.choice("memory_type", MEMORY_TYPES)
    text = f.text("text", max_len=1_000_000) or ""
    return {
        "memory_id": f.uuid("memory_id"),
        "revision": f.number("revision", minimum=1, maximum=MAX_REVISION),
        "text": text,
        "fingerprint": text_fingerprint(text),
        "memory_type": memory_type,
        "topics": f.labels("topics"),
        "entities": f.labels("entities"),
        "metadata": f.object("metadata"),
        "actor": f.text("actor", max_len=220),
        "reason": f.text("reason", max_len=100_000) or "",
        "created_at": f.when("created_at"),
    }


def _parse_evidence(f: Fields) -> dict[str, Any]:
    return {
        "memory_id": f.uuid("memory_id"),
        "session_id": f.app_id("session_id"),
        "seq": f.number("seq", minimum=1),
        "created_at": f.when("created_at"),
    }


def _parse_pin(f: Fields) -> dict[str, Any]:
    return {
        "memory_id": f.uuid("memory_id"),
        "pinned_by": f.text("pinned_by", max_len=220),
        "reason": f.text("reason", max_len=100_000) or "",
        "created_at": f.when("created_at"),
    }


# The fingerprints of a restore's short field texts (topics, entities, metadata keys and values), which
# recur on most of its records: each is computed once a restore, not once a record and pass. Held only
# while the restore runs (labels_remembered), short texts only, and at most so many.
LABEL_MEMO_CHARS = 100
LABEL_MEMO_ENTRIES = 100_000
_LABELS: ContextVar[dict[str, str] | None] = ContextVar("snapshot_label_fingerprints", default=None)


@contextmanager
def labels_remembered() -> Iterator[None]:
    """Within it, a short field text's fingerprint is computed once; the memo goes when it ends."""
    token = _LABELS.set({})
    try:
        yield
    finally:
        _LABELS.reset(token)


def _label_fingerprint(text: str) -> str:
    memo = _LABELS.get()
    if memo is None or len(text) > LABEL_MEMO_CHARS:
        return text_fingerprint(text)
    found = memo.get(text)
    if found is None:
        found = text_fingerprint(text)
        if len(memo) < LABEL_MEMO_ENTRIES:
            memo[text] = found
    return found


def _fingerprinting(parse: Callable[[Fields], dict[str, Any]], *fields: str) -> Callable[[Fields], dict[str, Any]]:
    """`parse`, and the fingerprints of every other text its record carries (`field_fingerprints`): a
    tombstone keeps a forgotten text out of labels, reasons and metadata too, not only out of `text`."""

    def parse_with_fingerprints(f: Fields) -> dict[str, Any]:
        record = parse(f)
        texts = {text for field in fields for text in strings_of(record[field]) if text.strip()}
        # The text itself as it may also be read (a space splitting a word): its other fingerprints.
        also = other_text_fingerprints(record["text"]) if "text" in record else ()
        record["field_fingerprints"] = sorted({_label_fingerprint(text) for text in texts} | set(also))
        return record

    return parse_with_fingerprints


PARSERS: dict[str, Callable[[Fields], dict[str, Any]]] = {
    "tombstone": _parse_tombstone,
    "session": _parse_session,
    "message": _parse_message,
    "memory": _fingerprinting(_parse_memory, "topics", "entities", "metadata", "subject"),
    "revision": _fingerprinting(_parse_revision, "topics", "entities", "metadata", "reason"),
    "evidence": _parse_evidence,
    "pin": _fingerprinting(_parse_pin, "reason"),
}


def parse_header(raw: dict[str, Any]) -> Header:
    f = Fields(raw, 1)
    if raw.get("format") != FORMAT:
        raise fail(1, f"format must be {FORMAT!r}", field="format")
    if raw.get("version") != VERSION:
        raise fail(1, f"unsupported version {raw.get('version')!r}; this server reads version {VERSION}")
    counts = f.object("counts")
    vectors = None
    if raw.get("vectors") is not None:
        described = Fields(f.object("vectors"), 1)
        vectors = (
            described.text("model", max_len=200) or "",
            described.number("dimension", minimum=1, maximum=MAX_VECTOR_DIMENSION),
        )
    return Header(
        namespace=f.text("namespace", max_len=63) or "",
        user_id=f.app_id("user_id", nullable=True),
        created_at=f.when("created_at"),  # type: ignore[arg-type]
        counts={k: v for k, v in counts.items() if isinstance(v, int)},
        vectors=vectors,
    )


def parse_vector(f: Fields, header: Header) -> bytes | None:
    """A memory's vector as float32 bytes, or None when it carries none. Only what an embedder could have
    written comes in: the header's dimension, finite values, unit length (a search compares it as it is)."""
    value = f.record.get("vector")
    if value is None:
        return None
    if header.vectors is None:
        raise fail(f.line_no, "a memory's vector needs the header's vectors (model and dimension)", field="vector")
    dimension = header.vectors[1]
    if not isinstance(value, str) or len(value) > 4 * dimension * 2:
        raise fail(f.line_no, "vector must be a base64 string", field="vector")
    try:
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise fail(f.line_no, "vector must be a base64 string", field="vector") from None
    if len(raw) != 4 * dimension:
        raise fail(f.line_no, f"vector must hold {dimension} float32 values, as the header says", field="vector")
    vector = np.frombuffer(raw, dtype="<f4")
    # A NaN or an infinity makes the sum NaN or infinite, and so fails both tests.
    length = float(np.dot(vector, vector))
    if not (length == 0 or abs(length - 1) <= UNIT_TOLERANCE):
        raise fail(f.line_no, "vector must be a unit vector of finite values", field="vector")
    return raw
