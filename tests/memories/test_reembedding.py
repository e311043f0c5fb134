"""Changing the model: a re-embedding job (command, Celery task, console) while search keeps working."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.test import override_settings

from memoryadmin.memories.embeddings import WordLlamaEmbedder, get_embedder
from memoryadmin.memories.models import MemoryVector
from memoryadmin.memories.queries import memories_search
from memoryadmin.memories.services import memory_create
from memoryadmin.memories.services.embedding import embedding_job, memories_embed_all
from tests.conftest import SYSTEM
from tests.memories.embeddings_server import EmbeddingsServer


@pytest.fixture
def other_model(redis_client):
    server = EmbeddingsServer().start()
    with override_settings(EMBEDDER="openai", EMBEDDING_BASE_URL=server.base_url, EMBEDDING_MODEL="tiny-embed"):
        get_embedder.cache_clear()
        yield server
    get_embedder.cache_clear()
    server.stop()


def remember(namespace, text: str):
    return memory_create(namespace=namespace, user_id="alice", text=text, actor=SYSTEM).memory


def test_a_new_model_is_a_job_and_search_works_before_during_and_after(namespace, other_model, capsys) -> None:
    with override_settings(EMBEDDER="wordllama"):
        get_embedder.cache_clear()
        tea, coffee = remember(namespace, "Alice drinks green tea"), remember(namespace, "Alice drinks coffee")
    get_embedder.cache_clear()
    # Switched, not yet re-embedded: the old vectors are never compared with the new model's.
    (hit,) = memories_search(namespace, query="tea", user_id="alice", explain=True).items
    assert hit.memory.pk == tea.pk and hit.explain["vector"] is None  # found by full text alone

    call_command("embed_memories", "--batch", "1")
    assert "2 of 2 embedded with tiny-embed" in capsys.readouterr().out
    hit = memories_search(namespace, query="tea", user_id="alice", explain=True).items[0]
    assert hit.memory.pk == tea.pk and hit.explain["vector"] is not None
    assert set(MemoryVector.objects.values_list("model", flat=True)) == {WordLlamaEmbedder.model, "tiny-embed"}

    call_command("embed_memories", "--prune")
    assert set(MemoryVector.objects.values_list("model", flat=True)) == {"tiny-embed"}
    job = embedding_job()
    assert (job.status, job.model, job.total, job.done, job.pruned) == ("succeeded", "tiny-embed", 0, 0, 2)
    assert coffee.pk in set(MemoryVector.objects.values_list("memory_id", flat=True))


def test_a_job_that_loses_its_endpoint_stops_and_says_so(namespace, other_model) -> None:
    with override_settings(EMBEDDER="wordllama"):
        get_embedder.cache_clear()
        remember(namespace, "Alice drinks green tea")
    get_embedder.cache_clear()
    for _ in range(3):
        other_model.fail(503)
    job = memories_embed_all()
    assert job.status == "failed" and "503" in job.error
    assert embedding_job().status == "failed"
    assert not MemoryVector.objects.filter(model="tiny-embed").exists()


@pytest.mark.django_db(transaction=True)
def test_memories_deleted_or_edited_while_their_batch_is_embedded_keep_what_they_now_are(other_model) -> None:
    from django.db import connection

    from memoryadmin.memories.services import memory_forget, memory_update
    from memoryadmin.memories.vectors import vectors_of
    from memoryadmin.tenancy.services import namespace_create
    from tests.memories.embeddings_server import text_vector

    namespace = namespace_create(slug="reembed-race", actor=SYSTEM)
    with override_settings(EMBEDDER="wordllama"):
        get_embedder.cache_clear()
        tea, home, coffee = (
            remember(namespace, text)
            for text in ("Alice drinks green tea", "Alice lives in Lyon", "Alice likes coffee")
        )
    get_embedder.cache_clear()

    def meanwhile(texts: list[str]) -> None:
        # Another process, while the job's batch is at the embedder: one memory forgotten, one edited
        # (the edit embeds its new text through the same endpoint and stores that vector).
        try:
            memory_forget(memory=type(tea).objects.get(pk=tea.pk), actor=SYSTEM, reason="gone meanwhile")
            memory_update(memory=type(home).objects.get(pk=home.pk), actor=SYSTEM, text="Alice lives in Porto")
        finally:
            connection.close()

    other_model.before_next = meanwhile
    job = memories_embed_all(batch=10)

    assert (job.status, job.error) == ("succeeded", "")
    stored = set(MemoryVector.objects.filter(model="tiny-embed").values_list("memory_id", flat=True))
    assert stored == {home.pk, coffee.pk}  # nothing for the memory forgotten meanwhile
    # The edited memory keeps the vector of its new text, not the one the job made of the old.
    edited = vectors_of([home.pk], "tiny-embed")[home.pk]
    assert edited.tolist() == pytest.approx(_unit(text_vector("Alice lives in Porto", other_model.dimension)))
    assert edited.tolist() != pytest.approx(_unit(text_vector("Alice lives in Lyon", other_model.dimension)))


def _unit(vector: list[float]) -> list[float]:
    norm = sum(x * x for x in vector) ** 0.5
    return [x / norm for x in vector]


@pytest.mark.django_db(transaction=True)
def test_a_job_that_fails_otherwise_says_so_before_it_stops(namespace, other_model) -> None:
    from django.db import OperationalError, connection, connections

    with override_settings(EMBEDDER="wordllama"):
        get_embedder.cache_clear()
        remember(namespace, "Alice drinks green tea")
    get_embedder.cache_clear()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (job_backend,) = cursor.fetchone()

    def server_goes_away(texts: list[str]) -> None:
        # The job's database connection ends while its batch is at the embedder (a restart, a failover).
        other = connections.create_connection("default")
        try:
            with other.cursor() as cursor:
                cursor.execute("SELECT pg_terminate_backend(%s)", [job_backend])
        finally:
            other.close()

    other_model.before_next = server_goes_away
    with pytest.raises(OperationalError):
        memories_embed_all(batch=10)
    connection.close()
    job = embedding_job()
    assert (job.status, job.error) == ("failed", "internal error: OperationalError")
    assert job.finished_at
