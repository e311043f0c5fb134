"""MCP over streamable HTTP, mounted at /mcp beside the Django app (memoryadmin.asgi).

Every HTTP request is checked here before the SDK sees it, as the API's middleware
checks an API request: the Host header against ALLOWED_HOSTS, the request target
and headers against the API's limits (414, 431), the bearer key (a missing or
revoked key is 401 with the API's error body), the rate limits (shared with the
REST API: one budget per key, and one budget of unknown keys per client address)
and, for the tools, the scope.

The server is stateless (no MCP session is kept between HTTP requests), so any
worker process can answer any request, and responses are plain JSON. It has
nothing to push, so it opens no event stream: GET (and DELETE) is 405.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

import orjson
from django.conf import settings
from django.db import close_old_connections
from django.http.request import split_domain_port, validate_host
from mcp.server import ServerRequestContext
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import Receive, Scope, Send

from memoryadmin.api.auth import api_key_for_token
from memoryadmin.api.errors import ApiError
from memoryadmin.api.middleware import head_refusal
from memoryadmin.api.ratelimit import MAX_TOKEN_CHARS, RateLimiter, RateVerdict
from memoryadmin.mcp.server import KeyResolver, SyncRunner, build_server, in_django_thread
from memoryadmin.tenancy.access_log import access_record
from memoryadmin.tenancy.models import ApiKey, hash_api_key

logger = logging.getLogger(__name__)

PATH = "/mcp"
ENDPOINT = "POST /mcp"
# Where the key found for a request travels to the tool handlers, in the ASGI scope.
SCOPE_KEY = "memoryadmin.api_key"

_limiter = RateLimiter()


def is_mcp_path(path: str) -> bool:
    return path == PATH or path.startswith(PATH + "/")


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope["headers"]:
        if key == name:
            return value.decode("latin-1")
    return ""


def _bearer(scope: Scope) -> str | None:
    scheme, _, token = _header(scope, b"authorization").partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or len(token) > MAX_TOKEN_CHARS:
        return None
    return token


def _environ_name(name: bytes) -> str:
    key = name.decode("latin-1").upper().replace("-", "_")
    return key if key in ("CONTENT_TYPE", "CONTENT_LENGTH") else f"HTTP_{key}"


def _head_refusal(scope: Scope) -> ApiError | None:
    """The API's 414 or 431 for a request target or headers over the application's limits."""
    target = len(scope["path"]) + len(scope.get("query_string", b"")) + 1
    headers = ((_environ_name(name), value.decode("latin-1")) for name, value in scope["headers"])
    return head_refusal(target_bytes=target, headers=headers)


def _host_allowed(scope: Scope) -> bool:
    host = _header(scope, b"host")
    domain, _ = split_domain_port(host)
    allowed = settings.ALLOWED_HOSTS
    if settings.DEBUG and not allowed:
        allowed = [".localhost", "127.0.0.1", "[::1]"]
    return bool(domain) and validate_host(domain, allowed)


def _client_address(scope: Scope) -> str:
    # What a2wsgi gives Django as REMOTE_ADDR, so a REST and an MCP request of one client count as one address.
    client = scope.get("client")
    return (client[0] if client else "") or "unknown"


def _admit(token: str, address: str) -> tuple[ApiKey | None, RateVerdict | None]:
    """In a Django thread: the rate limits first (they need no query, as for the REST API), then the key.

    An unknown or revoked key counts against the address, as it does for the REST API, so a stream of made-up
    tokens sent to /mcp is stopped by the same limit and soon costs no lookup."""
    close_old_connections()
    try:
        verdict = _limiter.hit(token, address)
        if verdict is not None and verdict.limited:
            access_record(key_hash=hash_api_key(token), endpoint=ENDPOINT, status=429, only_if_active=True)
            return None, verdict
        key = api_key_for_token(token, verdict.key_generation if verdict is not None else None)
        if key is None and verdict is not None:
            _limiter.count_unknown(address)
        return key, verdict
    finally:
        close_old_connections()


async def _answer(send: Send, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
    raw = orjson.dumps(body)
    pairs = [(b"content-type", b"application/json"), (b"content-length", str(len(raw)).encode())]
    pairs += [(name.lower().encode(), value.encode()) for name, value in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": pairs})
    await send({"type": "http.response.body", "body": raw})


def _error(code: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "details": details or {}}}


def _key_of_request(ctx: ServerRequestContext[Any, Any]) -> KeyResolver:
    key: ApiKey = ctx.request.scope[SCOPE_KEY]  # type: ignore[union-attr]
    return lambda: key


class McpHttpApp:
    """The ASGI app for /mcp. Its `running()` must be entered for the app's life (the ASGI lifespan)."""

    def __init__(self, run_sync: SyncRunner = in_django_thread) -> None:
        self.run_sync = run_sync
        self.server = build_server(_key_of_request, run_sync)
        self.manager = StreamableHTTPSessionManager(
            app=self.server,
            json_response=True,
            stateless=True,
            # Host and credentials are checked here, against the app's own settings.
            security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
            max_request_body_size=settings.MAX_REQUEST_BYTES,
        )
        self.started = False

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        async with self.manager.run():
            self.started = True
            try:
                yield
            finally:
                self.started = False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not _host_allowed(scope):
            await _answer(send, 400, _error("bad_request", "The Host header is not one this server answers to."))
            return
        if refusal := _head_refusal(scope):
            await _answer(send, refusal.status, _error(refusal.code, refusal.message, refusal.details))
            return
        if scope["method"] != "POST":
            # Stateless: no MCP session to end (DELETE) and nothing the server would push on a stream
            # (GET), which would otherwise stay open for ever, one file descriptor each. MCP allows 405.
            await _answer(
                send,
                405,
                _error("method_not_allowed", "MCP is served by POST /mcp only; this server offers no event stream."),
                {"Allow": "POST"},
            )
            return
        if not self.started:
            await _answer(
                send,
                503,
                _error(
                    "mcp_unavailable",
                    "MCP is served only by an ASGI server that runs the lifespan protocol (uvicorn, or gunicorn "
                    "with uvicorn workers).",
                ),
            )
            return
        token = _bearer(scope)
        key, verdict = (None, None) if token is None else await self.run_sync(_admit, token, _client_address(scope))
        rate_headers = verdict.headers() if verdict is not None else {}
        if verdict is not None and verdict.limited:
            message, details = verdict.refusal()
            await _answer(send, 429, _error("rate_limited", message, details), rate_headers)
            return
        if key is None:
            await _answer(
                send,
                401,
                _error("unauthorized", "A valid API key is required: Authorization: Bearer <key>."),
                {"WWW-Authenticate": 'Bearer realm="memoryadmin"'},
            )
            return
        scope = {**scope, SCOPE_KEY: key}

        async def send_with_rate_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start" and rate_headers:
                message = {
                    **message,
                    "headers": [
                        *message.get("headers", []),
                        *((n.lower().encode(), v.encode()) for n, v in rate_headers.items()),
                    ],
                }
            await send(message)

        await self.manager.handle_request(scope, receive, send_with_rate_headers)
