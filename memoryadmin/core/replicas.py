"""Read replicas: reads that tolerate lag go to a streaming replica, everything else to the primary.

Routing is opt-in. Only code run inside `lag_tolerant` (the views of search, lists, console pages,
exports and the dashboard) reads from a replica; everything else, and anything inside a transaction
on the primary (so `select_for_update`, get-then-update, key and session lookups, rate limits), reads
from the primary. Without `DATABASE_REPLICA_URLS` none of this runs and every read is on the primary.

Read-your-writes: after a write request, the caller's (API key's or operator's) position in the
primary's WAL is kept in Redis for DATABASE_REPLICA_READ_YOUR_WRITES_SECONDS; until a replica has
replayed past it, that caller's reads stay on the primary. A replica further behind than
DATABASE_REPLICA_MAX_LAG_SECONDS is skipped, so once the mark expires the replica holds the write:
no read is ever older than the caller's own write.

A replica that cannot be reached is skipped for DATABASE_REPLICA_RETRY_SECONDS (by this process: a
dead replica costs one connect timeout per process and period, not one per request), and a read
that fails on a replica mid-way is done again on the primary.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import logging
import random
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections
from django.http import HttpRequest, HttpResponse
from redis.exceptions import RedisError

from memoryadmin.core.redis_client import get_redis

log = logging.getLogger(__name__)

WRITTEN_KEY = "replicas:written:"
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# A replica cancels a query whose rows its replay must remove (SQLSTATE 40001): read again on the primary.
RECOVERY_CONFLICT = "40001"

# A replica's position and lag: `pg_last_xact_replay_timestamp()` is the commit time of the last
# transaction replayed, so a replica that has replayed everything the primary wrote lags by 0.
_STATUS_SQL = """
    SELECT pg_is_in_recovery(),
           (pg_last_wal_replay_lsn() - '0/0')::bigint,
           EXTRACT(EPOCH FROM clock_timestamp() - pg_last_xact_replay_timestamp())::float8
"""


def replica_aliases() -> list[str]:
    return list(getattr(settings, "DATABASE_REPLICAS", ()))


@dataclass
class ReplicaStatus:
    """What this process last learnt of a replica."""

    alias: str
    state: str  # "ok", "lagging", "down" (unreachable) or "not_replica" (promoted, or a primary)
    lag_seconds: float | None = None
    replay_lsn: int | None = None
    checked_at: float = 0.0
    retry_at: float = 0.0

    @property
    def used(self) -> bool:
        return self.state == "ok"

    def as_dict(self) -> dict[str, Any]:
        lag = None if self.lag_seconds is None else round(self.lag_seconds, 3)
        return {"name": self.alias, "state": self.state, "lag_seconds": lag, "used": self.used}


_statuses: dict[str, ReplicaStatus] = {}
_statuses_lock = threading.Lock()


def _primary_lsn() -> int:
    with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
        cursor.execute("SELECT (pg_current_wal_lsn() - '0/0')::bigint")
        return int(cursor.fetchone()[0])


def _close_quietly(alias: str) -> None:
    with contextlib.suppress(Exception):
        connections[alias].close()


def replica_unreachable(alias: str) -> None:
    """Skip `alias` for DATABASE_REPLICA_RETRY_SECONDS, in this process."""
    now = time.monotonic()
    _close_quietly(alias)
    with _statuses_lock:
        _statuses[alias] = ReplicaStatus(
            alias, "down", checked_at=now, retry_at=now + settings.DATABASE_REPLICA_RETRY_SECONDS
        )
    log.warning("replica %s is unreachable: reads go to the primary", alias)


def _probe(alias: str) -> ReplicaStatus:
    now = time.monotonic()
    try:
        primary = _primary_lsn()
    except DatabaseError:
        # The primary is the trouble, not the replica: say nothing new of it.
        return _statuses.get(alias) or ReplicaStatus(alias, "down", checked_at=now, retry_at=now)
    try:
        with connections[alias].cursor() as cursor:
            cursor.execute(_STATUS_SQL)
            in_recovery, replay_lsn, since_replay = cursor.fetchone()
    except DatabaseError:
        replica_unreachable(alias)
        return _statuses[alias]
    if not in_recovery:
        status = ReplicaStatus(alias, "not_replica", checked_at=now)
    else:
        lag = 0.0 if replay_lsn is not None and replay_lsn >= primary else since_replay
        lagging = lag is None or lag > settings.DATABASE_REPLICA_MAX_LAG_SECONDS
        status = ReplicaStatus(alias, "lagging" if lagging else "ok", lag, replay_lsn, checked_at=now)
    with _statuses_lock:
        _statuses[alias] = status
    return status


def replica_status(alias: str) -> ReplicaStatus:
    """The replica's state, checked again when older than DATABASE_REPLICA_CHECK_SECONDS.

    An unreachable replica is not tried again before its retry time.
    """
    now = time.monotonic()
    known = _statuses.get(alias)
    if known is not None:
        if known.state == "down":
            with _statuses_lock:
                if now < known.retry_at:
                    return known
                # One thread tries the replica again; the others keep skipping it meanwhile, so a
                # replica that does not answer costs one connect timeout, not one per request.
                known.retry_at = now + settings.DATABASE_REPLICA_RETRY_SECONDS
        elif now - known.checked_at < settings.DATABASE_REPLICA_CHECK_SECONDS:
            return known
    return _probe(alias)


def replica_statuses() -> list[dict[str, Any]]:
    """Every configured replica: name, state, lag and whether lag-tolerant reads use it."""
    return [replica_status(alias).as_dict() for alias in replica_aliases()]


def _replayed_past(alias: str, lsn: int) -> bool:
    """Whether the replica has replayed `lsn`, asked of the replica itself (a write of this caller is recent)."""
    known = _statuses.get(alias)
    if known is not None and known.replay_lsn is not None and known.replay_lsn >= lsn:
        return True
    try:
        with connections[alias].cursor() as cursor:
            cursor.execute("SELECT (pg_last_wal_replay_lsn() - '0/0')::bigint")
            replayed = cursor.fetchone()[0]
    except DatabaseError:
        replica_unreachable(alias)
        return False
    if known is not None and replayed is not None and (known.replay_lsn or 0) < replayed:
        known.replay_lsn = replayed
    return replayed is not None and replayed >= lsn


# --- who reads: the caller whose writes a read must see ---------------------------------------------


def actor_key(request: HttpRequest) -> str | None:
    """The caller of a request: its API key, or its signed-in operator; None for anyone else."""
    key = getattr(request, "api_key", None)
    if key is not None:
        return f"key:{key.pk}"
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return f"user:{user.pk}"
    return None


def written_lsn(actor: str) -> int | None:
    """The primary's WAL position after the caller's last write, while it is remembered."""
    raw = get_redis().get(WRITTEN_KEY + actor)
    return int(raw) if raw is not None else None


def write_remember(actor: str) -> None:
    """Note where the primary's WAL is now, after the caller's write committed."""
    lsn = _primary_lsn()
    seconds = max(1, round(settings.DATABASE_REPLICA_READ_YOUR_WRITES_SECONDS))
    # Only ever moved forward: a slower request of the same caller must not lower the mark.
    get_redis().eval(
        "local old = tonumber(redis.call('GET', KEYS[1]) or '0') "
        "if tonumber(ARGV[1]) > old then redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2]) "
        "else redis.call('EXPIRE', KEYS[1], ARGV[2]) end return 1",
        1,
        WRITTEN_KEY + actor,
        lsn,
        seconds,
    )


class ReadYourWritesMiddleware:
    """After a write request, remember the caller's position in the primary's WAL (only with replicas)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if request.method in UNSAFE_METHODS and replica_aliases() and not getattr(request, "lag_tolerant", False):
            actor = actor_key(request)
            if actor is not None:
                try:
                    write_remember(actor)
                except (DatabaseError, RedisError):
                    # Without the mark, this caller's reads could be older than its write: refuse them
                    # the replicas rather than answer stale (lag_tolerant reads the mark and fails safe).
                    log.warning("could not record a write's WAL position for %s", actor, exc_info=True)
                    _remember_failed(actor)
        return response


# Callers whose last write could not be marked in Redis: this process keeps them on the primary.
_unmarked: dict[str, float] = {}


def _remember_failed(actor: str) -> None:
    _unmarked[actor] = time.monotonic() + settings.DATABASE_REPLICA_READ_YOUR_WRITES_SECONDS


# --- routing ----------------------------------------------------------------------------------------


@dataclass
class _Reading:
    actor: str | None
    alias: str | None = None


_reading: ContextVar[_Reading | None] = ContextVar("replica_reading", default=None)


def _choose(reading: _Reading) -> str:
    aliases = replica_aliases()
    if not aliases:
        return DEFAULT_DB_ALIAS
    mark: int | None = None
    if reading.actor is not None:
        if _unmarked.get(reading.actor, 0.0) > time.monotonic():
            return DEFAULT_DB_ALIAS
        try:
            mark = written_lsn(reading.actor)
        except RedisError:
            # Whether this caller wrote lately is unknown: the primary is never stale.
            return DEFAULT_DB_ALIAS
    start = random.randrange(len(aliases))
    for alias in aliases[start:] + aliases[:start]:
        if not replica_status(alias).used:
            continue
        if mark is not None and not _replayed_past(alias, mark):
            continue
        return alias
    return DEFAULT_DB_ALIAS


def read_alias() -> str:
    """The database a read made here goes to: a replica inside `lag_tolerant`, else the primary.

    Inside a transaction on the primary it is always the primary, whatever the caller asked.
    """
    reading = _reading.get()
    if reading is None or connections[DEFAULT_DB_ALIAS].in_atomic_block:
        return DEFAULT_DB_ALIAS
    if reading.alias is None:
        reading.alias = _choose(reading)
    return reading.alias


def read_connection() -> Any:
    """The connection of `read_alias()`, for reads written in SQL."""
    return connections[read_alias()]


@contextlib.contextmanager
def lag_tolerant(actor: str | None = None) -> Iterator[None]:
    """Reads made inside may come from a replica (one, for the whole block), unless `actor` wrote lately."""
    if not replica_aliases():
        yield
        return
    token = _reading.set(_Reading(actor))
    try:
        yield
    finally:
        _reading.reset(token)


def lag_tolerant_view[F: Callable[..., Any]](view: F) -> F:
    """A view (or any function taking the request first) whose reads tolerate lag.

    A read that fails on the replica (stopped, restarted, cut off) is done again on the primary,
    and the replica is skipped for a while: the caller sees no error.
    """

    @functools.wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
        if not replica_aliases():
            return view(request, *args, **kwargs)
        request.lag_tolerant = True  # type: ignore[attr-defined]
        reading = _Reading(actor_key(request))
        token = _reading.set(reading)
        try:
            try:
                return view(request, *args, **kwargs)
            except DatabaseError as exc:
                failed = reading.alias
                if failed is None or failed == DEFAULT_DB_ALIAS:
                    raise
                if not _usable(failed):
                    replica_unreachable(failed)
                elif getattr(exc.__cause__, "sqlstate", None) != RECOVERY_CONFLICT:
                    raise
                reading.alias = DEFAULT_DB_ALIAS
                return view(request, *args, **kwargs)
        finally:
            _reading.reset(token)

    # The API reads a handler's parameters from its signature: resolved here, in the view's own module.
    wrapped.__signature__ = inspect.signature(view, eval_str=True)  # type: ignore[attr-defined]
    return wrapped  # type: ignore[return-value]


def lag_tolerant_stream[T](request: HttpRequest, chunks: Iterable[T]) -> Iterator[T]:
    """`chunks` (a response's body, produced as it is sent) read as `lag_tolerant_view` reads.

    All of it from the one database chosen for its first read. A replica failing half-way ends the
    stream, as the primary failing would: bytes already sent cannot be taken back.
    """
    if not replica_aliases():
        yield from chunks
        return
    reading = _Reading(actor_key(request))
    iterator = iter(chunks)
    while True:
        token = _reading.set(reading)
        try:
            chunk = next(iterator)
        except StopIteration:
            return
        finally:
            _reading.reset(token)
        yield chunk


def _usable(alias: str) -> bool:
    """Whether the replica still answers (so a failed read was not its fault).

    A connection that never opened (a connect timeout) or was cut is not tried again here: that
    would cost a second timeout.
    """
    current = connections[alias].connection
    if current is None or getattr(current, "closed", True) or getattr(current, "broken", False):
        return False
    try:
        with connections[alias].cursor() as cursor:
            cursor.execute("SELECT 1")
        return True
    except DatabaseError:
        return False


class ReplicaRouter:
    """Django's router: reads follow `read_alias()`, writes and migrations go to the primary."""

    def db_for_read(self, model: type, **hints: Any) -> str:
        return read_alias()

    def db_for_write(self, model: type, **hints: Any) -> str:
        return DEFAULT_DB_ALIAS

    def allow_relation(self, obj1: Any, obj2: Any, **hints: Any) -> bool:
        # The replicas hold the primary's rows: an object read from one relates to any other.
        return True

    def allow_migrate(self, db: str, app_label: str, model_name: str | None = None, **hints: Any) -> bool:
        return db == DEFAULT_DB_ALIAS
