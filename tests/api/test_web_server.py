"""The production web process (gunicorn with memoryadmin's uvicorn worker): what the server itself answers.

A request too long or malformed for the application to see still gets the
API's error body, never the server's plain text or HTML; up to the server's
limit Django answers first (414, 431); and the server's access log, like every
log, carries no privacy link.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from memoryadmin.web_worker import MAX_HEAD_BYTES
from tests.conftest import redis_test_url

ROOT = Path(__file__).resolve().parents[2]
PORTS = range(8500, 8600)


def free_port() -> int:
    for port in PORTS:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) != 0:
                return port
    raise RuntimeError("no free port in 8500-8599")


@pytest.fixture(scope="module")
def web(tmp_path_factory) -> Iterator[tuple[str, Path]]:
    port = free_port()
    log = tmp_path_factory.mktemp("web") / "gunicorn.log"
    # DEBUG as `make run` serves it: Django then adds handlers of its own to its loggers.
    env = {
        **os.environ,
        "REDIS_URL": redis_test_url(),
        "DJANGO_SETTINGS_MODULE": "memoryadmin.settings",
        "DEBUG": "true",
    }
    with log.open("w") as out:
        server = subprocess.Popen(
            [
                str(Path(sys.executable).with_name("gunicorn")),
                "memoryadmin.asgi:application",
                "--worker-class",
                "memoryadmin.web_worker.UvicornWorker",
                "--workers",
                "1",
                "--bind",
                f"127.0.0.1:{port}",
                "--access-logfile",
                "-",
                "--error-logfile",
                "-",
            ],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{base}/api/v1/openapi.json", timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert server.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)
        yield base, log
    finally:
        server.terminate()
        server.wait(timeout=30)


def assert_error_body(response: httpx.Response, status: int, code: str) -> dict:
    assert response.status_code == status, response.text[:300]
    assert response.headers["content-type"].startswith("application/json"), response.headers
    error = response.json()["error"]
    assert error["code"] == code and error["message"]
    return error


def raw_request(base: str, head: bytes) -> bytes:
    """Send `head` in pieces (as a slow client would) and read the answer until the server closes."""
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as conn:
        for start in range(0, len(head), 8192):
            try:
                conn.sendall(head[start : start + 8192])
            except (BrokenPipeError, ConnectionResetError):
                break  # the server answered and closed before the rest
            time.sleep(0.01)
        chunks = []
        try:
            while chunk := conn.recv(65536):
                chunks.append(chunk)
        except ConnectionResetError:
            pass
    return b"".join(chunks)


def test_a_long_url_gets_django_s_414_with_the_error_body(web) -> None:
    base, _ = web
    response = httpx.get(f"{base}/api/v1/memories?user_id=" + "a" * 40_000, timeout=10)
    assert_error_body(response, 414, "uri_too_long")


def test_a_long_header_gets_django_s_431_with_the_error_body(web) -> None:
    base, _ = web
    response = httpx.get(f"{base}/api/v1/memories", headers={"X-Trace": "t" * 20_000}, timeout=10)
    error = assert_error_body(response, 431, "headers_too_large")
    assert error["details"]["header"] == "X-Trace"
    many = {f"X-Note-{i}": "n" * 1000 for i in range(40)}
    assert_error_body(httpx.get(f"{base}/api/v1/memories", headers=many, timeout=10), 431, "headers_too_large")


def test_a_head_beyond_the_server_s_limit_gets_the_error_body_from_the_server(web) -> None:
    base, _ = web
    # Whoever answers, a client meets the error body: Django when the head arrives whole...
    response = httpx.get(f"{base}/api/v1/memories", headers={"X-Trace": "t" * (MAX_HEAD_BYTES + 10)}, timeout=10)
    assert_error_body(response, 431, "headers_too_large")
    huge_url = httpx.get(f"{base}/api/v1/memories?q=" + "q" * 60_000, timeout=10)
    assert_error_body(huge_url, 414, "uri_too_long")
    # ...and the server itself when more than it buffers arrives without the head ending.
    answer = raw_request(base, b"GET /api/v1/memories HTTP/1.1\r\nHost: x\r\nX-Trace: " + b"t" * (MAX_HEAD_BYTES + 10))
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 431"), answer[:200]
    assert b"content-type: application/json" in head.lower()
    assert json.loads(body)["error"] == {
        "code": "headers_too_large",
        "message": f"The request line and headers exceed {MAX_HEAD_BYTES} bytes.",
        "details": {"limit_bytes": MAX_HEAD_BYTES},
    }


def test_a_request_that_is_not_http_gets_the_error_body(web) -> None:
    base, _ = web
    answer = raw_request(base, b"NOT HTTP AT ALL\r\n\r\n")
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400")
    assert b"content-type: application/json" in head.lower()
    assert b'"code": "bad_request"' in body


MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}


def test_the_worker_runs_the_lifespan_so_mcp_is_served_beside_the_api(web) -> None:
    base, _ = web
    # 401 (not 503 `mcp_unavailable`): the MCP server started with the worker and checks the key.
    response = httpx.post(f"{base}/mcp", json=PING, headers=MCP_HEADERS, timeout=10)
    assert_error_body(response, 401, "unauthorized")
    assert response.headers["WWW-Authenticate"].startswith("Bearer")


def test_mcp_requests_meet_the_api_s_head_limits_with_the_error_body(web) -> None:
    base, _ = web
    long_header = httpx.post(f"{base}/mcp", json=PING, headers={**MCP_HEADERS, "X-Trace": "t" * 20_000}, timeout=10)
    assert assert_error_body(long_header, 431, "headers_too_large")["details"]["header"] == "X-Trace"
    assert_error_body(httpx.post(f"{base}/mcp?q=" + "q" * 40_000, json=PING, headers=MCP_HEADERS), 414, "uri_too_long")


def log_once(log: Path, written: Callable[[str], bool]) -> str:
    """The server's log once `written` holds of it (the server writes it a moment after answering)."""
    deadline = time.monotonic() + 30
    while not written(text := log.read_text()):
        assert time.monotonic() < deadline, text[-2000:]
        time.sleep(0.05)
    return text


def test_the_access_log_carries_no_privacy_link(web) -> None:
    base, log = web
    token = "eyJsIjoiZmFrZSJ9:1abcde:Zm9yZ2VkLXNpZ25hdHVyZQ"
    assert httpx.get(f"{base}/privacy/{token}/", timeout=10).status_code == 403
    httpx.get(f"{base}/privacy/{token}/download/?cursor=x", timeout=10)
    text = log_once(log, lambda text: "/privacy/[link]/download/" in text)
    assert token not in text


def test_the_access_log_carries_no_privacy_link_however_its_path_is_spelt(web) -> None:
    base, log = web
    token = "Q2xhcmx5LW5vdC1hLXJlYWwtbGluay10b2tlbi1hdCBhbGw"
    for spelling in ("/privacy/./{t}/", "/PRIVACY/{t}/", "/privacy//{t}/download/", "/Privacy/%2e/{t}/"):
        path = spelling.format(t=token).encode()
        answer = raw_request(base, b"GET " + path + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert answer.startswith(b"HTTP/1.1 "), answer[:200]
    text = log_once(log, lambda text: text.count("/privacy/[link]/") >= 4)
    assert token not in text


def test_each_request_warning_is_written_once(web) -> None:
    base, log = web
    path = f"/api/v1/no-such-route-{uuid.uuid4().hex}"
    assert httpx.get(f"{base}{path}", timeout=10).status_code == 404
    # The access line comes after the request's warning: once it is there, the warning is written.
    text = log_once(log, lambda text: f'"GET {path} HTTP/1.1" 404' in text)
    assert text.count(f"Not Found: {path}") == 1, text[-2000:]
