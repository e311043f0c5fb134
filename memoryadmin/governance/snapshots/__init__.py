"""Snapshots: a namespace (or one person) as JSON Lines, and back.

`format` is the file (header, records, trailer with a SHA-256), `parse` reads and checks
one record, `validate` reads and checks a whole file (and alone writes nothing), `stream`
does so in a thread while `apply` writes the batches already checked (each record's fate
decided there, written by the app that owns its table, all in one transaction that a refusal
rolls back), and `export` streams a consistent picture with flat memory. The SQL on each
app's tables lives in that app's `records` module.
"""

from __future__ import annotations

from memoryadmin.governance.snapshots.apply import RestoreResult, snapshot_restore
from memoryadmin.governance.snapshots.export import snapshot_export_lines, snapshot_export_stream
from memoryadmin.governance.snapshots.format import (
    FORMAT,
    RECORD_TYPES,
    VERSION,
    ChecksumMismatch,
    Header,
    NamespaceMismatch,
    SnapshotInvalid,
)
from memoryadmin.governance.snapshots.validate import Records, snapshot_validate

__all__ = [
    "FORMAT",
    "RECORD_TYPES",
    "VERSION",
    "ChecksumMismatch",
    "Header",
    "NamespaceMismatch",
    "Records",
    "RestoreResult",
    "SnapshotInvalid",
    "snapshot_export_lines",
    "snapshot_export_stream",
    "snapshot_restore",
    "snapshot_validate",
]
