"""The first pass of a restore: everything it checks before it may write anything."""

from __future__ import annotations

import hashlib
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
from memoryadmin.governance.snapshots.spool import Spool
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
        self.sessions.update(conversation_records.session_pks(self.namespace, session_ids))


def snapshot_validate(
    *, namespace: Namespace, source: BinaryIO, committed: Committed | None = None, spool: Spool | None = None
) -> Records:
    """The first pass: everything a restore checks before it may write anything.

    With `committed`, it also looks up what the namespace already holds of the snapshot's records;
    with `spool`, it keeps each parsed record (with its line number) for the second pass.
    """
    digest = hashlib.sha256()
    header: Header | None = None
    trailer: dict[str, Any] | None = None
    last_rank = 0
    total = 0
    for line_no, line in lines(source):
        if trailer is not None:
            raise fail(line_no, "nothing may follow the trailer")
        raw = loads(line_no, line)
        if header is None:
            header = parse_header(raw)
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
        if committed is not None:
            committed.add(kind, line_no, parsed)
        if spool is not None:
            parsed["line"] = line_no
            spool.add(kind, parsed)
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
