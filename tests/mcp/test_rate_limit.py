"""One rate limit per key, whichever way it calls: REST requests and MCP requests share the budget."""

from __future__ import annotations

import time

import httpx
import pytest

from memoryadmin.tenancy.access_log import access_summary
from tests.conftest import LIMITED_RATE
from tests.mcp.conftest import McpCaller

pytestmark = pytest.mark.django_db(transaction=True)

LIMIT = LIMITED_RATE
PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def not_near_a_minute_boundary() -> None:
    # The limit counts per clock minute; a test that straddled two would see two budgets.
    if time.time() % 60 > 52:
        time.sleep(61 - time.time() % 60)


def test_mcp_and_rest_calls_share_one_budget_and_the_limit_answers_429(
    limited_asgi_server, namespace, make_key
) -> None:
    key, raw = make_key(namespace)
    not_near_a_minute_boundary()
    rest = httpx.Client(base_url=limited_asgi_server.url, headers={"Authorization": f"Bearer {raw}"})
    for _ in range(3):
        assert rest.post("/api/v1/memories/search", json={"query": "x"}).status_code == 200
    # The SDK's client makes three requests: discovery, the tool list (for its output schemas), the call.
    assert McpCaller(limited_asgi_server.url, raw).ok("search_memory", {"query": "x"}) == {
        "items": [],
        "next_cursor": None,
    }

    refused = httpx.post(
        f"{limited_asgi_server.url}/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
        headers={"Authorization": f"Bearer {raw}", "Accept": "application/json, text/event-stream"},
    )
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "rate_limited"
    assert refused.json()["error"]["details"]["limit_per_minute"] == LIMIT
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    assert rest.post("/api/v1/memories/search", json={"query": "x"}).status_code == 429

    rows = {(endpoint, status): calls for endpoint, status, calls in access_summary(key_hash=key.key_hash).rows}
    assert rows[("POST /api/v1/memories/search", 200)] == 3
    assert rows[("MCP search_memory", 200)] == 1
    assert rows[("POST /mcp", 429)] == 1
    assert rows[("POST /api/v1/memories/search", 429)] == 1


def test_unknown_keys_sent_to_mcp_or_rest_count_against_one_address_and_stop_it_on_both(
    limited_asgi_server, settings, namespace, make_key
) -> None:
    _, raw = make_key(namespace)
    limit = settings.API_UNKNOWN_KEY_LIMIT_PER_MINUTE
    # From an address of its own (all of 127.0.0.0/8 is loopback), so no other test's address is held back.
    guesser = httpx.Client(base_url=limited_asgi_server.url, transport=httpx.HTTPTransport(local_address="127.0.0.2"))
    not_near_a_minute_boundary()
    mcp_guesses = [
        guesser.post("/mcp", json=PING, headers={**MCP_HEADERS, "Authorization": f"Bearer ma_guess_{n}"}).status_code
        for n in range(limit // 2)
    ]
    rest_guesses = [
        guesser.get("/api/v1/sessions", headers={"Authorization": f"Bearer ma_guess_rest_{n}"}).status_code
        for n in range(limit - limit // 2)
    ]
    assert mcp_guesses + rest_guesses == [401] * limit

    for path, send in (
        ("/mcp", lambda token: guesser.post("/mcp", json=PING, headers={**MCP_HEADERS, "Authorization": token})),
        ("/api/v1/sessions", lambda token: guesser.get("/api/v1/sessions", headers={"Authorization": token})),
    ):
        # Past the limit the address is refused on both transports, a valid key included, until the minute ends.
        for token in ("Bearer ma_one_more_guess", f"Bearer {raw}"):
            refused = send(token)
            assert refused.status_code == 429, (path, refused.text)
            assert refused.json()["error"]["code"] == "rate_limited"
            assert refused.json()["error"]["details"]["unknown_keys_per_minute"] == limit
            assert 1 <= int(refused.headers["Retry-After"]) <= 60
    # Another address is not held back.
    elsewhere = httpx.post(
        f"{limited_asgi_server.url}/mcp", json=PING, headers={**MCP_HEADERS, "Authorization": f"Bearer {raw}"}
    )
    assert elsewhere.status_code == 200, elsewhere.text
