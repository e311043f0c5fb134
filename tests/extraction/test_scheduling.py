"""Debounced scheduling: the Redis due-time key, the shared queued run, superseded and cancelled tasks."""

from __future__ import annotations

import base64
import json
import time
from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from memoryadmin.conversations.models import Message
from memoryadmin.core.errors import InvalidInput
from memoryadmin.extraction.models import ExtractionRun, RunStatus
from memoryadmin.extraction.services import (
    extraction_cancel_for_sessions,
    extraction_run,
    extraction_run_due,
    extraction_schedule,
    schedule_key,
)
from memoryadmin.extraction.services import runs as services
from memoryadmin.memories.models import Memory
from tests.extraction.conftest import say


def key_of(session) -> str:
    return schedule_key(session.namespace_id, session.pk)


def queued_tasks(redis_client) -> list[dict]:
    """The task messages waiting in the test's broker database, oldest first."""
    return [json.loads(raw) for raw in reversed(redis_client.lrange("celery", 0, -1))]


def task_args(task: dict) -> tuple[list, dict]:
    args, kwargs, _ = json.loads(base64.b64decode(task["body"]))
    return args, kwargs


def test_appending_messages_schedules_one_debounced_run(
    namespace, redis_client, django_capture_on_commit_callbacks, settings
) -> None:
    settings.EXTRACTION_DEBOUNCE_SECONDS = 5
    with django_capture_on_commit_callbacks(execute=True):
        session, _ = say(namespace, "I live in Lyon.")
    with django_capture_on_commit_callbacks(execute=True):
        say(namespace, "I love jazz.")
    run = ExtractionRun.objects.get(session=session)
    assert run.status == RunStatus.QUEUED
    due = float(redis_client.get(key_of(session)))
    assert time.time() + 4 < due <= time.time() + 5
    # Only the first append of the quiet period publishes a task; the second found it pending.
    (task,) = queued_tasks(redis_client)
    assert task["headers"]["task"] == "memoryadmin.extraction.tasks.extract_session"
    assert task["headers"]["eta"]
    assert task_args(task) == ([str(run.pk), f"{due:.6f}"], {"debounce": 5.0})


def test_an_append_to_a_session_with_a_pending_schedule_costs_one_redis_command(
    namespace, redis_client, django_capture_on_commit_callbacks, django_assert_num_queries
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        session, _ = say(namespace, "I live in Lyon.")
    token = redis_client.get(key_of(session))
    with django_capture_on_commit_callbacks() as callbacks:
        say(namespace, "I love jazz.")
    with django_assert_num_queries(0):
        for callback in callbacks:
            callback()
    assert redis_client.get(key_of(session)) == token
    assert len(queued_tasks(redis_client)) == 1


def test_a_debounced_task_that_fires_during_a_burst_waits_for_the_quiet_after_it(
    namespace, redis_client, django_capture_on_commit_callbacks, settings
) -> None:
    settings.EXTRACTION_DEBOUNCE_SECONDS = 5
    with django_capture_on_commit_callbacks(execute=True):
        session, _ = say(namespace, "I live in Lyon.")
    token = redis_client.get(key_of(session))
    run = ExtractionRun.objects.get(session=session)
    # The task fires while the newest message is only a moment old.
    assert extraction_run_due(run_id=run.pk, token=token, debounce=5) is None
    later = redis_client.get(key_of(session))
    assert float(later) > float(token) - 5 and later != token
    tasks = queued_tasks(redis_client)
    assert [task_args(t)[0] for t in tasks] == [[str(run.pk), token], [str(run.pk), later]]
    assert not Memory.objects.exists()
    # Once the session has been quiet long enough, the re-scheduled task runs.
    session.refresh_from_db()
    session.last_message_at -= timedelta(seconds=10)
    session.save(update_fields=["last_message_at"])
    done = extraction_run_due(run_id=run.pk, token=later, debounce=5)
    assert (done.pk, done.status, done.created) == (run.pk, RunStatus.SUCCEEDED, 1)
    assert redis_client.get(key_of(session)) is None


def test_messages_appended_during_a_run_get_a_schedule_of_their_own(
    namespace, redis_client, django_capture_on_commit_callbacks, settings, monkeypatch
) -> None:
    settings.EXTRACTION_DEBOUNCE_SECONDS = 0
    with django_capture_on_commit_callbacks(execute=True):
        session, _ = say(namespace, "I live in Lyon.")
    token = redis_client.get(key_of(session))
    run = ExtractionRun.objects.get(session=session)
    run_chunks = services._run_chunks

    def run_chunks_then_append(*args, **kwargs):
        finished = run_chunks(*args, **kwargs)
        # Appended while the run is still going: this append finds the key held and publishes nothing.
        with django_capture_on_commit_callbacks(execute=True):
            say(namespace, "I love jazz.")
        assert len(queued_tasks(redis_client)) == 1
        return finished

    monkeypatch.setattr(services, "_run_chunks", run_chunks_then_append)
    assert extraction_run_due(run_id=run.pk, token=token, debounce=0).created == 1
    monkeypatch.setattr(services, "_run_chunks", run_chunks)

    follow_up = redis_client.get(key_of(session))
    assert follow_up is not None and follow_up != token
    second = ExtractionRun.objects.get(session=session, status=RunStatus.QUEUED)
    assert task_args(queued_tasks(redis_client)[-1])[0] == [str(second.pk), follow_up]
    assert extraction_run_due(run_id=second.pk, token=follow_up, debounce=0).created == 1
    assert sorted(Memory.objects.values_list("text", flat=True)) == ["User lives in Lyon", "User loves jazz"]
    assert redis_client.get(key_of(session)) is None


def test_nothing_is_scheduled_before_the_append_commits(namespace, redis_client) -> None:
    session, _ = say(namespace, "I live in Lyon.")
    assert redis_client.get(key_of(session)) is None
    assert queued_tasks(redis_client) == []


def test_a_redis_outage_never_fails_the_append(namespace, settings, django_capture_on_commit_callbacks) -> None:
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    with django_capture_on_commit_callbacks(execute=True):
        session, created = say(namespace, "I live in Lyon.")
    assert [m.content for m in created] == ["I live in Lyon."]
    assert Message.objects.filter(session=session, extracted_at__isnull=True).count() == 1


def test_a_superseded_schedule_exits_and_the_latest_one_runs(
    namespace, redis_client, django_capture_on_commit_callbacks
):
    session, _ = say(namespace, "I live in Lyon.")
    with django_capture_on_commit_callbacks(execute=True):
        first = extraction_schedule(session=session, delay=5)
    old_token = redis_client.get(key_of(session))
    with django_capture_on_commit_callbacks(execute=True):
        second = extraction_schedule(session=session, delay=5)
    new_token = redis_client.get(key_of(session))
    assert first.pk == second.pk and old_token != new_token

    assert extraction_run_due(run_id=first.pk, token=old_token) is None
    assert ExtractionRun.objects.get(pk=first.pk).status == RunStatus.QUEUED
    assert not Memory.objects.exists()

    run = extraction_run_due(run_id=first.pk, token=new_token)
    assert run.status == RunStatus.SUCCEEDED and run.created == 1
    assert redis_client.get(key_of(session)) is None


def test_the_schedule_outlives_the_redelivery_of_a_lost_task(
    namespace, redis_client, django_capture_on_commit_callbacks
):
    session, _ = say(namespace, "I live in Lyon.")
    with django_capture_on_commit_callbacks(execute=True):
        extraction_schedule(session=session, delay=2)
    visibility = settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"]
    assert redis_client.ttl(key_of(session)) > visibility + 2


def test_a_redelivered_task_after_a_finished_run_creates_nothing(
    namespace, redis_client, django_capture_on_commit_callbacks
):
    session, _ = say(namespace, "I live in Lyon.")
    with django_capture_on_commit_callbacks(execute=True):
        run = extraction_schedule(session=session, delay=0)
    token = redis_client.get(key_of(session))
    assert extraction_run_due(run_id=run.pk, token=token).created == 1
    # The worker died after committing but before releasing the key and acknowledging.
    redis_client.set(key_of(session), token)
    assert extraction_run_due(run_id=run.pk, token=token) is None
    assert Memory.objects.count() == 1 and ExtractionRun.objects.count() == 1
    assert redis_client.get(key_of(session)) is None


def test_a_schedule_that_joined_a_run_already_taken_gets_a_run_of_its_own(
    namespace, redis_client, django_capture_on_commit_callbacks
):
    session, _ = say(namespace, "I live in Lyon.")
    with django_capture_on_commit_callbacks(execute=True):
        run = extraction_schedule(session=session, delay=5)
    # Another task takes the run; meanwhile a new message joins the same (still queued) run.
    extraction_run(run=run)
    say(namespace, "I love jazz.")
    with django_capture_on_commit_callbacks(execute=True):
        redis_client.set(key_of(session), "123.000000")
    second = extraction_run_due(run_id=run.pk, token="123.000000")
    assert second.pk != run.pk and second.created == 1
    assert sorted(Memory.objects.values_list("text", flat=True)) == ["User lives in Lyon", "User loves jazz"]


def test_cancelling_removes_the_schedule_and_the_pending_task_then_exits(
    namespace, redis_client, django_capture_on_commit_callbacks
):
    session, _ = say(namespace, "I live in Lyon.")
    other, _ = say(namespace, "I love jazz.", session_id="s2")
    with django_capture_on_commit_callbacks(execute=True):
        run = extraction_schedule(session=session, delay=5)
        extraction_schedule(session=other, delay=5)
    token = redis_client.get(key_of(session))

    assert extraction_cancel_for_sessions(namespace.pk, [session.pk]) == 1
    assert redis_client.get(key_of(session)) is None
    assert redis_client.get(key_of(other)) is not None
    assert extraction_run_due(run_id=run.pk, token=token) is None
    run.refresh_from_db()
    assert (run.status, run.error) == (RunStatus.FAILED, "cancelled")
    assert not Memory.objects.exists()
    assert extraction_cancel_for_sessions(namespace.pk, []) == 0


def test_a_negative_delay_is_refused(namespace) -> None:
    session, _ = say(namespace, "I live in Lyon.")
    with pytest.raises(InvalidInput):
        extraction_schedule(session=session, delay=-1)


def test_a_run_abandoned_by_a_lost_worker_is_retired_when_a_later_schedule_took_over(
    namespace, redis_client, django_capture_on_commit_callbacks
):
    session, _ = say(namespace, "I live in Lyon.")
    with django_capture_on_commit_callbacks(execute=True):
        run = extraction_schedule(session=session, delay=0)
    token = redis_client.get(key_of(session))
    # Its worker died after claiming it, so its lease ran out; meanwhile a later append scheduled a new run.
    lost_at = timezone.now() - timedelta(seconds=settings.EXTRACTION_LEASE_SECONDS + 1)
    ExtractionRun.objects.filter(pk=run.pk).update(status=RunStatus.RUNNING, started_at=lost_at, heartbeat_at=lost_at)
    with django_capture_on_commit_callbacks(execute=True):
        later = extraction_schedule(session=session, delay=0)
    assert later.pk != run.pk

    assert extraction_run_due(run_id=run.pk, token=token) is None
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED and run.error.startswith("interrupted")
    assert extraction_run_due(run_id=later.pk, token=redis_client.get(key_of(session))).created == 1


def test_a_live_run_is_left_alone_by_a_late_superseded_task(
    namespace, redis_client, django_capture_on_commit_callbacks
):
    session, _ = say(namespace, "I live in Lyon.")
    with django_capture_on_commit_callbacks(execute=True):
        run = extraction_schedule(session=session, delay=5)
    old_token = redis_client.get(key_of(session))
    with django_capture_on_commit_callbacks(execute=True):
        extraction_schedule(session=session, delay=5)
    # Claimed long ago, but its lease is live: a slow run, not a lost one.
    long_ago = timezone.now() - timedelta(hours=2)
    ExtractionRun.objects.filter(pk=run.pk).update(
        status=RunStatus.RUNNING, started_at=long_ago, heartbeat_at=timezone.now()
    )
    assert extraction_run_due(run_id=run.pk, token=old_token) is None
    assert ExtractionRun.objects.get(pk=run.pk).status == RunStatus.RUNNING


@pytest.mark.django_db(transaction=True)
def test_with_tasks_run_eagerly_an_append_is_extracted_at_once(namespace, settings) -> None:
    """CELERY_TASK_ALWAYS_EAGER: a debounced task cannot wait, so it runs rather than re-queue itself forever."""
    from memoryadmin.celery import app as celery_app

    settings.EXTRACTION_DEBOUNCE_SECONDS = 5
    previous = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    try:
        session, _ = say(namespace, "I live in Lyon.")
    finally:
        celery_app.conf.task_always_eager = previous
    (run,) = ExtractionRun.objects.filter(session=session)
    assert run.status == RunStatus.SUCCEEDED, run.error
    assert Memory.objects.filter(namespace=namespace, text="User lives in Lyon").exists()
