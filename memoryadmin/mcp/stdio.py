"""MCP over standard input and output, for an agent that starts memoryadmin as a local process.

One process serves one API key. The key is looked up again for every call, so
revoking it takes effect at once, and every call counts against its rate limit
as an HTTP request would.
"""

from __future__ import annotations

from typing import Any

from mcp.server import ServerRequestContext
from mcp.server.stdio import stdio_server

from memoryadmin.api.auth import api_key_for_token
from memoryadmin.api.errors import Failure
from memoryadmin.api.ratelimit import RateLimiter
from memoryadmin.mcp.server import KeyResolver, build_server
from memoryadmin.tenancy.models import ApiKey

# The address the rate limiter counts unknown keys against. A stdio process serves the one key it was started
# with (and refuses to start with an unknown one), so there is no stream of guessed keys to stop: nothing is
# ever counted against this address, and a revoked key's calls answer 401.
STDIO_ADDRESS = "stdio"


def _key_resolver(token: str) -> KeyResolver:
    limiter = RateLimiter()

    def resolve() -> ApiKey | Failure:
        verdict = limiter.hit(token, STDIO_ADDRESS)
        if verdict is not None and verdict.limited:
            message, details = verdict.refusal()
            return Failure(429, "rate_limited", message, details)
        # Read at every call (no generation): this process may not share the server's Redis, and serves one key.
        key = api_key_for_token(token)
        if key is None:
            return Failure(401, "unauthorized", "The API key is unknown or revoked.")
        return key

    return resolve


async def serve_stdio(token: str) -> None:
    resolve = _key_resolver(token)

    def key_resolver(ctx: ServerRequestContext[Any, Any]) -> KeyResolver:
        return resolve

    server = build_server(key_resolver)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
