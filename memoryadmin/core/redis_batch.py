"""Bookkeeping writes to Redis that wait for the end of the request and go in one round trip.

A request makes several small writes that nothing reads back before it ends: its line in
its key's access log, its duration, its search's duration. Sent one by one they cost a
round trip each. Within `batched()` (a web request: ObservabilityMiddleware opens it, and
its own duration is the last write it takes) `deferred()` keeps a write, and the batch sends
them all in one pipeline when it closes, before the response leaves the process. Outside a
batch (a worker, a shell) a write is sent at once, as before.

A write that fails never fails the request: each write names its family's handler, which
steps its family aside for a while as it would have on its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from redis.client import Pipeline
from redis.exceptions import RedisError

from memoryadmin.core.redis_client import get_redis

Add = Callable[[Pipeline], None]
Failed = Callable[[RedisError], None]

_pending: ContextVar[list[tuple[Add, Failed]] | None] = ContextVar("redis_batch", default=None)


@contextmanager
def batched() -> Iterator[None]:
    """Writes deferred within the block are sent together when it ends (a nested block joins the outer one)."""
    if _pending.get() is not None:
        yield
        return
    writes: list[tuple[Add, Failed]] = []
    token = _pending.set(writes)
    try:
        yield
    finally:
        _pending.reset(token)
        _send(writes)


def deferred(add: Add, failed: Failed) -> None:
    """`add` puts its commands on the pipeline; sent with the batch, or at once outside one."""
    writes = _pending.get()
    if writes is None:
        _send([(add, failed)])
    else:
        writes.append((add, failed))


def _send(writes: list[tuple[Add, Failed]]) -> None:
    if not writes:
        return
    try:
        pipe = get_redis().pipeline(transaction=False)
        for add, _ in writes:
            add(pipe)
        pipe.execute()
    except RedisError as error:
        for failed in dict.fromkeys(failed for _, failed in writes):
            failed(error)
