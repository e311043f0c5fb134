"""The access log of API keys: hour buckets in Redis, summed over a day, read in one round trip."""

from __future__ import annotations

import time

import pytest

from memoryadmin.tenancy import access_log
from memoryadmin.tenancy.access_log import HOUR_SECONDS, access_record, access_summary

KEY = "ab" * 32


def test_it_counts_calls_by_endpoint_and_status_and_keeps_the_last_one(redis_client) -> None:
    for _ in range(3):
        access_record(key_hash=KEY, endpoint="POST /api/v1/memories/search", status=200)
    access_record(key_hash=KEY, endpoint="GET /api/v1/memories/{memory_id}", status=404)
    summary = access_summary(key_hash=KEY)
    assert summary.available
    assert summary.rows == [("POST /api/v1/memories/search", 200, 3), ("GET /api/v1/memories/{memory_id}", 404, 1)]
    assert (summary.total, summary.errors) == (4, 1)
    assert (summary.last_call.endpoint, summary.last_call.status) == ("GET /api/v1/memories/{memory_id}", 404)
    assert abs(summary.last_call.at.timestamp() - time.time()) < 5
    assert [calls for _, calls in summary.hourly] == [0] * 23 + [4]


def test_an_hour_expires_a_day_after_it_began_and_older_hours_are_not_summed(redis_client) -> None:
    access_record(key_hash=KEY, endpoint="GET /api/v1/sessions", status=200)
    (bucket,) = redis_client.keys("access:*:[0-9]*")
    assert 24 * HOUR_SECONDS < redis_client.ttl(bucket) <= 25 * HOUR_SECONDS
    assert access_summary(key_hash=KEY, now=time.time() + 24 * HOUR_SECONDS).rows == []
    assert access_summary(key_hash=KEY, now=time.time() + 23 * HOUR_SECONDS).total == 1


def test_a_call_refused_before_lookup_counts_only_for_a_key_already_seen_this_hour(redis_client) -> None:
    access_record(key_hash=KEY, endpoint="GET /api/v1/sessions", status=429, only_if_active=True)
    assert redis_client.keys("access:*") == []
    access_record(key_hash=KEY, endpoint="GET /api/v1/sessions", status=200)
    access_record(key_hash=KEY, endpoint="GET /api/v1/sessions", status=429, only_if_active=True)
    assert access_summary(key_hash=KEY).rows == [("GET /api/v1/sessions", 200, 1), ("GET /api/v1/sessions", 429, 1)]


def test_keys_have_logs_of_their_own(redis_client) -> None:
    access_record(key_hash=KEY, endpoint="GET /api/v1/sessions", status=200)
    assert access_summary(key_hash="cd" * 32).rows == []


def test_without_redis_calls_go_uncounted_and_the_summary_says_so(settings, monkeypatch) -> None:
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    settings.REDIS_TIMEOUT_SECONDS = 0.2
    access_record(key_hash=KEY, endpoint="GET /api/v1/sessions", status=200)
    assert access_log._paused_until["redis://127.0.0.1:1/0"] > time.time()
    assert access_summary(key_hash=KEY).available is False


@pytest.fixture(autouse=True)
def _fresh_backoff(monkeypatch) -> None:
    monkeypatch.setattr(access_log, "_paused_until", {})


def test_a_redis_that_failed_pauses_only_its_own_log(settings, redis_client) -> None:
    healthy = settings.REDIS_URL
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    settings.REDIS_TIMEOUT_SECONDS = 0.2
    access_record(key_hash=KEY, endpoint="GET /api/v1/sessions", status=200)
    settings.REDIS_URL = healthy
    access_record(key_hash=KEY, endpoint="GET /api/v1/sessions", status=200)
    assert access_summary(key_hash=KEY).total == 1
