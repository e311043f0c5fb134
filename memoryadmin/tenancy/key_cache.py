"""Live API keys held by each process between requests, answered only while Redis says they still hold.

Every API request is counted in Redis before its key is looked up (`api.ratelimit`). The same round
trip reads the *key generation*: a random token under `GENERATION_KEY`, made by the first request
that finds none. Every change that could change what a key lookup answers (a key revoked, a namespace
edited) deletes the token once its transaction has committed, so the next request makes a new one.

A process keeps the rows it looked up together with the generation it read before the lookup, and
answers from them only while the request's generation is that same token. A token is random and made
only after the last deletion, so a row kept under the current token was read after every committed
and announced change: a revocation takes effect at the next request (one that starts between the
commit and the deletion, a moment, is still answered as before it).

What this cannot see bounds a row's age instead (`MAX_AGE_SECONDS`): a change that could not reach
Redis to delete the token (Redis unreachable at that moment), a deletion Redis lost (a failover to a
replica that had not received it, a restart from an older snapshot), one made outside the services
(SQL typed by hand, a data migration, a process of an older release during a rolling deploy). Without
a generation (rate limiting off, Redis unreachable) every request reads the row.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from redis.exceptions import RedisError

from memoryadmin.core.redis_client import get_redis
from memoryadmin.tenancy.models import ApiKey
from memoryadmin.tenancy.queries import api_key_from_row, api_key_live_row

logger = logging.getLogger(__name__)

GENERATION_KEY = "apikeys:generation"
MAX_AGE_SECONDS = 10.0
# Only live keys are kept, one entry each: a bound against a process that sees very many keys.
MAX_ENTRIES = 10_000


def new_generation() -> str:
    """What the counting script stores when it finds no generation."""
    return secrets.token_hex(16)


@dataclass
class _Entry:
    generation: str
    row: tuple
    read_at: float
    last_used_at: datetime | None


_entries: dict[str, _Entry] = {}
_lock = threading.Lock()
# The clock rows age by; a test moves it instead of waiting.
clock = time.monotonic


def api_key_live_cached(key_hash: str, generation: str | None) -> ApiKey | None:
    """The unrevoked key with this hash, its namespace loaded: from this process when it holds the row
    under `generation`, read from the database otherwise. Each call answers new objects."""
    now = clock()
    if generation:
        entry = _entries.get(key_hash)
        if entry is not None and entry.generation == generation and now - entry.read_at < MAX_AGE_SECONDS:
            key = api_key_from_row(entry.row)
            key.last_used_at = entry.last_used_at
            return key
    row = api_key_live_row(key_hash)
    if row is None:
        with _lock:
            _entries.pop(key_hash, None)
        return None
    key = api_key_from_row(row)
    if generation:
        with _lock:
            if len(_entries) >= MAX_ENTRIES and key_hash not in _entries:
                _entries.pop(next(iter(_entries), None), None)
            _entries[key_hash] = _Entry(generation, row, now, key.last_used_at)
    return key


def note_used(key_hash: str, used_at: datetime | None) -> None:
    """The key's last use as written, so that a kept row does not ask for the write again."""
    with _lock:
        entry = _entries.get(key_hash)
        if entry is not None:
            entry.last_used_at = used_at


def keys_changed() -> None:
    """A change to keys or namespaces: once it commits, no process answers from a row read before it."""
    transaction.on_commit(_new_generation_wanted, robust=True)


def keys_saved(**_: object) -> None:
    """A key's or a namespace's row saved or deleted through the ORM (`post_save`, `post_delete`)."""
    keys_changed()


def _new_generation_wanted() -> None:
    with _lock:
        _entries.clear()
    try:
        get_redis().delete(GENERATION_KEY)
    except RedisError as exc:
        logger.warning(
            "API keys kept by other processes answer for up to %.0f s more: redis unavailable: %s",
            MAX_AGE_SECONDS,
            exc,
        )
