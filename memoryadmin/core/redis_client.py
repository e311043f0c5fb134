from __future__ import annotations

from functools import lru_cache

import redis
from django.conf import settings


@lru_cache(maxsize=8)
def _client(url: str, timeout: float) -> redis.Redis:
    return redis.Redis.from_url(
        url,
        socket_timeout=timeout,
        socket_connect_timeout=timeout,
        health_check_interval=30,
        decode_responses=True,
    )


def get_redis() -> redis.Redis:
    """The shared client for REDIS_URL (looked up on each call so tests can point it elsewhere)."""
    return _client(settings.REDIS_URL, settings.REDIS_TIMEOUT_SECONDS)
