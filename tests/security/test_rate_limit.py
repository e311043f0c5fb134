"""Per-key rate limiting of the API: 429 with Retry-After and the error body, per key, off at 0, open without Redis."""

from __future__ import annotations

import pytest

from memoryadmin.api.ratelimit import rate_limit_key
from memoryadmin.memories.models import Memory
from tests.conftest import ApiClient


@pytest.fixture
def limit_of_three(settings):
    settings.API_RATE_LIMIT_PER_MINUTE = 3


def test_it_answers_429_with_retry_after_and_the_error_body_over_the_limit(limit_of_three, api) -> None:
    for _ in range(3):
        assert api.get("/api/v1/memories").status_code == 200
    r = api.get("/api/v1/memories")
    assert r.status_code == 429
    assert 1 <= int(r["Retry-After"]) <= 60
    body = r.json()
    assert body["error"]["code"] == "rate_limited"
    assert body["error"]["details"]["limit_per_minute"] == 3
    assert r["X-RateLimit-Remaining"] == "0"


def test_it_refuses_before_any_work_is_done(limit_of_three, api) -> None:
    for _ in range(3):
        api.post("/api/v1/memories", {"text": "Likes tea", "user_id": "alice"})
    r = api.post("/api/v1/memories", {"text": "Likes coffee", "user_id": "alice"})
    assert r.status_code == 429
    assert list(Memory.objects.values_list("text", flat=True)) == ["Likes tea"]


def test_it_counts_each_key_on_its_own(limit_of_three, api, other_api) -> None:
    for _ in range(4):
        api.get("/api/v1/memories")
    assert api.get("/api/v1/memories").status_code == 429
    assert other_api.get("/api/v1/memories").status_code == 200


def test_it_tells_the_remaining_budget(limit_of_three, api) -> None:
    r = api.get("/api/v1/sessions")
    assert (r["X-RateLimit-Limit"], r["X-RateLimit-Remaining"]) == ("3", "2")


def test_it_is_off_when_the_limit_is_zero(settings, api) -> None:
    settings.API_RATE_LIMIT_PER_MINUTE = 0
    for _ in range(5):
        r = api.get("/api/v1/sessions")
        assert r.status_code == 200
        assert "X-RateLimit-Limit" not in r


def test_it_never_limits_the_health_check(settings, namespace, make_key) -> None:
    settings.API_RATE_LIMIT_PER_MINUTE = 1
    client = ApiClient(make_key(namespace)[1])
    assert [client.get("/api/v1/health").status_code for _ in range(3)] == [200, 200, 200]


def test_it_stores_a_hash_of_the_key_never_the_key(limit_of_three, namespace, make_key, redis_client) -> None:
    raw = make_key(namespace)[1]
    ApiClient(raw).get("/api/v1/sessions")
    keys = redis_client.keys("ratelimit:*")
    assert len(keys) == 1
    assert raw not in keys[0]
    assert keys[0].startswith(rate_limit_key(raw, 0).rsplit(":", 1)[0])
    assert 0 < redis_client.ttl(keys[0]) <= 120


def test_it_fails_open_when_redis_is_down(limit_of_three, settings, api) -> None:
    # Nothing listens on port 1: every Redis call is refused at once.
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    assert [api.get("/api/v1/memories").status_code for _ in range(5)] == [200] * 5


def test_random_tokens_meet_a_429_per_address_and_then_cost_no_lookup(
    settings, namespace, make_key, redis_client, django_assert_num_queries
) -> None:
    settings.API_UNKNOWN_KEY_LIMIT_PER_MINUTE = 5
    guesses = [ApiClient(f"ma_guess_{n}") for n in range(8)]
    assert [g.get("/api/v1/memories").status_code for g in guesses[:5]] == [401] * 5
    for guess in guesses[5:]:
        with django_assert_num_queries(0):
            refused = guess.get("/api/v1/memories")
        assert refused.status_code == 429
        assert refused.json()["error"]["details"]["unknown_keys_per_minute"] == 5
        assert 1 <= int(refused["Retry-After"]) <= 60
    # The refused guesses left no counter of their own behind.
    assert len(redis_client.keys("ratelimit:*")) == 5
    # Another address is not held back, nor is a request without a key at all.
    raw = make_key(namespace)[1]
    assert ApiClient(raw).get("/api/v1/memories", REMOTE_ADDR="198.51.100.9").status_code == 200
    assert ApiClient(None).get("/api/v1/memories").status_code == 401


def test_a_revoked_key_counts_as_unknown(settings, namespace, make_key) -> None:
    from memoryadmin.tenancy.services import api_key_revoke
    from tests.conftest import SYSTEM

    settings.API_UNKNOWN_KEY_LIMIT_PER_MINUTE = 2
    key, raw = make_key(namespace)
    api_key_revoke(key=key, actor=SYSTEM)
    client = ApiClient(raw)
    assert [client.get("/api/v1/sessions").status_code for _ in range(3)] == [401, 401, 429]


def test_valid_keys_never_count_against_their_address(settings, api) -> None:
    settings.API_UNKNOWN_KEY_LIMIT_PER_MINUTE = 1
    assert [api.get("/api/v1/sessions").status_code for _ in range(5)] == [200] * 5
