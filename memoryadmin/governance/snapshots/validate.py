"""Reading a snapshot: everything a restore checks before it may keep anything, and what the namespace
already holds of its records."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

from memoryadmin.conversations import records as conversation_records
from memoryadmin.governance.snapshots.format import (
    RECORD_TYPES,
    ChecksumMismatch,
    Header,
    NamespaceMismatch,
    SnapshotInvalid,
    fail,
    lines,
    loads,
)
from memoryadmin.governance.snapshots.parse import PARSERS, Fields, parse_header, parse_vector
from memoryadmin.memories import records as memory_records
from memoryadmin.tenancy.models import Namespace

# Validation looks up what the namespace already holds this many records at a time.
LOOKUP_BATCH = 5000
# A namespace with at most this many tombstoned texts has their fingerprints kept for the restore
# (a few MB): only a text among them is looked up. Beyond it, every text is.
KEPT_TOMBSTONE_FINGERPRINTS = 100_000


@dataclass
class Records:
    header: Header
    total: int


class Committed:
    """What the namespace held before the restore, looked up batch by batch as the records are read.

    Every lookup probes a unique key (the tombstones' and the sessions'), so its cost does not
    grow with what the restore has written: a lookup by namespace would, as the statistics still
    describe the namespace as it was. What the restore writes itself is known without asking the
    database: the applier keeps the tombstones apart, and the sessions it created (`created`) are
    not reported as having been there.
    """

    def __init__(self, namespace: Namespace) -> None:
        self.namespace = namespace
        # Lines (tombstones and memories) whose (user_id, fingerprint) has a tombstone.
        self.tombstoned: set[int] = set()
        # session_id -> primary key of the sessions the snapshot names that exist.
        self.sessions: dict[str, int] = {}
        self._pairs: list[tuple[int, str, str]] = []
        self._session_ids: list[str] = []
        # session_ids of the sessions this restore created.
        self.created: set[str] = set()
        # A real restore holds the namespace's write lock from here on, so no tombstone comes
        # or goes before it commits; what it writes itself, the applier keeps apart.
        self.tombstone_fingerprints = memory_records.tombstone_fingerprints(namespace, KEPT_TOMBSTONE_FINGERPRINTS)

    def tombstoned_keys(self, keys: list[tuple[Any, str, str]]) -> set[Any]:
        """Of (key, user_id, fingerprint) triples, the keys whose pair has a tombstone (`tombstoned_keys`),
        asking the database only about fingerprints a tombstone of the namespace holds."""
        if self.tombstone_fingerprints is not None:
            keys = [k for k in keys if k[2] in self.tombstone_fingerprints]
        return memory_records.tombstoned_keys(self.namespace, keys)

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
        pairs, self._pairs = self._pairs, []
        self.tombstoned |= self.tombstoned_keys(pairs)

    def _look_up_sessions(self) -> None:
        if not self._session_ids:
            return
        session_ids, self._session_ids = self._session_ids, []
        found = conversation_records.session_pks(self.namespace, session_ids)
        self.sessions.update((sid, pk) for sid, pk in found.items() if sid not in self.created)


class Reader:
    """Reads a snapshot line by line and checks everything a restore checks before it may keep anything.

    `records()` yields each record as (kind, parsed record with its line number); the header is read
    (and checked against the namespace) before the first one, and the trailer's count and checksum
    after the last, so a file is known to be whole only once the iteration has ended without raising.
    """

    def __init__(self, *, namespace: Namespace, source: BinaryIO) -> None:
        self.namespace = namespace
        self.source = source
        self.header: Header | None = None
        self.total = 0

    def records(self) -> Iterator[tuple[str, dict[str, Any]]]:
        digest = hashlib.sha256()
        header: Header | None = None
        trailer: dict[str, Any] | None = None
        last_rank = 0
        for line_no, line in lines(self.source):
            if trailer is not None:
                raise fail(line_no, "nothing may follow the trailer")
            raw = loads(line_no, line)
            if header is None:
                header = parse_header(raw)
                if header.namespace != self.namespace.slug:
                    raise NamespaceMismatch(
                        f"this snapshot is of namespace {header.namespace!r}, not {self.namespace.slug!r}",
                        details={"snapshot_namespace": header.namespace},
                    )
                self.header = header
                digest.update(line)
                continue
            kind = raw.get("type")
            if kind == "end":
                trailer = raw
                continue
            if kind not in PARSERS:
                raise fail(line_no, f"unknown record type {kind!r}", field="type")
            rank = RECORD_TYPES.index(kind)
            if rank < last_rank:
                raise fail(line_no, f"{kind} records must come before {RECORD_TYPES[last_rank]} records")
            last_rank = rank
            fields = Fields(raw, line_no)
            parsed = PARSERS[kind](fields)
            if kind == "memory":
                parsed["vector"] = parse_vector(fields, header)
            if header.user_id is not None and parsed.get("user_id", header.user_id) != header.user_id:
                raise fail(line_no, "a snapshot of one person may hold only that person's records", field="user_id")
            parsed["line"] = line_no
            digest.update(line)
            self.total += 1
            yield kind, parsed
        if header is None:
            raise SnapshotInvalid("the snapshot is empty", details={})
        if trailer is None:
            raise SnapshotInvalid("the snapshot has no trailer: it is truncated", details={})
        if trailer.get("sha256") != digest.hexdigest():
            raise ChecksumMismatch(
                "the checksum does not match the content: the file was changed or damaged", details={}
            )
        if "records" in trailer and trailer["records"] != self.total:
            raise SnapshotInvalid("the trailer's record count does not match the file", details={})


def snapshot_validate(*, namespace: Namespace, source: BinaryIO, committed: Committed | None = None) -> Records:
    """Everything a restore checks, and nothing written: the file read to its end.

    With `committed`, it also looks up what the namespace already holds of the snapshot's records.
    """
    reader = Reader(namespace=namespace, source=source)
    for kind, record in reader.records():
        if committed is not None:
            committed.add(kind, record["line"], record)
    if committed is not None:
        committed.finish()
    return Records(header=reader.header, total=reader.total)  # type: ignore[arg-type]
