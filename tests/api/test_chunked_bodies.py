"""A request body sent without a length (Transfer-Encoding: chunked, as a client streaming it sends it) is read
whole by the production ASGI app, within the size its path may take."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from memoryadmin.memories.models import Memory

pytestmark = pytest.mark.django_db(transaction=True)


def in_pieces(data: bytes, size: int = 7) -> Iterator[bytes]:
    for start in range(0, len(data), size):
        yield data[start : start + size]


@pytest.fixture
def http(asgi_server, namespace, make_key) -> Iterator[httpx.Client]:
    headers = {"Authorization": f"Bearer {make_key(namespace, 'read,write,erase')[1]}"}
    with httpx.Client(base_url=asgi_server.url, headers=headers, timeout=30) as client:
        yield client


def test_a_chunked_body_is_read_whole(http, namespace) -> None:
    body = b'{"user_id": "alice", "text": "Alice keeps bees in Ghent"}'
    response = http.post("/api/v1/memories", content=in_pieces(body), headers={"Content-Type": "application/json"})
    assert response.request.headers.get("transfer-encoding") == "chunked"
    assert response.status_code == 201, response.text
    assert Memory.objects.filter(namespace=namespace, text="Alice keeps bees in Ghent").exists()
    # An empty chunked body is a body with nothing in it.
    empty = http.post("/api/v1/memories", content=iter([b""]), headers={"Content-Type": "application/json"})
    assert empty.status_code in (400, 422), empty.text
    assert empty.json()["error"]["code"] in ("malformed_json", "validation_error")


def test_a_chunked_body_past_the_limit_is_refused_413(http, namespace) -> None:
    text = "x" * (1024 * 1024)
    body = b'{"user_id": "alice", "text": "' + text.encode() + b'"}'
    response = http.post(
        "/api/v1/memories", content=in_pieces(body, 64 * 1024), headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 413, response.text[:300]
    assert response.json()["error"]["code"] == "payload_too_large"
    assert not Memory.objects.filter(namespace=namespace).exists()


def test_a_snapshot_sent_chunked_is_restored(http, namespace) -> None:
    http.post("/api/v1/memories", json={"user_id": "alice", "text": "Alice keeps bees in Ghent"})
    snapshot = http.get("/api/v1/snapshots/export").content
    assert snapshot.count(b"\n") >= 3
    response = http.post(
        "/api/v1/snapshots/restore?dry_run=true",
        content=in_pieces(snapshot, 100),
        headers={"Content-Type": "application/x-ndjson"},
    )
    assert response.status_code == 200, response.text
    assert response.json()["dry_run"] is True


def test_a_chunked_body_to_any_other_page_is_held_to_a_request_s_size(http) -> None:
    # Only where a snapshot is uploaded may a body be a snapshot's size; elsewhere it is read no further.
    body = b"x" * (1024 * 1024 + 1)
    response = http.post("/anything/", content=in_pieces(body, 64 * 1024))
    assert response.status_code == 413, response.text[:300]
    assert response.json()["error"]["code"] == "payload_too_large"
