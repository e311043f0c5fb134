"""/metrics as Prometheus reads it, and the request id that follows a request into its tasks and logs."""

from __future__ import annotations

import json
import logging
import uuid
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from memoryadmin.conversations.services import NewMessage, session_append_messages
from memoryadmin.core import request_ids
from memoryadmin.core.redis_client import get_redis
from memoryadmin.extraction.models import ExtractionRun
from memoryadmin.governance.erasure import erasure_request
from memoryadmin.memories.services import memory_create
from tests.conftest import SYSTEM

pytestmark = pytest.mark.django_db


def scrape(client: Client | None = None, **headers: str) -> dict[str, dict[tuple, float]]:
    """{metric sample name: {sorted labels: value}} as Prometheus' own parser reads the answer."""
    response = (client or Client()).get("/metrics", headers=headers)
    assert response.status_code == 200, response.content[:500]
    assert response["Content-Type"].startswith("text/plain; version=0.0.4")
    samples: dict[str, dict[tuple, float]] = {}
    for family in text_string_to_metric_families(response.content.decode()):
        for sample in family.samples:
            samples.setdefault(sample.name, {})[tuple(sorted(sample.labels.items()))] = sample.value
    return samples


def test_requests_are_counted_and_timed_by_route_never_by_path(api) -> None:
    ids = [uuid.uuid4() for _ in range(3)]
    for memory_id in ids:
        assert api.get(f"/api/v1/memories/{memory_id}").status_code == 404
    assert api.get("/api/v1/memories?user_id=alice").status_code == 200
    metrics = scrape()
    counts = metrics["memoryadmin_http_request_duration_seconds_count"]
    assert counts[(("route", "GET /api/v1/memories/{memory_id}"), ("status", "404"))] == 3
    assert counts[(("route", "GET /api/v1/memories"), ("status", "200"))] == 1
    buckets = metrics["memoryadmin_http_request_duration_seconds_bucket"]
    single = (("le", "+Inf"), ("route", "GET /api/v1/memories"), ("status", "200"))
    assert buckets[single] == 1
    # No id ever becomes a label: one series per route and status, however many ids were asked for.
    text = Client().get("/metrics").content.decode()
    assert not any(str(memory_id) in text for memory_id in ids)


def test_a_method_no_route_knows_is_one_label_whatever_its_name(api) -> None:
    for method in ("ZZPROBE", "NOKEYPROBE", "FOO"):
        response = api.client.generic(method, "/api/v1/memories", headers=api.headers)
        assert response.status_code == 405
    counts = scrape()["memoryadmin_http_request_duration_seconds_count"]
    assert counts[(("route", "OTHER /api/v1/memories"), ("status", "405"))] == 3
    assert not any("PROBE" in dict(labels).get("route", "") for labels in counts)


def test_search_latency_and_extraction_outcomes_are_recorded(api, namespace) -> None:
    memory_create(namespace=namespace, user_id="alice", text="Alice plays the cello", actor=SYSTEM)
    for query in ("cello", "music"):
        assert api.post("/api/v1/memories/search", {"query": query, "user_id": "alice"}).status_code == 200
    assert scrape()["memoryadmin_search_duration_seconds_count"][()] == 2


@pytest.mark.django_db(transaction=True)
def test_the_gauges_read_waiting_runs_their_age_and_open_erasures(namespace) -> None:
    for n in range(2):
        session_append_messages(
            namespace=namespace,
            session_id=f"chat-{n}",
            user_id="alice",
            messages=[NewMessage(role="user", content="I live in Lyon.")],
        )
    assert ExtractionRun.objects.filter(status="queued").count() == 2
    ExtractionRun.objects.filter(session__session_id="chat-0").update(created_at=timezone.now() - timedelta(days=3650))
    erasure_request(namespace=namespace, user_id="bob", actor=SYSTEM, enqueue=False)
    metrics = scrape()
    assert metrics["memoryadmin_extraction_runs"][(("status", "queued"),)] == 2
    assert metrics["memoryadmin_extraction_runs"][(("status", "running"),)] == 0
    assert metrics["memoryadmin_extraction_oldest_queued_seconds"][()] > 3600 * 24 * 3649
    assert metrics["memoryadmin_erasures_open"][(("status", "pending"),)] == 1
    assert metrics["memoryadmin_dependency_up"] == {(("dependency", "database"),): 1, (("dependency", "redis"),): 1}
    assert metrics["memoryadmin_celery_queue_length"][(("queue", "celery"),)] >= 0


def test_metrics_are_closed_to_other_networks_and_open_to_the_token(settings) -> None:
    outside = Client(REMOTE_ADDR="203.0.113.9")
    refused = outside.get("/metrics")
    assert refused.status_code == 404
    assert refused.json()["error"]["code"] == "not_found"
    settings.METRICS_TOKEN = "s3cret-metrics-token"
    assert Client().get("/metrics").status_code == 404  # loopback too needs the token once one is set
    assert outside.get("/metrics", headers={"Authorization": "Bearer wrong"}).status_code == 404
    assert "memoryadmin_dependency_up" in scrape(outside, Authorization="Bearer s3cret-metrics-token")
    assert outside.post("/metrics").status_code == 405


def test_a_scrape_without_redis_still_answers_the_database_gauges(settings) -> None:
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    settings.CELERY_BROKER_URL = settings.REDIS_URL
    metrics = scrape()
    assert metrics["memoryadmin_dependency_up"][(("dependency", "redis"),)] == 0
    assert metrics["memoryadmin_dependency_up"][(("dependency", "database"),)] == 1
    assert "memoryadmin_extraction_runs" in metrics


def test_each_response_carries_its_request_id_and_a_plain_given_one_is_kept(api) -> None:
    made = api.get("/api/v1/memories?user_id=alice")["X-Request-ID"]
    assert len(made) == 32 and made != api.get("/api/v1/memories?user_id=alice")["X-Request-ID"]
    assert api.get("/api/v1/memories", headers={"X-Request-ID": "trace-42.a:b"})["X-Request-ID"] == "trace-42.a:b"
    for hostile in ("two words", "x" * 200, "<script>", "-leading-dash"):
        kept = api.get("/api/v1/memories", headers={"X-Request-ID": hostile})["X-Request-ID"]
        assert kept != hostile and len(kept) == 32


def test_a_request_s_log_lines_carry_its_id(api, caplog) -> None:
    with caplog.at_level(logging.WARNING, logger="django.request"):
        api.get(f"/api/v1/memories/{uuid.uuid4()}", headers={"X-Request-ID": "trace-404"})
    (line,) = [r for r in caplog.records if r.name == "django.request"]
    assert line.request_id == "trace-404"


@pytest.mark.django_db(transaction=True)
def test_an_append_s_task_carries_the_request_id_in_the_broker(api) -> None:
    broker = get_redis()
    said = api.post(
        "/api/v1/sessions/chat-1/messages",
        {"user_id": "alice", "messages": [{"role": "user", "content": "I live in Lyon."}]},
        headers={"X-Request-ID": "trace-append-1"},
    )
    assert said.status_code == 201, said.content
    (queued,) = [json.loads(raw) for raw in broker.lrange("celery", 0, -1)]
    assert queued["headers"]["task"] == "memoryadmin.extraction.tasks.extract_session"
    assert queued["headers"][request_ids.TASK_HEADER] == "trace-append-1"


def test_json_log_lines_are_one_object_each_with_the_request_id() -> None:
    formatter = request_ids.JsonFormatter()
    record = logging.LogRecord("memoryadmin.x", logging.WARNING, __file__, 1, 'said "%s"\nthen', ("hi",), None)
    record.run_id = "r-1"
    token = request_ids.current.set("trace-json")
    try:
        request_ids.RequestIdFilter().filter(record)
    finally:
        request_ids.current.reset(token)
    line = formatter.format(record)
    assert "\n" not in line
    entry = json.loads(line)
    assert entry["message"] == 'said "hi"\nthen'
    assert (entry["level"], entry["logger"], entry["request_id"], entry["run_id"]) == (
        "WARNING",
        "memoryadmin.x",
        "trace-json",
        "r-1",
    )
