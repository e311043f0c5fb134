"""How the client waits: retries of 429 and 503 honouring Retry-After, backoff, timeouts (a scripted server)."""

from __future__ import annotations

import socket

import anyio
import pytest
from memoryadmin_client import AsyncMemoryAdmin, MemoryAdmin, RetryPolicy, errors

from tests.clients.scripted_server import Reply, ScriptedServer

LIMITED = {"error": {"code": "rate_limited", "message": "slow down", "details": {"retry_after_seconds": 1}}}
DOWN = {"error": {"code": "database_unavailable", "message": "down", "details": {}}}


def test_a_429_is_retried_after_the_seconds_retry_after_asks() -> None:
    with ScriptedServer(Reply(429, LIMITED, {"Retry-After": "1"}), Reply()) as server:
        assert MemoryAdmin(server.url, "k").health().status == "ok"
    assert len(server.seen) == 2
    assert 0.95 <= server.gaps()[0] < 2


def test_503_is_retried_with_backoff_until_it_answers() -> None:
    retry = RetryPolicy(max_retries=3, backoff=0.2, max_backoff=1)
    with ScriptedServer(Reply(503, DOWN), Reply(503, DOWN), Reply()) as server:
        assert MemoryAdmin(server.url, "k", retry=retry).health().status == "ok"
    first, second = server.gaps()
    assert 0.09 <= first <= 0.4 and 0.19 <= second <= 0.8


def test_after_the_last_retry_the_error_is_raised_with_its_code() -> None:
    replies = [Reply(503, DOWN) for _ in range(3)]
    with ScriptedServer(*replies) as server, pytest.raises(errors.DatabaseUnavailableError) as raised:
        MemoryAdmin(server.url, "k", retry=RetryPolicy(max_retries=2, backoff=0.01)).health()
    assert len(server.seen) == 3
    assert isinstance(raised.value, errors.ServiceUnavailableError)
    assert raised.value.status == 503


def test_a_retry_after_longer_than_the_client_waits_is_raised_at_once() -> None:
    with (
        ScriptedServer(Reply(429, LIMITED, {"Retry-After": "3600"})) as server,
        pytest.raises(errors.RateLimitedError) as raised,
    ):
        MemoryAdmin(server.url, "k").health()
    assert len(server.seen) == 1
    assert raised.value.retry_after == 3600


def test_other_errors_are_not_retried() -> None:
    missing = {"error": {"code": "not_found", "message": "memory not found", "details": {}}}
    with ScriptedServer(Reply(404, missing), Reply()) as server, pytest.raises(errors.NotFoundError):
        MemoryAdmin(server.url, "k").memories.get("x")
    assert len(server.seen) == 1


def test_an_unknown_code_falls_back_to_its_status_family() -> None:
    odd = {"error": {"code": "something_new", "message": "new", "details": {}}}
    with ScriptedServer(Reply(409, odd), Reply(418, odd), Reply(500, "not json")) as server:
        client = MemoryAdmin(server.url, "k")
        with pytest.raises(errors.ConflictError) as conflict:
            client.health()
        assert conflict.value.code == "something_new"
        with pytest.raises(errors.APIError) as teapot:
            client.health()
        assert teapot.value.status == 418
        with pytest.raises(errors.ServerError):
            client.health()


def test_a_slow_answer_raises_a_timeout() -> None:
    with ScriptedServer(Reply(delay=2)) as server, pytest.raises(errors.RequestTimeoutError):
        MemoryAdmin(server.url, "k", timeout=0.3).health()


def test_a_server_that_cannot_be_reached_is_a_transport_error_after_the_retries() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(errors.TransportError):
        MemoryAdmin(f"http://127.0.0.1:{port}", "k", retry=RetryPolicy(max_retries=2, backoff=0.01)).health()


def test_the_async_client_retries_the_same_way() -> None:
    async def scenario() -> str:
        async with AsyncMemoryAdmin(server.url, "k") as client:
            return (await client.health()).status

    with ScriptedServer(Reply(429, LIMITED, {"Retry-After": "1"}), Reply()) as server:
        assert anyio.run(scenario) == "ok"
    assert 0.95 <= server.gaps()[0] < 2


def test_it_sends_the_key_and_names_itself() -> None:
    with ScriptedServer(Reply()) as server:
        MemoryAdmin(server.url, "ma_secret").health()
    assert server.seen[0][1:] == ("GET", "/api/v1/health")
    assert server.headers[0]["Authorization"] == "Bearer ma_secret"
    assert server.headers[0]["User-Agent"].startswith("memoryadmin-client/")
