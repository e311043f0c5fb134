"""Bookkeeping writes to Redis that wait for the end of the request and go in one round trip.

A request makes several small writes that nothing reads back before it ends: its line in
its key's access log, its duration, its search's duration. Sent one by one they cost a
round trip each. Within `batched()` (a web request: ObservabilityMiddleware opens it, and
its own duration is the last write it takes) `deferred()` keeps a write, and the batch sends
them all in one pipeline when it closes, before the response leaves the process. Outside a
batch (a worker, a shell) a write is sent at once, as before.

A write that fails never fails the request: each write names its family's handler, which
steps its family aside for a while as it would have on its own. A write that needs its answer
(extraction's schedule claim) names what to do with it, run once the batch is back.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from redis.client import Pipeline
from redis.exceptions import RedisError

from memoryadmin.core.deferral import Deferral
from memoryadmin.core.redis_client import get_redis

logger = logging.getLogger(__name__)

Add = Callable[[Pipeline], None]
Failed = Callable[[RedisError], None]
# The answers to the commands its write put on the pipeline, in order.
Done = Callable[[list[Any]], None]
_Write = tuple[Add, Failed, Done | None]

_pending: Deferral[_Write] = Deferral("redis_batch")


def batched() -> AbstractContextManager[None]:
    """Writes deferred within the block are sent together when it ends (a nested block joins the outer one),
    whether or not the block raised: a failed request's bookkeeping counts too."""
    return _pending.block(_send, even_on_error=True)


def deferred(add: Add, failed: Failed, done: Done | None = None) -> None:
    """`add` puts its commands on the pipeline; sent with the batch, or at once outside one.

    `done`, if given, then gets those commands' answers (not when the batch failed: `failed` is told).
    """
    writes = _pending.pending()
    if writes is None:
        _send([(add, failed, done)])
    else:
        writes.append((add, failed, done))


def _send(writes: list[_Write]) -> None:
    if not writes:
        return
    spans: list[tuple[int, int, Done]] = []
    try:
        pipe = get_redis().pipeline(transaction=False)
        for add, _, done in writes:
            start = len(pipe)
            add(pipe)
            if done is not None:
                spans.append((start, len(pipe), done))
        answers = pipe.execute()
    except RedisError as error:
        for failed in dict.fromkeys(failed for _, failed, _ in writes):
            failed(error)
        return
    for start, end, done in spans:
        try:
            done(answers[start:end])
        except Exception:
            # One write's follow-up failing must not keep the others' from running, nor fail the request.
            logger.exception("a follow-up of a batched redis write failed")
