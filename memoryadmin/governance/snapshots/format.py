"""The snapshot format: JSON Lines with a header, one record a line, and a trailer.

The header names the format, its version, the namespace (and the person, for a
person's export), the count of each record type and, when memories carry their
vectors, the model and dimension that made them; the trailer holds the record
count and the SHA-256 of every byte before it. Records carry the fields of the API
objects of their kind plus "type" and the keys that tie them together (a message's
session_id, an evidence's memory_id); a memory may carry its "vector" (base64 of
little-endian float32), which a restore by the same model writes instead of embedding
the text again.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any, BinaryIO

import orjson

from memoryadmin.core.errors import InvalidInput, ServiceError

FORMAT = "memoryadmin.snapshot"
VERSION = 1
# Tombstones come first so a restore knows what must not come back before it meets a memory.
RECORD_TYPES = ("tombstone", "session", "message", "memory", "revision", "evidence", "pin")
OUTCOMES = ("created", "updated", "unchanged", "suppressed", "skipped_erased", "skipped")
MAX_LINE_BYTES = 4 * 1024 * 1024


class SnapshotInvalid(InvalidInput, code="invalid_snapshot"): ...


class ChecksumMismatch(SnapshotInvalid, code="checksum_mismatch"): ...


class NamespaceMismatch(ServiceError, status=409, code="namespace_mismatch"): ...


def fail(line_no: int, message: str, **details: Any) -> SnapshotInvalid:
    return SnapshotInvalid(f"line {line_no}: {message}", details={"line": line_no, **details})


@dataclass
class Header:
    namespace: str
    user_id: str | None
    created_at: datetime
    counts: dict[str, int]
    # (model, dimension) of the vectors the memory records carry; None when they carry none.
    vectors: tuple[str, int] | None = None


def line(record: dict[str, Any]) -> bytes:
    return orjson.dumps(record) + b"\n"


def lines(source: BinaryIO) -> Iterator[tuple[int, bytes]]:
    source.seek(0)
    line_no = 0
    while True:
        raw = source.readline(MAX_LINE_BYTES + 1)
        if not raw:
            return
        line_no += 1
        if len(raw) > MAX_LINE_BYTES:
            raise fail(line_no, f"a line is longer than {MAX_LINE_BYTES} bytes")
        yield line_no, raw


def loads(line_no: int, raw: bytes) -> dict[str, Any]:
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise fail(line_no, "not valid JSON") from None
    if not isinstance(value, dict):
        raise fail(line_no, "each line must be a JSON object")
    return value
