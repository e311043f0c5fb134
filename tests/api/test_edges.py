"""Inputs at the edges still get a 4xx or a clean answer, never a 5xx."""

from __future__ import annotations

import base64
import json

import pytest


def cursor_of(*values) -> str:
    return base64.urlsafe_b64encode(json.dumps(list(values)).encode()).decode().rstrip("=")


@pytest.mark.parametrize(
    "cursor",
    [
        cursor_of("sessions", "0001-01-01T00:00:00+14:00", 1),
        cursor_of("sessions", "2026-01-01T00:00:00", 1),
        cursor_of("sessions", "2026-01-01T00:00:00+00:00", 2**70),
        cursor_of("sessions", "2026-01-01T00:00:00+00:00", True),
        cursor_of("memories", "2026-01-01T00:00:00+00:00", "x"),
        cursor_of("sessions"),
        "!!!!",
        "x" * 600,
    ],
)
def test_crafted_cursors_are_400(api, cursor) -> None:
    response = api.get(f"/api/v1/sessions?cursor={cursor}")
    assert response.status_code in (400, 422), response.content


def test_a_well_formed_foreign_position_is_just_a_position(api) -> None:
    response = api.get(f"/api/v1/sessions?cursor={cursor_of('sessions', '9999-12-31T00:00:00+00:00', 1)}")
    assert response.status_code == 200
    assert response.json()["items"] == []


@pytest.mark.parametrize(
    "body",
    [
        {"query": "tea", "created_after": "0001-01-01T00:00:00+14:00"},
        {"query": "tea", "created_before": "9999-12-31T23:59:59-12:00"},
        {"query": "tea", "recency": {"text_weight": 0, "recency_weight": 0}},
        {"query": "tea", "recency": {"access_half_life_days": 0.0001}},
        {"query": '"unclosed -( | & ! <-> :*'},
        {"query": "tea", "topics": [], "entities": [], "memory_types": []},
    ],
)
def test_odd_searches_answer_cleanly(api, body) -> None:
    api.post("/api/v1/memories", {"text": "Alice likes tea", "user_id": "alice"})
    response = api.post("/api/v1/memories/search", body)
    assert response.status_code in (200, 422), response.content


def test_odd_message_times_answer_cleanly(api) -> None:
    for created_at in ("0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-12:00"):
        response = api.post(
            "/api/v1/sessions/s1/messages",
            {"user_id": "alice", "messages": [{"role": "user", "content": "x", "created_at": created_at}]},
        )
        assert response.status_code in (201, 422), response.content


def test_a_huge_integer_is_refused_cleanly(api) -> None:
    response = api.client.post(
        "/api/v1/sessions/s1/messages",
        b'{"user_id": "alice", "messages": [{"role": "user", "content": "x", "metadata": {"n": 1' + b"0" * 40 + b"}}]}",
        content_type="application/json",
        headers=api.headers,
    )
    assert response.status_code in (201, 400, 422), response.content


def test_head_answers_as_get_without_the_body(api, namespace) -> None:
    api.post("/api/v1/memories", {"user_id": "alice", "text": "Alice keeps bees"})
    for path in ("/api/v1/memories?user_id=alice", "/api/v1/health"):
        got = api.get(path)
        head = api.client.head(path, headers=api.headers)
        assert head.status_code == got.status_code == 200, path
        assert head.content == b""
        assert head["Content-Type"] == got["Content-Type"]
        assert head["Content-Length"] == str(len(got.content))
    # A route without GET is still refused, naming what it allows.
    refused = api.client.head("/api/v1/memories/search", headers=api.headers)
    assert refused.status_code == 405 and "POST" in refused["Allow"]
    # Without a key, as GET without one.
    assert api.client.head("/api/v1/memories").status_code == 401
