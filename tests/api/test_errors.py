"""One error body everywhere, and never a 500 for bad input."""

from __future__ import annotations

import pytest
from django.test import Client


def assert_error(response, status: int, code: str | None = None) -> dict:
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"error"}
    assert set(body["error"]) == {"code", "message", "details"}
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    if code:
        assert body["error"]["code"] == code
    return body["error"]


def test_an_unknown_route_is_a_json_404(api) -> None:
    assert_error(api.get("/api/v1/nothing-here"), 404, "not_found")
    assert_error(api.get("/api/v2/sessions"), 404, "not_found")
    assert_error(Client().get("/api/"), 404, "not_found")


def test_a_wrong_method_is_a_json_405(api) -> None:
    response = api.post("/api/v1/sessions", {})
    error = assert_error(response, 405, "method_not_allowed")
    assert "GET" in error["details"]["allowed"]
    assert_error(api.put("/api/v1/memories/search", {}), 405, "method_not_allowed")


@pytest.mark.parametrize("raw", [b"{", b"not json", b'{"a": "\\ud800"}', b"[" * 5000 + b"]" * 5000, b"\xff\xfe"])
def test_malformed_json_is_400(api, raw) -> None:
    response = api.client.post("/api/v1/memories", raw, content_type="application/json", headers=api.headers)
    assert_error(response, 400, "malformed_json")


def test_a_body_of_the_wrong_shape_is_422_with_field_details(api) -> None:
    error = assert_error(api.post("/api/v1/memories", {"text": ["x"], "user_id": "alice"}), 422, "validation_error")
    assert error["details"]["fields"][0]["field"] == "text"
    assert_error(api.post("/api/v1/memories", [1, 2]), 422, "validation_error")


def test_an_oversize_body_is_413_before_parsing(api, settings) -> None:
    body = b'{"text": "' + b"x" * (settings.MAX_REQUEST_BYTES + 1) + b'"'
    response = api.client.post("/api/v1/memories", body, content_type="application/json", headers=api.headers)
    error = assert_error(response, 413, "payload_too_large")
    assert error["details"]["limit_bytes"] == settings.MAX_REQUEST_BYTES


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("put", "/api/v1/sessions/s1", {"user_id": "alice", "metadata": {"k\u0000": 1}}),
        (
            "post",
            "/api/v1/sessions/s1/messages",
            {"user_id": "alice", "messages": [{"role": "user", "content": "\u0000"}]},
        ),
        (
            "post",
            "/api/v1/sessions/s1/messages",
            {"user_id": "alice", "messages": [{"role": "user", "name": "a\u0000"}]},
        ),
        ("post", "/api/v1/memories", {"text": "tea", "user_id": "alice", "topics": ["\u0000"]}),
        ("post", "/api/v1/memories", {"text": "tea", "user_id": "alice\u0000"}),
        ("post", "/api/v1/memories/search", {"query": "tea", "user_id": "\u0000"}),
        ("post", "/api/v1/memories/search", {"query": "tea", "topics": ["\u0000"]}),
        ("get", "/api/v1/sessions?user_id=%00", None),
        ("get", "/api/v1/sessions/%00", None),
        ("get", "/api/v1/memories?status=%00", None),
        ("delete", "/api/v1/sessions/s1/messages?run_id=%00", None),
        ("get", "/api/v1/sessions/s1/context?query=%00", None),
        ("get", "/api/v1/sessions?cursor=%00", None),
    ],
)
def test_nul_bytes_are_refused_never_a_500(api, method, path, body) -> None:
    api.put("/api/v1/sessions/s1", {"user_id": "alice"})
    response = getattr(api, method)(path, body) if body is not None else getattr(api, method)(path)
    assert response.status_code in (400, 422), response.content
    assert_error(response, response.status_code)


def test_nul_in_a_memory_path_reason_is_refused(api) -> None:
    memory_id = api.post("/api/v1/memories", {"text": "tea", "user_id": "alice"}).json()["id"]
    response = api.delete(f"/api/v1/memories/{memory_id}?reason=%00")
    assert response.status_code == 422


def test_a_refused_field_is_named_as_the_body_or_query_spells_it(api) -> None:
    def fields(response) -> list[tuple[str, str]]:
        assert response.status_code == 422, response.content
        return [(f["field"], f["message"]) for f in response.json()["error"]["details"]["fields"]]

    # A field called "query", in a body or a query string, is not taken for where the parameter came from.
    assert [f for f, _ in fields(api.post("/api/v1/memories/search", {"query": ""}))] == ["query"]
    assert [f for f, _ in fields(api.post("/api/v1/memories/search", {}))] == ["query"]
    api.put("/api/v1/sessions/s1", {"user_id": "alice"})
    assert [f for f, _ in fields(api.get("/api/v1/sessions/s1/context?query=" + "x" * 2001))] == ["query"]
    # A value no member of a union takes is one error at its field, saying what it may be.
    [(field, message)] = fields(api.put("/api/v1/sessions/s1/state", {"state": {"step": None}, "ttl_seconds": 60}))
    assert field == "state.step"
    assert message.startswith("Input should be a valid dictionary, list, string") and "boolean" in message
