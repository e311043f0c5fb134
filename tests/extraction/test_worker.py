"""Extraction through a real Celery worker consuming the real Redis broker."""

from __future__ import annotations

import time

import pytest

from memoryadmin.celery import app as celery_app
from memoryadmin.conversations.models import Message
from memoryadmin.core import request_ids
from memoryadmin.core.redis_client import get_redis
from memoryadmin.extraction.models import ExtractionRun, RunStatus
from memoryadmin.memories.models import Memory, MemoryEvidence
from tests.extraction.conftest import say, wait_for

pytestmark = pytest.mark.django_db(transaction=True)

FINISHED = (RunStatus.SUCCEEDED, RunStatus.FAILED)


def finished_runs(session) -> list[ExtractionRun]:
    return list(ExtractionRun.objects.filter(session=session, status__in=FINISHED).order_by("created_at"))


def all_runs_finished(session) -> bool:
    runs = ExtractionRun.objects.filter(session=session)
    return runs.exists() and not runs.exclude(status__in=FINISHED).exists()


def test_appended_messages_become_memories_with_evidence_and_a_run(namespace, celery_worker) -> None:
    session, said = say(namespace, "Hi, I'm Anna and I live in Lyon.", "Can you recommend a restaurant?")
    (run,) = wait_for(lambda: finished_runs(session))
    assert run.status == RunStatus.SUCCEEDED, run.error
    assert (run.strategy, run.from_seq, run.to_seq) == ("rules", 1, 2)
    assert run.counts == {
        "candidates": 2,
        "created": 2,
        "updated": 0,
        "duplicates": 0,
        "suppressed": 0,
        "superseded": 0,
    }
    for text in ("User's name is Anna", "User lives in Lyon"):
        memory = Memory.objects.get(namespace=namespace, user_id="alice", text=text)
        assert list(memory.evidence.values_list("message_id", flat=True)) == [said[0].pk]
    assert not Message.objects.filter(session=session, extracted_at__isnull=True).exists()


def test_a_burst_of_appends_is_collapsed_into_one_run(namespace, celery_worker, settings) -> None:
    sentences = ["I live in Lyon.", "I work at Acme.", "I love jazz.", "I'm vegan.", "My dog's name is Rex."]
    for sentence in sentences:
        session, _ = say(namespace, sentence)
    (run,) = wait_for(lambda: finished_runs(session))
    # Give any stray schedule time to fire: none may start a second run.
    time.sleep(settings.EXTRACTION_DEBOUNCE_SECONDS * 3)
    assert ExtractionRun.objects.filter(session=session).count() == 1
    run.refresh_from_db()
    assert (run.status, run.from_seq, run.to_seq, run.created) == (RunStatus.SUCCEEDED, 1, 5, 5)


def test_re_extraction_is_idempotent(namespace, api, celery_worker) -> None:
    session, _ = say(namespace, "I live in Lyon and I love jazz.")
    wait_for(lambda: finished_runs(session))
    before = sorted(Memory.objects.values_list("id", "revision"))
    evidence = MemoryEvidence.objects.count()

    run_ids = {api.post("/api/v1/sessions/s1/extract").json()["run_id"] for _ in range(2)}
    wait_for(
        lambda: all_runs_finished(session) and ExtractionRun.objects.filter(pk__in=run_ids).count() == len(run_ids)
    )
    assert sorted(Memory.objects.values_list("id", "revision")) == before
    assert MemoryEvidence.objects.count() == evidence
    listed = api.get("/api/v1/sessions/s1/extraction").json()["items"]
    assert {item["status"] for item in listed} == {"succeeded"}
    assert sum(item["counts"]["created"] for item in listed) == 2


def test_a_forgotten_memory_said_again_in_a_new_session_is_suppressed(namespace, api, celery_worker) -> None:
    session, _ = say(namespace, "I live in Lyon.")
    wait_for(lambda: finished_runs(session))
    memory = Memory.objects.get(text="User lives in Lyon")
    assert api.delete(f"/api/v1/memories/{memory.pk}?reason=asked").status_code == 204

    later, _ = say(namespace, "Just so you know, I live in Lyon.", session_id="s2")
    (run,) = wait_for(lambda: finished_runs(later))
    assert run.counts == {
        "candidates": 1,
        "created": 0,
        "updated": 0,
        "duplicates": 0,
        "suppressed": 1,
        "superseded": 0,
    }
    assert not Memory.objects.filter(namespace=namespace, user_id="alice").exists()
    (listed,) = api.get("/api/v1/sessions/s2/extraction").json()["items"]
    assert listed["counts"]["suppressed"] == 1


@celery_app.task(name="tests.request_id_probe")
def request_id_probe(key: str) -> None:
    get_redis().set(key, request_ids.current.get() or "")


def test_a_task_runs_under_the_request_id_of_whatever_queued_it(celery_worker) -> None:
    token = request_ids.current.set("trace-worker-1")
    try:
        request_id_probe.delay("probe:given")
    finally:
        request_ids.current.reset(token)
    request_id_probe.delay("probe:none")  # queued outside any request: an id of its own
    assert wait_for(lambda: get_redis().get("probe:given")) == "trace-worker-1"
    made = wait_for(lambda: get_redis().get("probe:none"))
    assert len(made) == 32 and made != "trace-worker-1"
