"""Beat's recovery: a run whose worker died is taken over, and messages no schedule reaches are scheduled."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connections
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from memoryadmin.conversations.models import Message, MessageKind
from memoryadmin.conversations.services import NewMessage, session_append_messages
from memoryadmin.core.redis_client import get_redis
from memoryadmin.extraction.models import ExtractionRun, RunStatus
from memoryadmin.extraction.services import (
    INTERRUPTED,
    extraction_recover,
    extraction_run_due,
    extraction_schedule,
    schedule_key,
)
from memoryadmin.memories.models import Memory
from tests.extraction.conftest import say, wait_for
from tests.extraction.test_scheduling import key_of, queued_tasks, task_args

ROOT = Path(__file__).resolve().parents[2]
NOTHING = {"interrupted": 0, "scheduled": 0}


@pytest.fixture(autouse=True)
def _no_debounce(settings) -> None:
    # A task recovery publishes runs at once instead of waiting for the session to be quiet again.
    settings.EXTRACTION_DEBOUNCE_SECONDS = 0


def quiet_for(session, seconds: float) -> None:
    """As if the session's messages had been appended `seconds` ago."""
    then = timezone.now() - timedelta(seconds=seconds)
    Message.objects.filter(session=session).update(persisted_at=then)
    type(session).objects.filter(pk=session.pk).update(last_message_at=then)


def long_quiet(session, settings) -> None:
    quiet_for(session, settings.EXTRACTION_DEBOUNCE_SECONDS + settings.EXTRACTION_LEASE_SECONDS + 5)


def lose_worker_of(run, *, heartbeat_seconds_ago: float) -> None:
    """The run was claimed an hour ago and its last heartbeat came `heartbeat_seconds_ago`."""
    now = timezone.now()
    ExtractionRun.objects.filter(pk=run.pk).update(
        status=RunStatus.RUNNING,
        started_at=now - timedelta(hours=1),
        heartbeat_at=now - timedelta(seconds=heartbeat_seconds_ago),
    )


@pytest.mark.parametrize("key_expired", [True, False], ids=["key expired with the lease", "key left behind"])
def test_a_run_whose_lease_ran_out_is_interrupted_and_its_session_scheduled_again(
    namespace, redis_client, django_capture_on_commit_callbacks, settings, key_expired
) -> None:
    session, _ = say(namespace, "I live in Lyon.")
    with django_capture_on_commit_callbacks(execute=True):
        run = extraction_schedule(session=session, delay=0)
    # The schedule it started from, an hour ago; then its worker died.
    old_token = f"{time.time() - 3600:.6f}"
    redis_client.set(key_of(session), old_token)
    lose_worker_of(run, heartbeat_seconds_ago=settings.EXTRACTION_LEASE_SECONDS + 30)
    if key_expired:
        redis_client.delete(key_of(session))

    assert extraction_recover() == {"interrupted": 1, "scheduled": 1}
    run.refresh_from_db()
    assert (run.status, run.error) == (RunStatus.FAILED, INTERRUPTED)
    later = ExtractionRun.objects.get(session=session, status=RunStatus.QUEUED)
    token = redis_client.get(key_of(session))
    assert token != old_token
    assert task_args(queued_tasks(redis_client)[-1]) == ([str(later.pk), token], {"debounce": 0.0})

    assert extraction_run_due(run_id=later.pk, token=token).created == 1
    # The killed worker's task, redelivered an hour later, finds nothing left to do.
    assert extraction_run_due(run_id=run.pk, token=old_token) is None
    assert list(Memory.objects.values_list("text", flat=True)) == ["User lives in Lyon"]
    assert ExtractionRun.objects.get(pk=run.pk).status == RunStatus.FAILED
    assert extraction_recover() == NOTHING


def test_a_run_that_died_after_its_last_write_is_interrupted_without_a_new_run(
    namespace, redis_client, django_capture_on_commit_callbacks, settings
) -> None:
    session, _ = say(namespace, "I live in Lyon.")
    with django_capture_on_commit_callbacks(execute=True):
        run = extraction_schedule(session=session, delay=0)
    Message.objects.filter(session=session).update(extracted_at=timezone.now())
    lose_worker_of(run, heartbeat_seconds_ago=settings.EXTRACTION_LEASE_SECONDS + 30)

    assert extraction_recover() == {"interrupted": 1, "scheduled": 0}
    assert list(ExtractionRun.objects.values_list("status", flat=True)) == [RunStatus.FAILED]


def test_a_run_whose_lease_is_live_is_left_alone_however_long_it_takes(namespace, redis_client, settings) -> None:
    session, _ = say(namespace, "I live in Lyon.")
    run = ExtractionRun.objects.create(namespace=namespace, session=session, strategy="rules")
    lose_worker_of(run, heartbeat_seconds_ago=settings.EXTRACTION_LEASE_SECONDS / 2)
    # It holds the schedule it started from, an hour ago.
    redis_client.set(key_of(session), f"{time.time() - 3600:.6f}")
    long_quiet(session, settings)

    assert extraction_recover() == NOTHING
    assert ExtractionRun.objects.get(pk=run.pk).status == RunStatus.RUNNING
    assert queued_tasks(redis_client) == []


def test_a_message_whose_schedule_never_reached_redis_is_scheduled_once_the_session_is_quiet(
    namespace, redis_client, settings
) -> None:
    # The append's schedule runs after its commit; here it never runs, as when Redis was down then.
    session, _ = say(namespace, "I live in Lyon.", "I love jazz.")
    assert redis_client.get(key_of(session)) is None

    assert extraction_recover() == NOTHING  # still inside the quiet period: its own schedule may yet come
    long_quiet(session, settings)
    assert extraction_recover() == {"interrupted": 0, "scheduled": 1}
    run = ExtractionRun.objects.get(session=session, status=RunStatus.QUEUED)
    token = redis_client.get(key_of(session))
    assert [task_args(t)[0] for t in queued_tasks(redis_client)] == [[str(run.pk), token]]
    assert redis_client.ttl(key_of(session)) > 0

    assert extraction_run_due(run_id=run.pk, token=token, debounce=0).created == 2
    assert not Message.objects.filter(session=session, extracted_at__isnull=True).exists()
    assert extraction_recover() == NOTHING


def test_a_pending_schedule_is_not_doubled(namespace, redis_client, django_capture_on_commit_callbacks, settings):
    session, _ = say(namespace, "I live in Lyon.")
    with django_capture_on_commit_callbacks(execute=True):
        extraction_schedule(session=session, delay=30)
    token = redis_client.get(key_of(session))
    long_quiet(session, settings)

    assert extraction_recover() == NOTHING
    assert redis_client.get(key_of(session)) == token
    assert len(queued_tasks(redis_client)) == 1


def test_a_schedule_whose_task_was_lost_with_its_worker_is_replaced(
    namespace, redis_client, django_capture_on_commit_callbacks, settings
) -> None:
    session, _ = say(namespace, "I live in Lyon.")
    with django_capture_on_commit_callbacks(execute=True):
        run = extraction_schedule(session=session, delay=0)
    # The worker that held the task (reserved until its countdown) died: the schedule is long overdue.
    lost_token = f"{time.time() - settings.EXTRACTION_LEASE_SECONDS - 60:.6f}"
    redis_client.set(key_of(session), lost_token)
    long_quiet(session, settings)

    assert extraction_recover() == {"interrupted": 0, "scheduled": 1}
    token = redis_client.get(key_of(session))
    assert token != lost_token
    assert task_args(queued_tasks(redis_client)[-1])[0] == [str(run.pk), token]  # the same queued run
    assert extraction_run_due(run_id=run.pk, token=lost_token) is None
    assert ExtractionRun.objects.get(pk=run.pk).status == RunStatus.QUEUED
    assert extraction_run_due(run_id=run.pk, token=token).created == 1


def test_a_session_whose_run_failed_is_tried_again_after_the_retry_delay(namespace, redis_client, settings) -> None:
    session, _ = say(namespace, "I live in Lyon.")
    # Queued long ago, failed a moment ago: the delay counts from the failure.
    failed = ExtractionRun.objects.create(
        namespace=namespace,
        session=session,
        strategy="discrete",
        status=RunStatus.FAILED,
        error="model unreachable",
        finished_at=timezone.now(),
    )
    ExtractionRun.objects.filter(pk=failed.pk).update(created_at=timezone.now() - timedelta(days=1))
    long_quiet(session, settings)

    assert extraction_recover() == NOTHING
    ExtractionRun.objects.filter(pk=failed.pk).update(
        finished_at=timezone.now() - timedelta(seconds=settings.EXTRACTION_RETRY_SECONDS + 1)
    )
    assert extraction_recover() == {"interrupted": 0, "scheduled": 1}


def test_an_interrupted_run_does_not_hold_its_session_back(namespace, redis_client, settings) -> None:
    session, _ = say(namespace, "I live in Lyon.")
    ExtractionRun.objects.create(
        namespace=namespace, session=session, strategy="rules", status=RunStatus.FAILED, error=INTERRUPTED
    )
    long_quiet(session, settings)
    assert extraction_recover() == {"interrupted": 0, "scheduled": 1}


def test_guidance_system_and_tool_messages_never_stay_unextracted(
    namespace, redis_client, django_capture_on_commit_callbacks, settings
) -> None:
    session, _ = session_append_messages(
        namespace=namespace,
        session_id="s1",
        user_id="alice",
        messages=[
            NewMessage(role="system", content="You are a helpful assistant."),
            NewMessage(role="user", content="I live in Lyon.", kind=MessageKind.SUPPORTING_CONTEXT),
            NewMessage(role="assistant", content="Remember to be brief.", kind=MessageKind.INSTRUCTION),
            NewMessage(role="tool", content='{"weather": "sunny"}', tool_call_id="call-1"),
        ],
    )
    with django_capture_on_commit_callbacks(execute=True):
        run = extraction_schedule(session=session, delay=0)
    done = extraction_run_due(run_id=run.pk, token=redis_client.get(key_of(session)))
    # None of them is a source, and every one is marked: nothing is left for beat to find again.
    assert (done.status, done.candidates) == (RunStatus.SUCCEEDED, 0)
    assert not Message.objects.filter(session=session, extracted_at__isnull=True).exists()
    long_quiet(session, settings)
    assert extraction_recover() == NOTHING


def test_a_tick_takes_as_many_statements_for_twenty_sessions_as_for_two(namespace, redis_client, settings) -> None:
    def lost_sessions(prefix: str, count: int) -> None:
        for index in range(count):
            session, _ = say(namespace, "I live in Lyon.", session_id=f"{prefix}{index}")
            long_quiet(session, settings)

    lost_sessions("a", 2)
    with CaptureQueriesContext(connections["default"]) as two:
        assert extraction_recover()["scheduled"] == 2
    lost_sessions("b", 20)
    with CaptureQueriesContext(connections["default"]) as twenty:
        assert extraction_recover()["scheduled"] == 20
    assert len(twenty) == len(two)
    assert ExtractionRun.objects.filter(status=RunStatus.QUEUED).count() == 22
    assert len(queued_tasks(redis_client)) == 22


def test_a_tick_pages_past_sessions_it_must_leave_alone(namespace, redis_client, settings) -> None:
    for session_id in ("s1", "s2", "s3"):
        session, _ = say(namespace, "I live in Lyon.", session_id=session_id)
        long_quiet(session, settings)
        if session_id != "s3":
            ExtractionRun.objects.create(
                namespace=namespace, session=session, strategy="rules", status=RunStatus.FAILED, error="refused"
            )
    assert extraction_recover(limit=2) == {"interrupted": 0, "scheduled": 1}
    assert redis_client.get(key_of(session)) is not None
    assert redis_client.keys("extract:*") == [key_of(session)]


def test_a_tick_schedules_at_most_its_batch(namespace, redis_client, settings) -> None:
    for index in range(3):
        session, _ = say(namespace, "I live in Lyon.", session_id=f"s{index}")
        long_quiet(session, settings)
    assert extraction_recover(limit=2)["scheduled"] == 2
    assert extraction_recover(limit=2)["scheduled"] == 1


@pytest.mark.django_db(transaction=True)
def test_a_running_run_renews_its_lease_while_its_model_call_outlasts_it(make_namespace, llm, settings) -> None:
    namespace = make_namespace("slow", extraction_strategy="discrete")
    settings.EXTRACTION_LEASE_SECONDS = 1.5
    settings.LLM_TIMEOUT_SECONDS = 20
    llm.answer({"memories": [{"text": "User lives in Lyon", "type": "semantic", "source_seqs": [1]}]}, delay=5)
    session, _ = say(namespace, "I live in Lyon.")
    run = extraction_schedule(session=session, delay=0)  # outside a transaction: scheduled now
    token = get_token(session)

    worker = threading.Thread(target=lambda: run_in_own_connection(run.pk, token), daemon=True)
    worker.start()
    wait_for(lambda: llm.requests, timeout=10)
    claimed = ExtractionRun.objects.get(pk=run.pk)
    # Well into the model call, longer than the lease: the heartbeat kept up, the key lives no longer than the lease.
    wait_for(
        lambda: ExtractionRun.objects.get(pk=run.pk).heartbeat_at > claimed.heartbeat_at + timedelta(seconds=2),
        timeout=10,
    )
    assert 0 < redis_pttl(session) <= 1500
    assert extraction_recover() == NOTHING
    worker.join(20)

    run.refresh_from_db()
    assert (run.status, run.created) == (RunStatus.SUCCEEDED, 1)
    assert get_token(session) is None


def get_token(session) -> str | None:
    return get_redis().get(schedule_key(session.namespace_id, session.pk))


def redis_pttl(session) -> int:
    return get_redis().pttl(schedule_key(session.namespace_id, session.pk))


def run_in_own_connection(run_id, token) -> None:
    try:
        extraction_run_due(run_id=run_id, token=token)
    finally:
        connections.close_all()


def test_beat_runs_recovery_at_the_interval_the_environment_sets() -> None:
    probe = (
        "import json, django; django.setup(); from django.conf import settings; "
        "from memoryadmin.celery import app; import memoryadmin.extraction.tasks; "
        "entry = settings.CELERY_BEAT_SCHEDULE['extraction-recovery']; "
        "print(json.dumps([entry['task'] in app.tasks, entry['schedule'], entry['options'], "
        "settings.EXTRACTION_LEASE_SECONDS]))"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "memoryadmin.settings"}
    env.update(EXTRACTION_RECOVERY_SECONDS="15", EXTRACTION_LEASE_SECONDS="20")
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.splitlines()[-1]) == [True, 15, {"expires": 15}, 20.0]
