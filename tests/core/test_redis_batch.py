"""A request's bookkeeping writes to Redis (access log, durations) leave together, at its end."""

from __future__ import annotations

import logging

import pytest
from redis.connection import Connection

from memoryadmin.conversations.models import Session
from memoryadmin.core.metrics import SEARCHES, observe
from memoryadmin.core.redis_batch import batched, deferred
from memoryadmin.extraction.services.scheduling import schedule_key
from memoryadmin.memories.services import memory_create
from memoryadmin.tenancy.access_log import access_record, access_summary
from tests.conftest import SYSTEM

pytestmark = pytest.mark.django_db


@pytest.fixture
def round_trips(monkeypatch) -> list[int]:
    """How many times the process sent something to Redis (a pipeline is sent in one go)."""
    sent = [0]
    send = Connection.send_packed_command

    def counted(self, command, check_health=True):
        sent[0] += 1
        return send(self, command, check_health)

    monkeypatch.setattr(Connection, "send_packed_command", counted)
    return sent


def test_writes_in_a_batch_wait_for_its_end(redis_client) -> None:
    with batched():
        observe(SEARCHES, 0.004)
        access_record(key_hash="f" * 64, endpoint="GET /api/v1/memories", status=200)
        assert redis_client.exists(SEARCHES.key) == 0
        assert access_summary(key_hash="f" * 64).total == 0
    assert redis_client.hget(SEARCHES.key, "\x1fcount") == "1"
    assert access_summary(key_hash="f" * 64).total == 1


def test_outside_a_batch_a_write_is_sent_at_once(redis_client) -> None:
    observe(SEARCHES, 0.004)
    assert redis_client.hget(SEARCHES.key, "\x1fcount") == "1"


def test_a_search_request_goes_to_redis_twice(api, namespace, redis_client, round_trips) -> None:
    """Its rate limit before it runs, then its access-log line and both durations in one pipeline."""
    memory_create(namespace=namespace, user_id="alice", text="Alice plays the cello", actor=SYSTEM)
    assert api.post("/api/v1/memories/search", {"query": "cello", "user_id": "alice"}).status_code == 200
    round_trips[0] = 0
    response = api.post("/api/v1/memories/search", {"query": "music", "user_id": "alice"})
    assert response.status_code == 200
    assert round_trips[0] == 2
    assert redis_client.hget(SEARCHES.key, "\x1fcount") == "2"


def test_a_failed_batch_fails_no_request_and_steps_each_family_aside(api, settings, caplog) -> None:
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    settings.REDIS_TIMEOUT_SECONDS = 0.2
    with caplog.at_level(logging.WARNING):
        assert api.get("/api/v1/memories?user_id=alice").status_code == 200
    warned = caplog.text
    assert "the access log is off" in warned
    assert "metrics not recorded" in warned


def test_a_write_that_needs_its_answer_gets_it_when_the_batch_is_back(redis_client, caplog) -> None:
    answers: list[list[object]] = []

    def failing(_: list[object]) -> None:
        raise RuntimeError("follow-up broke")

    with batched():
        deferred(lambda pipe: pipe.set("claim", "a", nx=True), _no_failure, answers.append)
        deferred(lambda pipe: pipe.set("claim", "b", nx=True), _no_failure, failing)
        deferred(lambda pipe: (pipe.set("claim", "c", nx=True), pipe.get("claim")), _no_failure, answers.append)
        assert answers == []
    # Each write got the answers to its own commands; the one whose follow-up broke kept no other from running.
    assert answers == [[True], [None, "a"]]
    assert "follow-up broke" in caplog.text


def _no_failure(error: Exception) -> None:
    raise AssertionError(f"the batch failed: {error}")


@pytest.mark.django_db(transaction=True)
def test_an_append_goes_to_redis_twice_its_schedule_claim_in_the_batch(
    api, namespace, redis_client, round_trips
) -> None:
    """Its rate limit before it runs; its access-log line, its duration and its extraction schedule's claim after."""
    first = api.post(
        "/api/v1/sessions/s1/messages", {"user_id": "alice", "messages": [{"role": "user", "content": "hi"}]}
    )
    assert first.status_code == 201
    claimed = redis_client.get(schedule_key(namespace.pk, Session.objects.get(session_id="s1").pk))
    assert claimed is not None
    round_trips[0] = 0
    again = api.post("/api/v1/sessions/s1/messages", {"messages": [{"role": "user", "content": "I play the cello"}]})
    assert again.status_code == 201
    assert round_trips[0] == 2
    # The schedule was pending: the claim lost and left it as it was.
    assert redis_client.get(schedule_key(namespace.pk, Session.objects.get(session_id="s1").pk)) == claimed
