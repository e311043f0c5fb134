"""Redis stopped under a live server: long-term memory keeps answering, working memory answers 503
with the error body, health says `redis: down`, and everything recovers by itself once Redis is back."""

from __future__ import annotations

import json
import time
from datetime import timedelta

import httpx
import pytest
import redis
from celery.contrib.testing.worker import start_worker
from django.utils import timezone

from memoryadmin.celery import app as celery_app
from memoryadmin.conversations.models import Message, Session
from memoryadmin.extraction.models import ExtractionRun, RunStatus
from memoryadmin.extraction.tasks import recover_extraction
from memoryadmin.governance.models import ErasureRequest
from memoryadmin.governance.tasks import requeue_lost_erasures
from memoryadmin.memories.models import Memory
from memoryadmin.tenancy.services import operator_create
from tests.conftest import SYSTEM
from tests.extraction.conftest import wait_for

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def client(live_server, namespace, make_key, own_redis):
    raw = make_key(namespace)[1]
    with httpx.Client(base_url=live_server.url, headers={"Authorization": f"Bearer {raw}"}, timeout=30) as http:
        assert http.put("/api/v1/sessions/s1", json={"user_id": "alice"}).status_code == 201
        assert http.put("/api/v1/sessions/s1/state", json={"state": {"step": 1}}).status_code == 200
        assert http.post("/api/v1/memories", json={"text": "Alice likes tea", "user_id": "alice"}).status_code == 201
        yield http


def test_long_term_memory_keeps_answering_while_redis_is_down(client, own_redis) -> None:
    own_redis.stop()
    started = time.monotonic()
    assert client.get("/api/v1/memories").status_code == 200
    assert client.post("/api/v1/memories", json={"text": "Alice likes jazz", "user_id": "alice"}).status_code == 201
    assert client.post("/api/v1/memories/search", json={"query": "jazz"}).json()["items"]
    assert client.get("/api/v1/sessions/s1").status_code == 200
    appended = client.post("/api/v1/sessions/s1/messages", json={"messages": [{"role": "user", "content": "hi"}]})
    assert appended.status_code == 201, appended.text
    assert client.get("/api/v1/sessions/s1/messages").json()["items"][0]["content"] == "hi"
    assert client.get("/api/v1/sessions/s1/context").status_code == 200
    assert client.get("/api/v1/snapshots/export").status_code == 200
    # Nothing waits for a connection timeout per request: the whole round is quick.
    assert time.monotonic() - started < 15
    assert Memory.objects.count() == 2
    assert Message.objects.count() == 1


@pytest.mark.parametrize(
    ("method", "body"),
    [("get", None), ("put", {"state": {"step": 2}}), ("patch", {"state": {"step": 3}}), ("delete", None)],
)
def test_working_memory_answers_503_with_the_error_body(client, own_redis, method, body) -> None:
    own_redis.stop()
    kwargs = {"json": body} if body is not None else {}
    response = client.request(method.upper(), "/api/v1/sessions/s1/state", **kwargs)
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "redis_unavailable"


def test_health_says_redis_is_down(client, own_redis) -> None:
    own_redis.stop()
    response = client.get("/api/v1/health")
    assert response.status_code == 503
    assert response.json() == {"status": "degraded", "database": "ok", "redis": "down"}


def test_deleting_a_session_while_redis_is_down_changes_nothing(client, own_redis) -> None:
    own_redis.stop()
    response = client.delete("/api/v1/sessions/s1")
    assert response.status_code == 503
    assert Session.objects.filter(session_id="s1").exists()


def test_an_erasure_asked_while_the_queue_is_down_is_recorded_and_queued_when_asked_again(client, own_redis) -> None:
    own_redis.stop()
    refused = client.post("/api/v1/subjects/alice/erasure")
    assert refused.status_code == 503, refused.text
    assert refused.json()["error"]["code"] == "queue_unavailable"
    pending = ErasureRequest.objects.get()
    assert pending.status == "pending"

    own_redis.start()
    again = client.post("/api/v1/subjects/alice/erasure")
    assert again.status_code == 202
    assert again.json()["erasure_id"] == str(pending.pk)
    queued = [json.loads(m) for m in redis.Redis.from_url(own_redis.url).lrange("celery", 0, -1)]
    assert [m["headers"]["argsrepr"] for m in queued] == [repr((str(pending.pk),))]


def test_everything_recovers_by_itself_once_redis_is_back(client, own_redis) -> None:
    own_redis.stop()
    assert client.get("/api/v1/health").status_code == 503
    assert client.get("/api/v1/sessions/s1/state").status_code == 503
    own_redis.start()
    # No restart, no manual step: the very next requests find Redis again.
    assert client.get("/api/v1/health").json() == {"status": "ok", "database": "ok", "redis": "ok"}
    assert client.put("/api/v1/sessions/s1/state", json={"state": {"step": 9}}).status_code == 200
    assert client.get("/api/v1/sessions/s1/state").json()["state"] == {"step": 9}
    appended = client.post("/api/v1/sessions/s1/messages", json={"messages": [{"role": "user", "content": "back"}]})
    assert appended.status_code == 201


def test_the_console_signs_in_and_shows_redis_down(live_server, own_redis, db) -> None:
    operator_create(username="adam", role="admin", password="correct horse battery", actor=SYSTEM)
    own_redis.stop()
    with httpx.Client(base_url=live_server.url, timeout=30, follow_redirects=False) as browser:
        login = browser.get("/login/")
        token = login.cookies["csrftoken"]
        signed = browser.post(
            "/login/",
            data={"username": "adam", "password": "correct horse battery", "csrfmiddlewaretoken": token},
            headers={"Referer": f"{live_server.url}/login/"},
        )
        assert signed.status_code == 302, signed.text[:500]
        assert browser.get("/").status_code == 200
        card = browser.get("/health/", headers={"HX-Request": "true"})
        assert card.status_code == 200
        assert "down" in card.text.lower()


def test_an_erasure_whose_task_never_reached_the_queue_is_queued_again_by_beat(client, own_redis) -> None:
    own_redis.stop()
    assert client.post("/api/v1/subjects/alice/erasure").status_code == 503
    own_redis.start()
    pending = ErasureRequest.objects.get()
    assert requeue_lost_erasures() == []  # too recent to call lost
    ErasureRequest.objects.filter(pk=pending.pk).update(created_at=timezone.now() - timedelta(hours=1))
    assert requeue_lost_erasures() == [str(pending.pk)]
    queued = [json.loads(m) for m in redis.Redis.from_url(own_redis.url).lrange("celery", 0, -1)]
    assert [m["headers"]["argsrepr"] for m in queued] == [repr((str(pending.pk),))]


def test_a_message_appended_while_redis_is_down_is_found_by_beat_and_extracted(client, own_redis, settings) -> None:
    settings.EXTRACTION_DEBOUNCE_SECONDS = 0
    settings.EXTRACTION_LEASE_SECONDS = 1
    own_redis.stop()
    message = {"role": "user", "content": "I live in Lyon."}
    said = client.post("/api/v1/sessions/s1/messages", json={"messages": [message]})
    assert said.status_code == 201, said.text
    own_redis.start()
    broker = redis.Redis.from_url(own_redis.url)
    time.sleep(settings.EXTRACTION_LEASE_SECONDS + 0.5)
    # Nothing else will ever schedule it: no schedule key, no task, no run.
    assert broker.keys("extract:*") == [] and broker.llen("celery") == 0
    assert not ExtractionRun.objects.exists()

    with start_worker(celery_app, pool="solo", perform_ping_check=False, shutdown_timeout=15):
        assert recover_extraction() == {"interrupted": 0, "scheduled": 1}
        wait_for(lambda: ExtractionRun.objects.filter(status=RunStatus.SUCCEEDED).exists(), timeout=20)

    (memory,) = Memory.objects.filter(source="extraction")
    assert memory.text == "User lives in Lyon"
    message = Message.objects.get(session__session_id="s1")
    assert list(memory.evidence.values_list("message_id", flat=True)) == [message.pk]
    assert message.extracted_at is not None
    assert recover_extraction() == {"interrupted": 0, "scheduled": 0}
