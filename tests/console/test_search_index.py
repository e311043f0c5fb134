"""The console's search index card: the embedder, the last re-embedding job, and a way to start one."""

from __future__ import annotations

import pytest

from memoryadmin.audit.models import AuditEvent
from memoryadmin.celery import app as celery_app
from memoryadmin.memories.models import MemoryVector
from memoryadmin.memories.services.embedding import embedding_job


@pytest.fixture
def eager_celery():
    """The queued task runs in this process, for real, when the transaction commits."""
    previous = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = previous


def test_the_console_queues_a_job_for_an_admin_and_shows_its_progress(
    admin_client, viewer_client, make_memory, redis_client, eager_celery, django_capture_on_commit_callbacks
) -> None:
    memory = make_memory("User drinks green tea")
    MemoryVector.objects.filter(memory=memory).delete()
    assert viewer_client.post("/search-index/rebuild/").status_code == 403
    assert "No re-embedding has run" in viewer_client.get("/").content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post("/search-index/rebuild/", {"prune": "on"})
    assert response.status_code == 302
    # The worker (run in-process here) embedded the memory that had no vector.
    assert MemoryVector.objects.filter(memory=memory).exists()
    job = embedding_job()
    assert (job.status, job.total, job.done) == ("succeeded", 1, 1)
    html = viewer_client.get("/").content.decode()
    assert "Re-embedding with <code>wordllama/l2_supercat_256</code>" in html and "succeeded" in html
    assert AuditEvent.objects.filter(action="embeddings.rebuild").count() == 1
