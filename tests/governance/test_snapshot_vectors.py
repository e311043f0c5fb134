"""Vectors in snapshots: a memory carries its vector, a restore by the same model writes it as it is, and
anything else is embedded again or refused."""

from __future__ import annotations

import base64
import uuid
from datetime import UTC, datetime

import numpy as np
import pytest

from memoryadmin.memories.embeddings import get_embedder
from memoryadmin.memories.models import Memory
from memoryadmin.memories.vectors import vectors_of
from tests.governance.test_snapshot_crafted import exported, sealed
from tests.governance.test_snapshots import restore, wipe


def encoded(vector: np.ndarray) -> str:
    return base64.b64encode(np.asarray(vector, dtype="<f4").tobytes()).decode()


def decoded(text: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), dtype="<f4")


def a_unit_vector(seed: int) -> np.ndarray:
    vector = np.random.default_rng(seed).standard_normal(get_embedder().dimension).astype(np.float32)
    return vector / np.linalg.norm(vector)


def stored_vector(memory_id: str) -> np.ndarray:
    key = uuid.UUID(memory_id)
    return vectors_of([key], get_embedder().model)[key]


def first_memory(records: list[dict]) -> dict:
    return next(r for r in records if r["type"] == "memory")


def test_it_exports_each_memorys_vector_with_the_model_in_the_header(api, namespace, make_person) -> None:
    make_person("alice")
    header, records = exported(api)
    embedder = get_embedder()
    assert header["vectors"] == {"model": embedder.model, "dimension": embedder.dimension}
    memory = first_memory(records)
    assert np.array_equal(decoded(memory["vector"]), stored_vector(memory["id"]))


def test_a_restore_writes_the_vectors_the_snapshot_carries(api, namespace, make_person) -> None:
    make_person("alice")
    header, records = exported(api)
    memory = first_memory(records)
    # Not what the text embeds to: only a restore that writes the carried vector stores it.
    carried = a_unit_vector(1)
    memory["vector"] = encoded(carried)
    wipe(namespace)
    response = restore(api, sealed(header, records), dry_run=False)
    assert response.status_code == 200, response.content
    assert np.array_equal(stored_vector(memory["id"]), carried)


def test_a_newer_text_restored_over_a_memory_takes_its_carried_vector(api, namespace, make_person) -> None:
    make_person("alice")
    header, records = exported(api)
    memory = first_memory(records)
    carried = a_unit_vector(3)
    memory.update(
        text="alice has taken up the cello",
        updated_at=datetime.now(UTC).isoformat().replace("+00:00", "Z"),
        vector=encoded(carried),
    )
    response = restore(api, sealed(header, records), dry_run=False)
    assert response.status_code == 200, response.content
    assert response.json()["by_type"]["memory"]["updated"] == 1
    assert np.array_equal(stored_vector(memory["id"]), carried)


def test_a_snapshot_without_vectors_still_restores_and_embeds(api, namespace, make_person) -> None:
    make_person("alice")
    header, records = exported(api)
    del header["vectors"]
    for record in records:
        record.pop("vector", None)
    wipe(namespace)
    response = restore(api, sealed(header, records), dry_run=False)
    assert response.status_code == 200, response.content
    memory = first_memory(records)
    assert np.allclose(stored_vector(memory["id"]), get_embedder().embed([memory["text"]])[0], atol=1e-6)


def test_vectors_of_another_model_are_not_written_but_the_text_embedded(api, namespace, make_person) -> None:
    make_person("alice")
    header, records = exported(api)
    header["vectors"]["model"] = "another/model"
    memory = first_memory(records)
    memory["vector"] = encoded(a_unit_vector(2))
    wipe(namespace)
    response = restore(api, sealed(header, records), dry_run=False)
    assert response.status_code == 200, response.content
    assert np.allclose(stored_vector(memory["id"]), get_embedder().embed([memory["text"]])[0], atol=1e-6)


@pytest.mark.parametrize(
    ("vector", "message"),
    [
        (lambda v: encoded(np.full_like(v, np.nan)), "unit vector of finite values"),
        (lambda v: encoded(v * 2), "unit vector of finite values"),
        (lambda v: encoded(np.where(np.arange(len(v)) == 0, np.inf, 0)), "unit vector of finite values"),
        (lambda v: encoded(v[:-1]), "float32 values, as the header says"),
        (lambda v: "not base64!", "base64"),
        (lambda v: [1.0, 0.0], "base64"),
    ],
)
def test_a_hostile_vector_is_422_and_writes_nothing(api, namespace, make_person, vector, message) -> None:
    make_person("alice")
    header, records = exported(api)
    memory = first_memory(records)
    memory["vector"] = vector(decoded(memory["vector"]))
    wipe(namespace)
    response = restore(api, sealed(header, records), dry_run=False)
    assert response.status_code == 422, response.content
    assert message in response.json()["error"]["message"]
    assert response.json()["error"]["details"]["fields"][0]["field"] == "vector"
    assert not Memory.objects.filter(namespace=namespace).exists()


def test_a_vector_without_the_headers_model_is_422(api, namespace, make_person) -> None:
    make_person("alice")
    header, records = exported(api)
    del header["vectors"]
    wipe(namespace)
    response = restore(api, sealed(header, records), dry_run=False)
    assert response.status_code == 422, response.content
    assert "needs the header's vectors" in response.json()["error"]["message"]
    assert not Memory.objects.filter(namespace=namespace).exists()


def test_a_header_with_a_malformed_vectors_description_is_422(api, namespace, make_person) -> None:
    make_person("alice")
    header, records = exported(api)
    header["vectors"]["dimension"] = 0
    response = restore(api, sealed(header, records), dry_run=True)
    assert response.status_code == 422, response.content
    assert response.json()["error"]["details"]["fields"][0]["field"] == "dimension"
