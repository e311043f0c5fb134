"""A worker killed in the middle of a run: taken over by beat's recovery within the lease, or resumed by the
broker's redelivery, and either way no duplicates."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from memoryadmin.conversations.models import Message
from memoryadmin.core.redis_client import get_redis
from memoryadmin.extraction.models import ExtractionRun, RunStatus
from memoryadmin.extraction.services import INTERRUPTED, extraction_run_due, schedule_key
from memoryadmin.extraction.tasks import recover_extraction
from memoryadmin.memories.models import Memory, MemoryEvidence
from tests.conftest import redis_test_url
from tests.extraction.conftest import say, wait_for

pytestmark = pytest.mark.django_db(transaction=True)

VISIBILITY_TIMEOUT = 1.0
# What production runs with: a task whose worker died comes back only after an hour.
PRODUCTION_VISIBILITY_TIMEOUT = 3600.0
LEASE = 2.0
ROOT = Path(__file__).resolve().parents[2]
ANSWER = {
    "memories": [
        {"text": "User lives in Lyon", "type": "semantic", "source_seqs": [1]},
        {"text": "User loves jazz", "type": "preference", "source_seqs": [1]},
    ]
}


def start_worker_process(
    name: str, llm_url: str, log: Path, *, visibility: float = VISIBILITY_TIMEOUT, lease: float = 60.0
) -> subprocess.Popen:
    database = connection.settings_dict
    env = {
        **os.environ,
        # The test database, not the development one.
        "DATABASE_URL": f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/{database['NAME']}",
        "REDIS_URL": redis_test_url(),
        "CELERY_BROKER_URL": redis_test_url(),
        "LLM_BASE_URL": llm_url,
        "LLM_API_KEY": "sk-test",
        "LLM_TIMEOUT_SECONDS": "60",
        "LLM_MAX_RETRIES": "0",
        "TEST_VISIBILITY_TIMEOUT": str(visibility),
        "EXTRACTION_LEASE_SECONDS": str(lease),
        "EXTRACTION_DEBOUNCE_SECONDS": "0",
        "TOMBSTONE_KEY": settings.TOMBSTONE_KEY,
        "SECRET_KEY": settings.SECRET_KEY,
    }
    return subprocess.Popen(
        [sys.executable, "-m", "tests.extraction.worker_main", name],
        cwd=ROOT,
        env=env,
        stdout=log.open("ab"),
        stderr=subprocess.STDOUT,
    )


def test_a_worker_killed_mid_run_leaves_no_duplicates_after_redelivery(make_namespace, llm, settings, tmp_path) -> None:
    namespace = make_namespace("killed", extraction_strategy="discrete")
    settings.EXTRACTION_DEBOUNCE_SECONDS = 0
    # The first worker's call hangs (a slow strategy); the redelivered run gets an answer at once.
    llm.answer(ANSWER, delay=60)
    llm.answer(ANSWER)
    log = tmp_path / "workers.log"

    first = start_worker_process("first", llm.base_url, log)
    try:
        session, said = say(namespace, "I live in Lyon and I love jazz.")
        wait_for(lambda: len(llm.requests) == 1, timeout=30)
        run = ExtractionRun.objects.get(session=session)
        assert run.status == RunStatus.RUNNING
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait(10)
    assert first.returncode == -signal.SIGKILL
    assert not Memory.objects.exists()
    assert Message.objects.filter(session=session, extracted_at__isnull=True).count() == 1

    # Starting takes longer than the visibility timeout, so the new worker finds the task abandoned.
    second = start_worker_process("second", llm.base_url, log)
    try:
        wait_for(lambda: ExtractionRun.objects.get(pk=run.pk).status == RunStatus.SUCCEEDED, timeout=30)
        # Any further delivery of the same task must find nothing to do.
        time.sleep(VISIBILITY_TIMEOUT + 0.5)
    finally:
        second.send_signal(signal.SIGTERM)
        second.wait(20)

    assert len(llm.requests) == 2, log.read_text()
    assert ExtractionRun.objects.filter(session=session).count() == 1
    run.refresh_from_db()
    assert run.counts == {"candidates": 2, "created": 2, "updated": 0, "duplicates": 0, "suppressed": 0}
    assert sorted(Memory.objects.values_list("text", flat=True)) == ["User lives in Lyon", "User loves jazz"]
    assert set(MemoryEvidence.objects.values_list("message_id", flat=True)) == {said[0].pk}
    assert not Message.objects.filter(session=session, extracted_at__isnull=True).exists()


def test_a_run_whose_worker_was_killed_is_taken_over_within_the_lease_not_the_visibility_timeout(
    make_namespace, llm, settings, tmp_path
) -> None:
    namespace = make_namespace("taken-over", extraction_strategy="discrete")
    settings.EXTRACTION_DEBOUNCE_SECONDS = 0
    settings.EXTRACTION_LEASE_SECONDS = LEASE
    llm.answer(ANSWER, delay=60)
    llm.answer(ANSWER)
    log = tmp_path / "workers.log"
    broker = get_redis()

    first = start_worker_process("first", llm.base_url, log, visibility=PRODUCTION_VISIBILITY_TIMEOUT, lease=LEASE)
    try:
        session, said = say(namespace, "I live in Lyon and I love jazz.")
        wait_for(lambda: len(llm.requests) == 1, timeout=30)
        run = ExtractionRun.objects.get(session=session)
        key = schedule_key(namespace.pk, session.pk)
        token = broker.get(key)
        # The model call outlasts the lease, and the run is alive: beat's tick leaves it alone.
        wait_for(lambda: ExtractionRun.objects.get(pk=run.pk).heartbeat_at > run.heartbeat_at, timeout=10)
        time.sleep(LEASE)
        assert recover_extraction() == {"interrupted": 0, "scheduled": 0}
        assert ExtractionRun.objects.get(pk=run.pk).status == RunStatus.RUNNING
        assert 0 < broker.pttl(key) <= LEASE * 1000
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait(10)
    assert first.returncode == -signal.SIGKILL
    killed_at = time.monotonic()
    # The broker keeps the task unacknowledged: it would be handed out again only an hour from now.
    assert broker.hlen("unacked") == 1

    second = start_worker_process("second", llm.base_url, log, visibility=PRODUCTION_VISIBILITY_TIMEOUT, lease=LEASE)
    try:
        # Beat's tick, every few seconds here: it takes the run over once the lease has run out.
        wait_for(lambda: recover_extraction()["interrupted"], timeout=LEASE * 5, interval=0.2)
        wait_for(lambda: ExtractionRun.objects.filter(session=session, status=RunStatus.SUCCEEDED).exists(), timeout=30)
        taken_over_in = time.monotonic() - killed_at
    finally:
        second.send_signal(signal.SIGTERM)
        second.wait(20)

    assert taken_over_in < 30, log.read_text()
    run.refresh_from_db()
    assert (run.status, run.error) == (RunStatus.FAILED, INTERRUPTED)
    later = ExtractionRun.objects.get(session=session, status=RunStatus.SUCCEEDED)
    assert (later.candidates, later.created, later.duplicates, later.suppressed) == (2, 2, 0, 0)
    assert len(llm.requests) == 2, log.read_text()
    assert sorted(Memory.objects.values_list("text", flat=True)) == ["User lives in Lyon", "User loves jazz"]
    assert set(MemoryEvidence.objects.values_list("message_id", flat=True)) == {said[0].pk}
    assert not Message.objects.filter(session=session, extracted_at__isnull=True).exists()
    assert broker.get(key) is None

    # The killed task, when the broker finally hands it out again, finds nothing to do.
    assert extraction_run_due(run_id=run.pk, token=token) is None
    assert Memory.objects.count() == 2 and len(llm.requests) == 2
    assert ExtractionRun.objects.get(pk=run.pk).status == RunStatus.FAILED
