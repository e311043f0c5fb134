"""Memory vectors: written by every write path, gone with their memory, covered by erasure and snapshots."""

from __future__ import annotations

import hashlib
import io
import json

import numpy as np
import pytest
from django.utils import timezone

from memoryadmin.core.personal_data import subject_tables
from memoryadmin.core.timestamps import rfc3339
from memoryadmin.governance.erasure import erasure_execute, erasure_request
from memoryadmin.governance.snapshots import snapshot_export_lines, snapshot_restore
from memoryadmin.memories.embeddings import WordLlamaEmbedder
from memoryadmin.memories.models import Memory, MemoryVector
from memoryadmin.memories.services import NewMemory, memory_create, memory_create_many, memory_forget, memory_update
from memoryadmin.memories.vectors import vectors_of
from tests.conftest import SYSTEM
from tests.governance.conftest import populate

MODEL = WordLlamaEmbedder.model


def stored(memory: Memory) -> np.ndarray:
    return vectors_of([memory.pk], MODEL)[memory.pk]


def test_a_created_memory_has_the_vector_of_its_text(namespace) -> None:
    memory = memory_create(namespace=namespace, user_id="alice", text="Alice lives in Lyon", actor=SYSTEM).memory
    row = MemoryVector.objects.get(memory=memory)
    assert (row.namespace_id, row.user_id, row.model, row.dimension) == (namespace.pk, "alice", MODEL, 256)
    assert np.allclose(stored(memory), WordLlamaEmbedder().embed(["Alice lives in Lyon"])[0], atol=1e-6)


def test_an_edit_of_the_text_replaces_the_vector_and_other_edits_keep_it(namespace) -> None:
    memory = memory_create(namespace=namespace, user_id="alice", text="Alice lives in Lyon", actor=SYSTEM).memory
    memory = memory_update(memory=memory, actor=SYSTEM, topics=["home"])
    assert np.allclose(stored(memory), WordLlamaEmbedder().embed(["Alice lives in Lyon"])[0], atol=1e-6)
    memory_update(memory=memory, actor=SYSTEM, text="Alice moved to Porto")
    assert MemoryVector.objects.filter(memory=memory).count() == 1
    assert np.allclose(stored(memory), WordLlamaEmbedder().embed(["Alice moved to Porto"])[0], atol=1e-6)


def test_a_batch_stores_the_vectors_of_what_it_creates(namespace) -> None:
    existing = memory_create(namespace=namespace, user_id="alice", text="Alice likes tea", actor=SYSTEM).memory
    items = [NewMemory(user_id="alice", text=t) for t in ("Alice likes tea", "Alice plays chess", "Alice runs")]
    results = memory_create_many(namespace=namespace, actor=SYSTEM, items=items)
    assert [r.outcome for r in results] == ["duplicate", "created", "created"]
    assert MemoryVector.objects.filter(namespace=namespace).count() == 3
    assert MemoryVector.objects.filter(memory=existing).count() == 1


def test_forgetting_a_memory_takes_its_vector_with_it(namespace) -> None:
    memory = memory_create(namespace=namespace, user_id="alice", text="Alice lives in Lyon", actor=SYSTEM).memory
    memory_forget(memory=memory, actor=SYSTEM)
    assert not MemoryVector.objects.filter(memory_id=memory.pk).exists()


def test_erasure_finds_verifies_and_leaves_no_vector_of_the_person(namespace, other_namespace) -> None:
    alice = populate(namespace, "alice")
    populate(namespace, "bob")
    populate(other_namespace, "alice", sessions=1)
    alice_ids = [m.pk for m in alice.memories]
    assert MemoryVector.objects.filter(memory_id__in=alice_ids).count() == 2
    bob_vectors = {v.pk: v.embedding.tobytes() for v in MemoryVector.objects.filter(namespace=namespace, user_id="bob")}
    # Discovered from the models: the receipt's verification scans the vector table too.
    assert MemoryVector in subject_tables()

    erasure = erasure_execute(erasure_id=erasure_request(namespace=namespace, user_id="alice", actor=SYSTEM).pk)
    assert erasure.status == "completed", erasure.error
    assert "memories_memoryvector" in erasure.receipt["verification"]["tables_scanned"]
    assert not MemoryVector.objects.filter(memory_id__in=alice_ids).exists()
    assert not MemoryVector.objects.filter(namespace=namespace, user_id="alice").exists()
    after = {v.pk: v.embedding.tobytes() for v in MemoryVector.objects.filter(namespace=namespace, user_id="bob")}
    assert after == bob_vectors
    assert MemoryVector.objects.filter(namespace=other_namespace, user_id="alice").count() == 1


def test_an_export_carries_each_vector_and_its_restore_writes_them_back(namespace) -> None:
    populate(namespace, "alice")
    before = {m.pk: stored(m) for m in Memory.objects.filter(namespace=namespace)}
    rows = MemoryVector.objects.filter(namespace=namespace).order_by("memory_id")
    columns = ("memory_id", "user_id", "model", "dimension", "code")
    written = list(rows.values_list(*columns))
    body = b"".join(snapshot_export_lines(namespace=namespace, user_id="alice"))
    assert b"embedding" not in body and body.count(b'"vector":"') == len(before)
    Memory.objects.filter(namespace=namespace).delete()
    assert not MemoryVector.objects.filter(namespace=namespace).exists()

    result = snapshot_restore(namespace=namespace, source=io.BytesIO(body), dry_run=False, actor=SYSTEM)
    assert result.counts["created"] >= len(before)
    after = {m.pk: stored(m) for m in Memory.objects.filter(namespace=namespace)}
    assert set(after) == set(before)
    for pk, vector in before.items():
        assert np.array_equal(after[pk], vector)
    assert list(rows.values_list(*columns)) == written


@pytest.mark.parametrize("change", ["text", "same"])
def test_a_restore_that_updates_a_memory_embeds_its_new_text(namespace, change) -> None:
    memory = memory_create(namespace=namespace, user_id="alice", text="Alice lives in Lyon", actor=SYSTEM).memory
    lines = [json.loads(line) for line in snapshot_export_lines(namespace=namespace, user_id="alice")]
    memory_update(memory=memory, actor=SYSTEM, text="Alice moved to Porto")
    Memory.objects.filter(pk=memory.pk).update(updated_at=memory.created_at)
    record = next(line for line in lines if line.get("type") == "memory")
    if change == "same":
        record["text"] = "Alice moved to Porto"
    record["updated_at"] = rfc3339(timezone.now())  # newer than the stored row
    body = _resign(lines)
    snapshot_restore(namespace=namespace, source=io.BytesIO(body), dry_run=False, actor=SYSTEM)
    memory.refresh_from_db()
    assert np.allclose(stored(memory), WordLlamaEmbedder().embed([memory.text])[0], atol=1e-6)


def _resign(lines: list[dict]) -> bytes:
    body = b"".join(json.dumps(line).encode() + b"\n" for line in lines[:-1])
    trailer = {"type": "end", "records": len(lines) - 2, "sha256": hashlib.sha256(body).hexdigest()}
    return body + json.dumps(trailer).encode() + b"\n"
