from __future__ import annotations

import socket
from collections.abc import Iterator

import numpy as np
import pytest
from django.test import override_settings

from memoryadmin.memories import embeddings
from memoryadmin.memories.embeddings import (
    EmbeddingError,
    OpenAIEmbedder,
    WordLlamaEmbedder,
    content_words,
    get_embedder,
    word_vectors,
)
from memoryadmin.memories.models import MemoryVector
from memoryadmin.memories.queries import memories_search
from memoryadmin.memories.services import memory_create
from tests.conftest import SYSTEM
from tests.memories.embeddings_server import EmbeddingsServer, text_vector


@pytest.fixture
def server() -> Iterator[EmbeddingsServer]:
    running = EmbeddingsServer().start()
    yield running
    running.stop()


def client(server: EmbeddingsServer, **kwargs) -> OpenAIEmbedder:
    kwargs.setdefault("backoff", 0.0)
    return OpenAIEmbedder(base_url=server.base_url, api_key="sk-test", model="tiny-embed", **kwargs)


def test_wordllama_embeds_offline_into_unit_vectors() -> None:
    embedder = WordLlamaEmbedder()
    vectors = embedder.embed(["User lives in Lyon", "The user resides in Lyon", "User likes jazz"])
    assert vectors.shape == (3, 256) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert embedder.model == "wordllama/l2_supercat_256" and embedder.dimension == 256
    # A paraphrase is nearer than an unrelated fact.
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.2


def test_wordllama_loads_from_its_own_package_and_never_downloads(monkeypatch) -> None:
    import wordllama.wordllama as module

    def no_network(*args, **kwargs):
        raise AssertionError("WordLlama tried to download")

    monkeypatch.setattr(module.requests, "get", no_network)
    embeddings._wordllama.cache_clear()
    try:
        assert WordLlamaEmbedder().embed(["offline"]).shape == (1, 256)
    finally:
        embeddings._wordllama.cache_clear()


def test_word_vectors_are_cached_and_consistent() -> None:
    first = word_vectors(["automobile", "car", "zebra"])
    again = word_vectors(["car", "automobile"])
    assert np.allclose(first[1], again[0]) and np.allclose(first[0], again[1])
    assert first[0] @ first[1] > first[0] @ first[2]
    assert word_vectors([]).shape == (0, 256)


def test_new_words_join_the_published_index_in_place_until_the_matrix_is_replaced() -> None:
    vectors = embeddings._WordVectors()
    vectors(["car"])
    index, matrix = vectors.state
    vectors(["automobile", "zebra"])
    # Same matrix: the new words' rows were written into it, then named in the same index.
    assert vectors.state[0] is index and vectors.state[1] is matrix
    assert np.allclose(matrix[index["zebra"]], word_vectors(["zebra"])[0])
    # Past the matrix's rows, a grown matrix and a new index are published together; a reader holding the
    # old pair keeps a consistent one: the old index names no row the old matrix lacks.
    many = [f"word{i}" for i in range(len(matrix))]
    vectors(many)
    grown_index, grown = vectors.state
    assert grown is not matrix and grown_index is not index
    assert len(index) == 3 and all(matrix[row].any() for row in index.values())
    assert np.allclose(grown[grown_index["word7"]], word_vectors(["word7"])[0])


def test_content_words_leave_the_shape_of_a_question_out() -> None:
    assert content_words("What kind of car does Evan drive?") == ["car", "evan", "drive"]
    assert content_words("Where's Nate's turtle?") == ["where's", "nate's", "turtle"]


def test_the_openai_embedder_batches_and_follows_the_index(server) -> None:
    embedder = client(server, batch_size=2)
    texts = ["red car", "blue car", "green tea", "black tea", "jazz"]
    vectors = embedder.embed(texts)
    assert vectors.shape == (5, 8)
    expected = np.array([text_vector(t, 8) for t in texts], dtype=np.float32)
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    assert np.allclose(vectors, expected, atol=1e-6)
    assert [len(r["body"]["input"]) for r in server.requests] == [2, 2, 1]
    assert all(r["path"] == "/v1/embeddings" for r in server.requests)
    assert server.requests[0]["headers"]["Authorization"] == "Bearer sk-test"
    assert server.requests[0]["body"]["model"] == "tiny-embed"
    assert embedder.dimension == 8


def test_the_openai_embedder_learns_its_dimension_by_asking(server) -> None:
    assert client(server).dimension == 8
    assert len(server.requests) == 1


def test_the_openai_embedder_retries_what_is_worth_retrying(server) -> None:
    server.fail(503)
    server.fail(429)
    assert client(server, max_retries=2).embed(["tea"]).shape == (1, 8)
    assert len(server.requests) == 3


def test_the_openai_embedder_gives_up_after_its_retries(server) -> None:
    for _ in range(3):
        server.fail(500)
    with pytest.raises(EmbeddingError, match="HTTP 500"):
        client(server, max_retries=2).embed(["tea"])
    assert len(server.requests) == 3


def test_the_openai_embedder_does_not_retry_a_client_error(server) -> None:
    server.fail(401)
    with pytest.raises(EmbeddingError, match="HTTP 401"):
        client(server, max_retries=3).embed(["tea"])
    assert len(server.requests) == 1


def test_the_openai_embedder_times_out(server) -> None:
    server.fail(200, delay=2.0, raw=b"{}")
    with pytest.raises(EmbeddingError, match="did not answer within"):
        client(server, timeout=0.3, max_retries=0).embed(["tea"])


@pytest.mark.parametrize(
    "raw",
    [
        b"not json",
        b'{"data": "nope"}',
        b'{"data": [{"embedding": [1, 2]}]}',  # two texts asked, one vector answered
        b'{"data": [{"index": 0, "embedding": []}, {"index": 1, "embedding": []}]}',
    ],
)
def test_the_openai_embedder_refuses_a_malformed_answer(server, raw) -> None:
    server.fail(200, raw=raw)
    with pytest.raises(EmbeddingError):
        client(server, max_retries=0).embed(["tea", "coffee"])


def test_the_openai_embedder_refuses_a_change_of_dimension(server) -> None:
    embedder = client(server, dimensions=16, max_retries=0)
    with pytest.raises(EmbeddingError, match="8 dimensions, expected 16"):
        embedder.embed(["tea"])
    assert server.requests[0]["body"]["dimensions"] == 16


def test_the_openai_embedder_says_when_nobody_listens() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    embedder = OpenAIEmbedder(base_url=f"http://127.0.0.1:{port}/v1", api_key="", model="m", max_retries=1, backoff=0)
    with pytest.raises(EmbeddingError, match="unreachable"):
        embedder.embed(["tea"])


def test_a_write_and_a_search_go_on_when_the_endpoint_is_down(namespace, server) -> None:
    with override_settings(EMBEDDER="openai", EMBEDDING_BASE_URL=server.base_url, EMBEDDING_MAX_RETRIES=0):
        get_embedder.cache_clear()
        try:
            server.fail(503)
            memory = memory_create(namespace=namespace, user_id="alice", text="Alice drinks tea", actor=SYSTEM).memory
            assert not MemoryVector.objects.filter(memory=memory).exists()
            server.fail(503)
            (hit,) = memories_search(namespace, query="tea", user_id="alice", explain=True).items
            assert hit.memory.pk == memory.pk and hit.explain["vector"] is None
            # With the endpoint back, writes store the endpoint's vectors under its model's name.
            other = memory_create(namespace=namespace, user_id="alice", text="Alice drinks coffee", actor=SYSTEM)
            stored = MemoryVector.objects.get(memory=other.memory)
            assert (stored.model, stored.dimension) == ("text-embedding-3-small", 8)
        finally:
            get_embedder.cache_clear()
