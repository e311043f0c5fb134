"""A restore reads and checks its file while it writes: a refusal after the first writes leaves nothing."""

from __future__ import annotations

import hashlib
import io
import threading

import orjson
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memoryadmin.conversations.models import Message, Session
from memoryadmin.governance.snapshots import (
    ChecksumMismatch,
    SnapshotInvalid,
    apply,
    snapshot_export_lines,
    snapshot_restore,
    stream,
)
from memoryadmin.memories.models import Memory, MemoryRevision, MemoryVector, Pin, Tombstone
from tests.conftest import SYSTEM


@pytest.fixture
def one_at_a_time(monkeypatch) -> None:
    """A batch a record and the reader one batch ahead: the writes begin long before the file ends."""
    monkeypatch.setattr(apply, "BATCH", 1)
    monkeypatch.setattr(stream, "AHEAD", 1)


def wipe(namespace) -> None:
    Memory.objects.filter(namespace=namespace).delete()
    Session.objects.filter(namespace=namespace).delete()
    Tombstone.objects.filter(namespace=namespace).delete()


def nothing_left(namespace) -> bool:
    return not (
        Memory.objects.filter(namespace=namespace).exists()
        or Session.objects.filter(namespace=namespace).exists()
        or Message.objects.filter(session__namespace=namespace).exists()
        or Tombstone.objects.filter(namespace=namespace).exists()
        or MemoryRevision.objects.filter(memory__namespace=namespace).exists()
        or MemoryVector.objects.filter(namespace=namespace).exists()
        or Pin.objects.filter(memory__namespace=namespace).exists()
    )


def resealed(lines: list[bytes]) -> bytes:
    """Header and records as given, with a trailer that matches them."""
    body = b"".join(lines)
    trailer = {"type": "end", "records": len(lines) - 1, "sha256": hashlib.sha256(body).hexdigest()}
    return body + orjson.dumps(trailer) + b"\n"


def restore_writing(namespace, body: bytes) -> tuple[Exception, int]:
    """Restore `body`, which must be refused; the error and how many rows were inserted before it."""
    with CaptureQueriesContext(connection) as queries, pytest.raises(SnapshotInvalid) as refused:
        snapshot_restore(namespace=namespace, source=io.BytesIO(body), actor=SYSTEM, dry_run=False)
    inserts = sum(1 for q in queries.captured_queries if q["sql"].lstrip().startswith("INSERT"))
    return refused.value, inserts


def test_a_checksum_refused_after_the_first_writes_leaves_nothing(namespace, make_person, one_at_a_time) -> None:
    make_person("alice")
    body = b"".join(snapshot_export_lines(namespace=namespace))
    wipe(namespace)
    lines = body.splitlines(keepends=True)
    last = orjson.loads(lines[-2])
    lines[-2] = orjson.dumps({**last, "created_at": "2001-01-01T00:00:00+00:00"}) + b"\n"
    error, inserts = restore_writing(namespace, b"".join(lines))
    assert isinstance(error, ChecksumMismatch) and error.code == "checksum_mismatch"
    assert inserts > 3, "the refusal came before the restore wrote anything: this test proves nothing"
    assert nothing_left(namespace)


def test_an_invalid_last_record_is_refused_with_its_line_and_leaves_nothing(
    namespace, make_person, one_at_a_time
) -> None:
    make_person("alice")
    lines = b"".join(snapshot_export_lines(namespace=namespace)).splitlines(keepends=True)[:-1]
    wipe(namespace)
    lines[-1] = orjson.dumps({**orjson.loads(lines[-1]), "created_at": "yesterday"}) + b"\n"
    error, inserts = restore_writing(namespace, resealed(lines))
    assert error.code == "invalid_snapshot"
    assert error.details == {"line": len(lines), "field": "created_at"}
    assert inserts > 3
    assert nothing_left(namespace)


def test_a_truncated_file_is_refused_after_the_first_writes_and_leaves_nothing(
    namespace, make_person, one_at_a_time
) -> None:
    make_person("alice")
    body = b"".join(snapshot_export_lines(namespace=namespace))
    wipe(namespace)
    error, inserts = restore_writing(namespace, b"".join(body.splitlines(keepends=True)[:-1]))
    assert error.code == "invalid_snapshot" and "truncated" in error.message
    assert inserts > 3
    assert nothing_left(namespace)


def test_a_failure_in_the_writer_stops_the_reader_and_leaves_nothing(
    namespace, make_person, one_at_a_time, monkeypatch
) -> None:
    make_person("alice")
    body = b"".join(snapshot_export_lines(namespace=namespace))
    wipe(namespace)

    def broken(self, batch):
        raise RuntimeError("the database went away")

    monkeypatch.setattr(apply.Applier, "_apply_revision", broken)
    with pytest.raises(RuntimeError):
        snapshot_restore(namespace=namespace, source=io.BytesIO(body), actor=SYSTEM, dry_run=False)
    assert nothing_left(namespace)
    assert not [t for t in threading.enumerate() if t.name == "snapshot-reader"]


def test_the_reader_ends_with_every_restore(namespace, make_person) -> None:
    make_person("alice")
    body = b"".join(snapshot_export_lines(namespace=namespace))
    snapshot_restore(namespace=namespace, source=io.BytesIO(body), actor=SYSTEM, dry_run=True)
    with pytest.raises(SnapshotInvalid):
        snapshot_restore(namespace=namespace, source=io.BytesIO(b""), actor=SYSTEM, dry_run=False)
    assert not [t for t in threading.enumerate() if t.name == "snapshot-reader"]


def test_a_refused_dry_run_is_refused_as_a_real_restore_is(namespace, make_person, one_at_a_time) -> None:
    make_person("alice")
    body = b"".join(snapshot_export_lines(namespace=namespace))
    wipe(namespace)
    tampered = body.replace(b"alice likes topic 1", b"alice hates topic 1")
    for dry_run in (True, False):
        with pytest.raises(ChecksumMismatch):
            snapshot_restore(namespace=namespace, source=io.BytesIO(tampered), actor=SYSTEM, dry_run=dry_run)
    assert nothing_left(namespace)


def test_the_rows_made_by_the_reader_follow_a_memory_given_a_new_id(namespace, other_namespace, make_person) -> None:
    """A memory whose id another namespace holds comes in under a new id, its revisions with it."""
    make_person("alice")
    body = b"".join(snapshot_export_lines(namespace=namespace))
    before = {m.text: m.pk for m in Memory.objects.filter(namespace=namespace)}
    revisions = MemoryRevision.objects.filter(memory__namespace=namespace).count()
    lines = body.splitlines(keepends=True)[:-1]
    lines[0] = orjson.dumps({**orjson.loads(lines[0]), "namespace": other_namespace.slug}) + b"\n"
    source = io.BytesIO(resealed(lines))
    result = snapshot_restore(namespace=other_namespace, source=source, actor=SYSTEM, dry_run=False)
    assert result.by_type["memory"]["created"] == len(before)
    moved = {m.text: m.pk for m in Memory.objects.filter(namespace=other_namespace)}
    assert moved.keys() == before.keys() and not set(moved.values()) & set(before.values())
    assert MemoryRevision.objects.filter(memory__namespace=other_namespace).count() == revisions
