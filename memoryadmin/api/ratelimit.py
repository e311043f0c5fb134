"""Per-key rate limiting of the API, counted in Redis.

Each API key gets `API_RATE_LIMIT_PER_MINUTE` requests per fixed one-minute
window (0 turns the limit off). The counter is keyed by the hash of the
bearer token, so it runs before the key is looked up in the database and a
flood of requests with one key costs a Redis INCR each, not a query. Over the
limit the API answers 429 with `Retry-After` and the error body.

Keys nobody issued are limited per client address too: an address that presents
more than `API_UNKNOWN_KEY_LIMIT_PER_MINUTE` unknown (or revoked) keys in a
window gets 429 for every keyed request until the window ends, checked before
anything else, so a stream of random tokens soon costs neither a database lookup
nor a Redis key per token. The address is REMOTE_ADDR, as for the console's
sign-in throttle.

Rate limiting protects the service; it is not what keeps data safe. When Redis
is unreachable the limiter steps aside (fails open) rather than take the
long-term memory API down with it, and stops asking Redis for a few seconds so
every request does not wait for a connection timeout.
"""

from __future__ import annotations

import hashlib
import logging
import math
import time
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from redis.commands.core import Script
from redis.exceptions import RedisError

from memoryadmin.api.errors import error_response
from memoryadmin.core.redis_client import get_redis
from memoryadmin.tenancy.models import hash_api_key

logger = logging.getLogger(__name__)

API_PREFIX = "/api/"
# Open to anyone without a key (monitoring, the schema and its docs): never limited by a key.
EXEMPT_PATHS = ("/api/v1/health", "/api/v1/openapi.json", "/api/v1/docs")
WINDOW_SECONDS = 60
# After Redis fails, the limiter stays out of the way this long before trying again.
BACKOFF_SECONDS = 5.0
# Tokens longer than this are refused by authentication anyway; don't hash megabytes.
MAX_TOKEN_CHARS = 200


def bearer_token(request: HttpRequest) -> str | None:
    header = request.META.get("HTTP_AUTHORIZATION", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer":
        return None
    token = token.strip()
    if not token or len(token) > MAX_TOKEN_CHARS:
        return None
    return token


def rate_limit_key(token: str, window: int) -> str:
    return f"ratelimit:{hash_api_key(token)[:32]}:{window}"


def unknown_keys_key(address: str, window: int) -> str:
    return f"ratelimit-unknown:{hashlib.sha256(address.encode()).hexdigest()[:32]}:{window}"


def client_address(request: HttpRequest) -> str:
    return request.META.get("REMOTE_ADDR", "") or "unknown"


# One round trip: an address over its unknown-key limit is refused before its token is counted
# (so random tokens create no counter each); otherwise the token's counter goes up.
# KEYS: the token's counter, the address's unknown-key counter. ARGV: that limit (0: off), the TTL.
COUNT_SCRIPT = """
local unknown = tonumber(redis.call('GET', KEYS[2]) or '0')
local limit = tonumber(ARGV[1])
if limit > 0 and unknown >= limit then
    return -1
end
local count = redis.call('INCR', KEYS[1])
if count == 1 then
    redis.call('EXPIRE', KEYS[1], ARGV[2])
end
return count
"""


# Sent by its digest (EVALSHA), loaded again by redis-py should the server not know it.
_COUNT = Script(None, COUNT_SCRIPT.encode())  # type: ignore[arg-type]


class RateLimitMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.skip_until = 0.0

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit = settings.API_RATE_LIMIT_PER_MINUTE
        if limit <= 0 or not request.path.startswith(API_PREFIX) or request.path.startswith(EXEMPT_PATHS):
            return self.get_response(request)
        token = bearer_token(request)
        if token is None:
            return self.get_response(request)
        now = time.time()
        address = client_address(request)
        count = self._count(token, address, now)
        if count is None:
            return self.get_response(request)
        window_ends = (math.floor(now / WINDOW_SECONDS) + 1) * WINDOW_SECONDS
        retry_after = max(1, math.ceil(window_ends - now))
        if count < 0:
            unknown_limit = settings.API_UNKNOWN_KEY_LIMIT_PER_MINUTE
            response = error_response(
                429,
                "rate_limited",
                f"This address sent more than {unknown_limit} unknown API keys this minute; retry in {retry_after} s.",
                {"unknown_keys_per_minute": unknown_limit, "retry_after_seconds": retry_after},
            )
            response["Retry-After"] = str(retry_after)
            return response
        if count > limit:
            response = error_response(
                429,
                "rate_limited",
                f"This API key made more than {limit} requests this minute; retry in {retry_after} s.",
                {"limit_per_minute": limit, "retry_after_seconds": retry_after},
            )
            response["Retry-After"] = str(retry_after)
            self._label(response, limit, 0, window_ends)
            return response
        response = self.get_response(request)
        if getattr(request, "unknown_api_key", False):
            self._count_unknown(address, now)
        self._label(response, limit, limit - count, window_ends)
        return response

    def _count(self, token: str, address: str, now: float) -> int | None:
        """Requests of this key in the current window, this one included; -1 when the address is refused for
        unknown keys; None when Redis cannot say."""
        if now < self.skip_until:
            return None
        window = math.floor(now / WINDOW_SECONDS)
        try:
            count = _COUNT(
                keys=[rate_limit_key(token, window), unknown_keys_key(address, window)],
                # Twice the window: a key never outlives the minute after its own.
                args=[settings.API_UNKNOWN_KEY_LIMIT_PER_MINUTE, 2 * WINDOW_SECONDS],
                client=get_redis(),
            )
        except RedisError as exc:
            self._back_off(now, exc)
            return None
        return int(count)

    def _count_unknown(self, address: str, now: float) -> None:
        key = unknown_keys_key(address, math.floor(now / WINDOW_SECONDS))
        try:
            pipe = get_redis().pipeline(transaction=False)
            pipe.incr(key)
            pipe.expire(key, 2 * WINDOW_SECONDS, nx=True)
            pipe.execute()
        except RedisError as exc:
            self._back_off(now, exc)

    def _back_off(self, now: float, exc: Exception) -> None:
        self.skip_until = now + BACKOFF_SECONDS
        logger.warning("rate limiting is off for %.0f s: redis unavailable: %s", BACKOFF_SECONDS, exc)

    @staticmethod
    def _label(response: HttpResponse, limit: int, remaining: int, window_ends: float) -> None:
        response["X-RateLimit-Limit"] = str(limit)
        response["X-RateLimit-Remaining"] = str(max(0, remaining))
        response["X-RateLimit-Reset"] = str(int(window_ends))
