"""Each API call is counted in its key's access log by route and status, 403s and 429s included."""

from __future__ import annotations

import pytest

from memoryadmin.tenancy.access_log import access_summary
from tests.conftest import ApiClient


def rows_of(key) -> dict[tuple[str, int], int]:
    return {(endpoint, status): calls for endpoint, status, calls in access_summary(key_hash=key.key_hash).rows}


def test_calls_are_counted_by_route_not_path(namespace, make_key) -> None:
    key, raw = make_key(namespace)
    api = ApiClient(raw)
    api.post("/api/v1/memories", {"text": "Likes tea", "user_id": "alice"})
    for memory_id in ("8ca76592-9276-43da-8f0a-22732a1538e2", "9ca76592-9276-43da-8f0a-22732a1538e2"):
        assert api.get(f"/api/v1/memories/{memory_id}").status_code == 404
    api.get("/api/v1/sessions/s1/state")
    assert rows_of(key) == {
        ("POST /api/v1/memories", 201): 1,
        ("GET /api/v1/memories/{memory_id}", 404): 2,
        ("GET /api/v1/sessions/{session_id}/state", 404): 1,
    }


def test_a_call_refused_for_its_scope_is_counted(namespace, make_key) -> None:
    key, raw = make_key(namespace, "read")
    assert ApiClient(raw).post("/api/v1/memories", {"text": "x", "user_id": "alice"}).status_code == 403
    assert rows_of(key) == {("POST /api/v1/memories", 403): 1}


def test_calls_over_the_rate_limit_are_counted(settings, namespace, make_key) -> None:
    settings.API_RATE_LIMIT_PER_MINUTE = 2
    key, raw = make_key(namespace)
    api = ApiClient(raw)
    statuses = [api.get("/api/v1/sessions").status_code for _ in range(4)]
    assert statuses == [200, 200, 429, 429]
    assert rows_of(key) == {("GET /api/v1/sessions", 200): 2, ("GET /api/v1/sessions", 429): 2}


@pytest.mark.parametrize("header", [None, "Bearer ma_unknown_key"])
def test_calls_without_a_live_key_leave_nothing(redis_client, db, header) -> None:
    api = ApiClient(None)
    if header:
        api.headers = {"Authorization": header}
    assert api.get("/api/v1/sessions").status_code == 401
    assert redis_client.keys("access:*") == []


def test_the_health_check_and_the_schema_are_not_counted(namespace, make_key) -> None:
    key, raw = make_key(namespace)
    ApiClient(raw).get("/api/v1/health")
    ApiClient(raw).get("/api/v1/openapi.json")
    assert rows_of(key) == {}
