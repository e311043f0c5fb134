"""Per API key: calls by endpoint and status over the last 24 hours, and the last call.

Counted in Redis, never in a table: each call increments a field of the key's hash
for the current hour (`access:{key}:{hour}`, field `endpoint<TAB>status`) and
overwrites the key's last call, with the request's other bookkeeping writes. An hour's hash expires
25 hours after its first call, so the log keeps itself to a day. The console reads
the 24 hashes of a key in one round trip.

Recording never fails a call: when Redis is unreachable the log steps aside for a
few seconds (as the rate limiter does) and those calls go uncounted.

A call refused before its key was looked up (over the rate limit) is counted only
when the key already has calls this hour. A real key that reaches its limit made
those calls within the same minute, so the hour's hash exists; a stream of made-up
tokens never creates one.
"""

from __future__ import annotations

import logging
import math
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache

from django.conf import settings
from redis import Redis
from redis.client import Pipeline
from redis.commands.core import Script
from redis.exceptions import RedisError

from memoryadmin.core.redis_batch import deferred
from memoryadmin.core.redis_client import get_redis

logger = logging.getLogger(__name__)

HOUR_SECONDS = 3600
HOURS_KEPT = 24
BUCKET_TTL_SECONDS = (HOURS_KEPT + 1) * HOUR_SECONDS
LAST_CALL_TTL_SECONDS = 90 * 24 * HOUR_SECONDS
BACKOFF_SECONDS = 5.0
SEPARATOR = "\t"

# A call refused before its key was looked up, counted only when the hour's hash exists (the other
# calls are three plain commands, sent with the request's other bookkeeping writes).
# KEYS[1] the hour's hash, KEYS[2] the last call; ARGV: field, last call, bucket TTL, last-call TTL.
_RECORD_IF_ACTIVE = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
redis.call('EXPIRE', KEYS[1], ARGV[3], 'NX')
redis.call('SET', KEYS[2], ARGV[2], 'EX', ARGV[4])
return 1
"""


# After a Redis fails, the log stays out of its way until then (by URL: another Redis is not paused).
_paused_until: dict[str, float] = {}


def _failed(exc: RedisError) -> None:
    _paused_until[settings.REDIS_URL] = time.time() + BACKOFF_SECONDS
    logger.warning("the access log is off for %.0f s: redis unavailable: %s", BACKOFF_SECONDS, exc)


@lru_cache(maxsize=8)
def _script(client: Redis) -> Script:
    return client.register_script(_RECORD_IF_ACTIVE)


def _stem(key_hash: str) -> str:
    return f"access:{key_hash[:32]}"


def _bucket(key_hash: str, hour: int) -> str:
    return f"{_stem(key_hash)}:{hour}"


def access_record(*, key_hash: str, endpoint: str, status: int, only_if_active: bool = False) -> None:
    """Count one call of the key with this hash (`ApiKey.key_hash`).

    Within a web request the count goes with the request's other bookkeeping writes at its end
    (core/redis_batch.py); `only_if_active` needs an answer first, so it is one script run at once.
    """
    now = time.time()
    if now < _paused_until.get(settings.REDIS_URL, 0.0):
        return
    hour = math.floor(now / HOUR_SECONDS)
    bucket, last = _bucket(key_hash, hour), f"{_stem(key_hash)}:last"
    line = f"{endpoint}{SEPARATOR}{status}"
    last_call = f"{now:.3f}{SEPARATOR}{line}"

    if not only_if_active:

        def add(pipe: Pipeline) -> None:
            pipe.hincrby(bucket, line, 1)
            pipe.expire(bucket, BUCKET_TTL_SECONDS, nx=True)
            pipe.set(last, last_call, ex=LAST_CALL_TTL_SECONDS)

        deferred(add, _failed)
        return
    try:
        _script(get_redis())(keys=[bucket, last], args=[line, last_call, BUCKET_TTL_SECONDS, LAST_CALL_TTL_SECONDS])
    except RedisError as exc:
        _failed(exc)


@dataclass(frozen=True)
class LastCall:
    at: datetime
    endpoint: str
    status: int


@dataclass
class AccessSummary:
    """What the console shows of one key."""

    available: bool
    rows: list[tuple[str, int, int]] = field(default_factory=list)  # endpoint, status, calls; most first
    hourly: list[tuple[datetime, int]] = field(default_factory=list)  # oldest hour first
    last_call: LastCall | None = None

    @property
    def total(self) -> int:
        return sum(calls for _, _, calls in self.rows)

    @property
    def errors(self) -> int:
        return sum(calls for _, status, calls in self.rows if status >= 400)


def access_summary(*, key_hash: str, now: float | None = None) -> AccessSummary:
    """The key's calls in the current hour and the 23 before it, and its last call."""
    now = time.time() if now is None else now
    hour = math.floor(now / HOUR_SECONDS)
    hours = list(range(hour - HOURS_KEPT + 1, hour + 1))
    try:
        pipe = get_redis().pipeline(transaction=False)
        for h in hours:
            pipe.hgetall(_bucket(key_hash, h))
        pipe.get(f"{_stem(key_hash)}:last")
        *buckets, last = pipe.execute()
    except RedisError as exc:
        logger.warning("access log unavailable: %s", exc)
        return AccessSummary(available=False)
    counts: Counter[tuple[str, int]] = Counter()
    hourly = []
    for h, bucket in zip(hours, buckets, strict=True):
        in_hour = 0
        for name, value in bucket.items():
            endpoint, _, status = name.rpartition(SEPARATOR)
            counts[(endpoint, int(status))] += int(value)
            in_hour += int(value)
        hourly.append((datetime.fromtimestamp(h * HOUR_SECONDS, UTC), in_hour))
    rows = sorted(((e, s, n) for (e, s), n in counts.items()), key=lambda row: (-row[2], row[0], row[1]))
    return AccessSummary(available=True, rows=rows, hourly=hourly, last_call=_last_call(last))


def _last_call(raw: str | None) -> LastCall | None:
    if not raw:
        return None
    at, endpoint, status = raw.split(SEPARATOR)
    return LastCall(datetime.fromtimestamp(float(at), UTC), endpoint, int(status))
