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
sign-in throttle (the ASGI scope's client address for MCP, the same address).

`RateLimiter` does the counting for every transport that takes a key: the REST
API's middleware here and the MCP endpoint (memoryadmin.mcp.http) share one
budget per key and one unknown-key budget per address.

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
from dataclasses import dataclass

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from redis.commands.core import Script
from redis.exceptions import RedisError

from memoryadmin.api.errors import error_response
from memoryadmin.core.redis_client import get_redis
from memoryadmin.tenancy.key_cache import GENERATION_KEY, new_generation
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
# (so random tokens create no counter each); otherwise the token's counter goes up, and the key
# generation is read (made from ARGV[3] when there is none: `tenancy.key_cache`).
# KEYS: the token's counter, the address's unknown-key counter, the key generation.
# ARGV: that limit (0: off), the TTL, a new generation.
COUNT_SCRIPT = """
local unknown = tonumber(redis.call('GET', KEYS[2]) or '0')
local limit = tonumber(ARGV[1])
if limit > 0 and unknown >= limit then
    return {-1, ''}
end
local count = redis.call('INCR', KEYS[1])
if count == 1 then
    redis.call('EXPIRE', KEYS[1], ARGV[2])
end
local generation = redis.call('GET', KEYS[3])
if not generation then
    generation = ARGV[3]
    redis.call('SET', KEYS[3], generation)
end
return {count, generation}
"""


# Sent by its digest (EVALSHA), loaded again by redis-py should the server not know it.
_COUNT = Script(None, COUNT_SCRIPT.encode())  # type: ignore[arg-type]


@dataclass(frozen=True)
class RateVerdict:
    """One request's standing for the current window: against its key's limit, or its address refused."""

    limit: int
    # Requests of the key in this window, this one included; -1 when the address is refused for unknown keys.
    count: int
    window_ends: float
    now: float
    unknown_limit: int = 0
    # The key generation read in the same round trip ("" when the address was refused).
    key_generation: str = ""

    @property
    def address_refused(self) -> bool:
        return self.count < 0

    @property
    def limited(self) -> bool:
        return self.address_refused or self.count > self.limit

    @property
    def remaining(self) -> int:
        return max(0, self.limit - self.count)

    @property
    def retry_after(self) -> int:
        return max(1, math.ceil(self.window_ends - self.now))

    def refusal(self) -> tuple[str, dict[str, int]]:
        """The message and details of the 429 error body."""
        if self.address_refused:
            return (
                f"This address sent more than {self.unknown_limit} unknown API keys this minute; "
                f"retry in {self.retry_after} s.",
                {"unknown_keys_per_minute": self.unknown_limit, "retry_after_seconds": self.retry_after},
            )
        return (
            f"This API key made more than {self.limit} requests this minute; retry in {self.retry_after} s.",
            {"limit_per_minute": self.limit, "retry_after_seconds": self.retry_after},
        )

    def headers(self) -> dict[str, str]:
        if self.address_refused:
            # No key was counted, so there is no key budget to tell.
            return {"Retry-After": str(self.retry_after)}
        headers = {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.remaining),
            "X-RateLimit-Reset": str(int(self.window_ends)),
        }
        if self.limited:
            headers["Retry-After"] = str(self.retry_after)
        return headers


class RateLimiter:
    """Counts requests per key and unknown keys per address; shared by every transport that takes a key."""

    def __init__(self) -> None:
        self.skip_until = 0.0

    def hit(self, token: str, address: str) -> RateVerdict | None:
        """Count this request, in one round trip; None when limiting is off or Redis cannot say."""
        limit = settings.API_RATE_LIMIT_PER_MINUTE
        if limit <= 0:
            return None
        now = time.time()
        if now < self.skip_until:
            return None
        window = math.floor(now / WINDOW_SECONDS)
        unknown_limit = settings.API_UNKNOWN_KEY_LIMIT_PER_MINUTE
        try:
            count, generation = _COUNT(
                keys=[rate_limit_key(token, window), unknown_keys_key(address, window), GENERATION_KEY],
                # Twice the window: a key never outlives the minute after its own.
                args=[unknown_limit, 2 * WINDOW_SECONDS, new_generation()],
                client=get_redis(),
            )
        except RedisError as exc:
            self._back_off(now, exc)
            return None
        return RateVerdict(limit, int(count), (window + 1) * WINDOW_SECONDS, now, unknown_limit, str(generation))

    def count_unknown(self, address: str) -> None:
        """The address presented a key nobody issued (or a revoked one)."""
        if settings.API_RATE_LIMIT_PER_MINUTE <= 0:
            return
        now = time.time()
        if now < self.skip_until:
            return
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


class RateLimitMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.limiter = RateLimiter()

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not request.path.startswith(API_PREFIX) or request.path.startswith(EXEMPT_PATHS):
            return self.get_response(request)
        token = bearer_token(request)
        if token is None:
            return self.get_response(request)
        address = client_address(request)
        verdict = self.limiter.hit(token, address)
        if verdict is None:
            return self.get_response(request)
        request.key_generation = verdict.key_generation  # type: ignore[attr-defined]
        if verdict.limited:
            message, details = verdict.refusal()
            response = error_response(429, "rate_limited", message, details)
        else:
            response = self.get_response(request)
            if getattr(request, "unknown_api_key", False):
                self.limiter.count_unknown(address)
        for name, value in verdict.headers().items():
            response[name] = value
        return response
