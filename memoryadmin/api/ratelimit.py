"""Per-key rate limiting of the API, counted in Redis.

Each API key gets `API_RATE_LIMIT_PER_MINUTE` requests per fixed one-minute
window (0 turns the limit off). The counter is keyed by the hash of the
bearer token, so it runs before the key is looked up in the database and a
flood of requests with one key costs a Redis INCR each, not a query. Over the
limit the API answers 429 with `Retry-After` and the error body.

Rate limiting protects the service; it is not what keeps data safe. When Redis
is unreachable the limiter steps aside (fails open) rather than take the
long-term memory API down with it, and stops asking Redis for a few seconds so
every request does not wait for a connection timeout.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.http import HttpRequest, HttpResponse
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


@dataclass(frozen=True)
class RateVerdict:
    """One request's standing against its key's limit for the current window."""

    limit: int
    count: int
    window_ends: float
    now: float

    @property
    def limited(self) -> bool:
        return self.count > self.limit

    @property
    def remaining(self) -> int:
        return max(0, self.limit - self.count)

    @property
    def retry_after(self) -> int:
        return max(1, math.ceil(self.window_ends - self.now))

    def refusal(self) -> tuple[str, dict[str, int]]:
        """The message and details of the 429 error body."""
        return (
            f"This API key made more than {self.limit} requests this minute; retry in {self.retry_after} s.",
            {"limit_per_minute": self.limit, "retry_after_seconds": self.retry_after},
        )

    def headers(self) -> dict[str, str]:
        headers = {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.remaining),
            "X-RateLimit-Reset": str(int(self.window_ends)),
        }
        if self.limited:
            headers["Retry-After"] = str(self.retry_after)
        return headers


class RateLimiter:
    """Counts requests per key and window; shared by every transport that takes a key (REST, MCP)."""

    def __init__(self) -> None:
        self.skip_until = 0.0

    def hit(self, token: str) -> RateVerdict | None:
        """Count this request; None when limiting is off or Redis cannot say."""
        limit = settings.API_RATE_LIMIT_PER_MINUTE
        if limit <= 0:
            return None
        now = time.time()
        count = self._count(token, now)
        if count is None:
            return None
        return RateVerdict(limit, count, (math.floor(now / WINDOW_SECONDS) + 1) * WINDOW_SECONDS, now)

    def _count(self, token: str, now: float) -> int | None:
        """Requests of this key in the current window, this one included; None when Redis cannot say."""
        if now < self.skip_until:
            return None
        key = rate_limit_key(token, math.floor(now / WINDOW_SECONDS))
        try:
            pipe = get_redis().pipeline(transaction=False)
            pipe.incr(key)
            # Twice the window: a key never outlives the minute after its own.
            pipe.expire(key, 2 * WINDOW_SECONDS, nx=True)
            count, _ = pipe.execute()
        except RedisError as exc:
            self.skip_until = now + BACKOFF_SECONDS
            logger.warning("rate limiting is off for %.0f s: redis unavailable: %s", BACKOFF_SECONDS, exc)
            return None
        return int(count)


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
        verdict = self.limiter.hit(token)
        if verdict is None:
            return self.get_response(request)
        if verdict.limited:
            message, details = verdict.refusal()
            response = error_response(429, "rate_limited", message, details)
        else:
            response = self.get_response(request)
        for name, value in verdict.headers().items():
            response[name] = value
        return response
