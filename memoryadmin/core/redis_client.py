"""The one Redis client of a process: REDIS_URL, or the master that Redis Sentinel names.

With REDIS_SENTINELS (`host:port,host:port`) and REDIS_SENTINEL_MASTER set, the client asks the
sentinels which server is the master, and asks again when that server stops answering or
answers as a replica (after a failover): the command that met the old master fails, and the
next one goes to the new master. REDIS_URL then gives only the database number and the
master's credentials; its host is not used. Working memory, the rate limits, the access log,
extraction's schedule keys and the metrics all use this client; the Celery broker reaches the
same master through kombu's `sentinel://` transport (settings.py).
"""

from __future__ import annotations

from functools import lru_cache
from urllib.parse import unquote, urlsplit

import redis
from django.conf import settings
from redis.sentinel import Sentinel


@lru_cache(maxsize=8)
def _client(url: str, timeout: float, sentinels: tuple[tuple[str, int], ...], master: str) -> redis.Redis:
    common = {
        "socket_timeout": timeout,
        "socket_connect_timeout": timeout,
        "health_check_interval": 30,
        "decode_responses": True,
    }
    if not sentinels:
        return redis.Redis.from_url(url, **common)
    parts = urlsplit(url)
    sentinel = Sentinel(
        list(sentinels),
        sentinel_kwargs={
            "socket_timeout": timeout,
            "socket_connect_timeout": timeout,
            "password": settings.REDIS_SENTINEL_PASSWORD or None,
        },
    )
    return sentinel.master_for(
        master,
        db=int(parts.path.strip("/") or 0),
        username=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
        ssl=parts.scheme == "rediss",
        **common,
    )


def get_redis() -> redis.Redis:
    """The shared client for REDIS_URL (looked up on each call so tests can point it elsewhere)."""
    sentinels = tuple(tuple(address) for address in settings.REDIS_SENTINELS)
    return _client(settings.REDIS_URL, settings.REDIS_TIMEOUT_SECONDS, sentinels, settings.REDIS_SENTINEL_MASTER)
