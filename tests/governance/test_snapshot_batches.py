"""Snapshots across many batches: what a restore remembers between batches, and the export's chunks."""

from __future__ import annotations

import hashlib
import io
import re
import uuid

import orjson
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memoryadmin.conversations.models import Message, Session
from memoryadmin.core.fingerprints import text_fingerprint
from memoryadmin.governance.snapshots import (
    apply,
    export,
    snapshot_export_lines,
    snapshot_export_stream,
    snapshot_restore,
    validate,
)
from memoryadmin.memories.models import Memory, MemoryEvidence, MemoryRevision, Pin, Tombstone
from tests.conftest import SYSTEM


@pytest.fixture
def tiny_batches(monkeypatch) -> None:
    """Every record in a batch of its own, every validation lookup two records at a time."""
    monkeypatch.setattr(apply, "BATCH", 1)
    monkeypatch.setattr(validate, "LOOKUP_BATCH", 2)


def wipe(namespace) -> None:
    Memory.objects.filter(namespace=namespace).delete()
    Session.objects.filter(namespace=namespace).delete()
    Tombstone.objects.filter(namespace=namespace).delete()


def records_of(body: bytes) -> list[dict]:
    return [orjson.loads(line) for line in body.splitlines()[1:-1]]


def snapshot(header: dict, records: list[dict]) -> bytes:
    """A snapshot file with a correct trailer, for records edited by a test."""
    lines = [orjson.dumps(header) + b"\n", *(orjson.dumps(r) + b"\n" for r in records)]
    digest = hashlib.sha256(b"".join(lines)).hexdigest()
    return b"".join(lines) + orjson.dumps({"type": "end", "records": len(records), "sha256": digest}) + b"\n"


def restore(namespace, body: bytes):
    return snapshot_restore(namespace=namespace, source=io.BytesIO(body), actor=SYSTEM, dry_run=False)


def test_a_restore_in_one_record_batches_matches_the_original(namespace, make_person, tiny_batches) -> None:
    make_person("alice")
    make_person("bob")
    first = b"".join(snapshot_export_lines(namespace=namespace))
    wipe(namespace)
    result = restore(namespace, first)
    assert result.counts["created"] == len(first.splitlines()) - 2
    assert result.counts["suppressed"] == result.counts["skipped"] == 0
    second = b"".join(snapshot_export_lines(namespace=namespace))
    assert first.splitlines()[1:-1] == second.splitlines()[1:-1]
    again = restore(namespace, first)
    assert again.counts["unchanged"] == again.records


def test_a_tombstone_restored_in_an_earlier_batch_suppresses_a_memory(namespace, make_person, tiny_batches) -> None:
    make_person("alice")
    body = b"".join(snapshot_export_lines(namespace=namespace))
    header, records = orjson.loads(body.splitlines()[0]), records_of(body)
    memory = next(r for r in records if r["type"] == "memory")
    # The text alice once had forgotten, under a new id: the snapshot's own tombstone must win.
    records.insert(records.index(memory), {**memory, "id": str(uuid.uuid4()), "text": "alice secret"})
    wipe(namespace)
    result = restore(namespace, snapshot(header, records))
    assert result.by_type["memory"]["suppressed"] == 1
    assert not Memory.objects.filter(namespace=namespace, fingerprint=text_fingerprint("alice secret")).exists()
    assert Tombstone.objects.filter(namespace=namespace, user_id="alice").count() == 1


def test_a_tombstone_that_was_there_before_suppresses_a_memory(namespace, make_person, tiny_batches) -> None:
    make_person("alice")
    body = b"".join(snapshot_export_lines(namespace=namespace))
    header, records = orjson.loads(body.splitlines()[0]), records_of(body)
    memory = next(r for r in records if r["type"] == "memory")
    records = [r for r in records if r["type"] != "tombstone"]
    records.insert(records.index(memory), {**memory, "id": str(uuid.uuid4()), "text": "alice secret"})
    result = restore(namespace, snapshot(header, records))
    assert result.by_type["memory"]["suppressed"] == 1
    assert not Memory.objects.filter(namespace=namespace, fingerprint=text_fingerprint("alice secret")).exists()


def test_the_same_text_twice_in_a_snapshot_is_written_once(namespace, make_person, tiny_batches) -> None:
    make_person("alice")
    body = b"".join(snapshot_export_lines(namespace=namespace))
    header, records = orjson.loads(body.splitlines()[0]), records_of(body)
    memory = next(r for r in records if r["type"] == "memory")
    twin = {**memory, "id": str(uuid.uuid4())}
    records.insert(records.index(memory) + 2, twin)
    wipe(namespace)
    result = restore(namespace, snapshot(header, records))
    assert result.by_type["memory"] == {**result.by_type["memory"], "created": 2, "unchanged": 1}
    assert Memory.objects.filter(namespace=namespace, user_id="alice", text=memory["text"]).count() == 1
    assert not Memory.objects.filter(pk=twin["id"]).exists()


def test_a_text_another_memory_already_has_is_not_written_again(namespace, make_person, tiny_batches) -> None:
    person = make_person("alice")
    body = b"".join(snapshot_export_lines(namespace=namespace))
    header, records = orjson.loads(body.splitlines()[0]), records_of(body)
    kept = person.memories[0]
    records = [{**r, "id": str(uuid.uuid4())} if r.get("id") == str(kept.pk) else r for r in records]
    Memory.objects.filter(namespace=namespace).exclude(pk=kept.pk).delete()
    result = restore(namespace, snapshot(header, records))
    assert result.by_type["memory"]["created"] == 1 and result.by_type["memory"]["unchanged"] == 1
    assert Memory.objects.filter(namespace=namespace, fingerprint=kept.fingerprint).get().pk == kept.pk


def test_a_session_created_after_validation_is_kept_not_duplicated(
    namespace, make_person, tiny_batches, monkeypatch
) -> None:
    make_person("alice")
    body = b"".join(snapshot_export_lines(namespace=namespace))
    Message.objects.filter(session__namespace=namespace).delete()
    # As if the sessions had been written by someone else between validation and apply.
    monkeypatch.setattr(validate.Committed, "_look_up_sessions", lambda self: None)
    result = restore(namespace, body)
    assert result.by_type["session"]["unchanged"] == 2 and result.by_type["session"]["created"] == 0
    assert result.by_type["message"]["created"] == 6
    assert Session.objects.filter(namespace=namespace).count() == 2


def test_a_tombstone_written_after_validation_still_wins(namespace, make_person, tiny_batches, monkeypatch) -> None:
    make_person("alice")
    body = b"".join(snapshot_export_lines(namespace=namespace))
    header, records = orjson.loads(body.splitlines()[0]), records_of(body)
    memory = next(r for r in records if r["type"] == "memory")
    records.insert(records.index(memory), {**memory, "id": str(uuid.uuid4()), "text": "alice secret"})
    monkeypatch.setattr(validate.Committed, "_look_up_pairs", lambda self: None)
    result = restore(namespace, snapshot(header, records))
    assert result.by_type["tombstone"]["unchanged"] == 1
    assert result.by_type["memory"]["suppressed"] == 1
    assert Tombstone.objects.filter(namespace=namespace).count() == 1


def test_no_batch_reads_rows_by_namespace(namespace, make_person, tiny_batches) -> None:
    """Each batch looks rows up by key: a read by namespace would grow with what the restore wrote."""
    make_person("alice")
    make_person("bob")
    body = b"".join(snapshot_export_lines(namespace=namespace))
    wipe(namespace)
    with CaptureQueriesContext(connection) as queries:
        result = restore(namespace, body)
    assert result.counts["created"] == result.records
    statements = [q["sql"] for q in queries.captured_queries]
    first_write = next(i for i, sql in enumerate(statements) if sql.lstrip().startswith("INSERT"))
    # The audit event at the end reads its chain's last hash once; every other read is per batch.
    reads = [
        sql for sql in statements[first_write:] if sql.lstrip().startswith("SELECT") and "audit_auditevent" not in sql
    ]
    assert reads
    # A probe of the tombstones' or the sessions' unique key, which starts with the namespace, costs the same
    # however much was written (the records are read while the restore writes, so these follow its first writes).
    unique_probe = (
        r"t\.namespace_id = \d+ AND t\.user_id = p\.user_id AND t\.fingerprint = p\.fingerprint"
        r"|s\.namespace_id = \d+ AND s\.session_id = p\.session_id"
    )
    by_namespace = [sql for sql in reads if re.search(r'namespace_id"? = ', sql) and not re.search(unique_probe, sql)]
    assert not by_namespace
    assert MemoryRevision.objects.count() == 6 and MemoryEvidence.objects.count() == 8 and Pin.objects.count() == 2


def test_the_export_stream_sends_whole_lines_a_chunk_at_a_time(namespace, make_person, monkeypatch) -> None:
    make_person("alice")
    make_person("bob")
    monkeypatch.setattr(export, "EXPORT_LINES", 4)
    chunks = list(snapshot_export_stream(namespace=namespace))
    body = b"".join(chunks)
    lines = body.splitlines(keepends=True)
    assert len(chunks) == 2 + -(-(len(lines) - 2) // 4)
    assert all(chunk.endswith(b"\n") and chunk.count(b"\n") <= 4 for chunk in chunks)
    trailer = orjson.loads(lines[-1])
    assert trailer["sha256"] == hashlib.sha256(b"".join(lines[:-1])).hexdigest()
    assert trailer["records"] == len(lines) - 2
    assert lines[1:-1] == list(snapshot_export_lines(namespace=namespace))[1:-1]


def test_a_chunk_is_capped_in_bytes_too(namespace, make_person, monkeypatch) -> None:
    make_person("alice")
    monkeypatch.setattr(export, "EXPORT_CHUNK_BYTES", 1)
    chunks = list(snapshot_export_stream(namespace=namespace))
    assert all(chunk.count(b"\n") == 1 for chunk in chunks)
    assert len(chunks) == 2 + 19


def test_a_restore_fingerprints_each_short_label_once_and_forgets_them_after() -> None:
    from memoryadmin.core.fingerprints import text_fingerprint
    from memoryadmin.governance.snapshots import parse

    assert parse._LABELS.get() is None
    with parse.labels_remembered():
        first = parse._label_fingerprint("travel")
        assert parse._LABELS.get() == {"travel": first}
        assert parse._label_fingerprint("travel") == first == text_fingerprint("travel")
        long_text = "x" * (parse.LABEL_MEMO_CHARS + 1)
        assert parse._label_fingerprint(long_text) == text_fingerprint(long_text)
        assert long_text not in parse._LABELS.get()
    # Nothing of the restore's labels outlives it.
    assert parse._LABELS.get() is None
    assert parse._label_fingerprint("travel") == text_fingerprint("travel")
