"""Working memory: a session's volatile key-value state, a Redis hash with a TTL.

Key `wm:{namespace_id}:{session_id}`; each field holds one JSON-encoded value.
A marker field (a name no client can use, since keys never contain NUL) keeps
an empty state distinguishable from no state. Expiry is Redis's job, and no
update ever extends it: PATCH runs as a Lua script that reads the remaining
TTL, writes, and re-applies the TTL only when one was set.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from memoryadmin.core.errors import InvalidInput
from memoryadmin.core.personal_data import KeyFamily
from memoryadmin.core.redis_client import get_redis
from memoryadmin.core.storable_json import json_problem

MARKER = "\x00"
MAX_KEYS = 1000
MAX_KEY_CHARS = 256
MAX_TTL_SECONDS = 365 * 24 * 3600
_DELETE_CHUNK = 500

# KEYS[1] the hash; ARGV[1] the most keys and ARGV[2] the most bytes (keys and values) the state may hold;
# ARGV[3] number of fields to set, then field/value pairs, then the fields to delete. Returns nil when there
# is no state, {-1, keys} or {-2, bytes} (nothing written) when the merge would hold more than it may and more
# than it did (a state already past a limit, from before it or a lower setting, may still shrink), else
# {remaining ttl in ms, HGETALL}.
_PATCH = """
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -2 then return nil end
local n = tonumber(ARGV[3])
local keys = redis.call('HLEN', KEYS[1]) - 1
local bytes = 0
for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
  if field ~= '\\0' then bytes = bytes + #field + redis.call('HSTRLEN', KEYS[1], field) end
end
local old_keys, old_bytes = keys, bytes
for i = 0, n - 1 do
  local field, value = ARGV[4 + 2 * i], ARGV[5 + 2 * i]
  if redis.call('HEXISTS', KEYS[1], field) == 1 then
    bytes = bytes - redis.call('HSTRLEN', KEYS[1], field) + #value
  else
    keys = keys + 1
    bytes = bytes + #field + #value
  end
end
for i = 4 + 2 * n, #ARGV do
  if redis.call('HEXISTS', KEYS[1], ARGV[i]) == 1 then
    keys = keys - 1
    bytes = bytes - #ARGV[i] - redis.call('HSTRLEN', KEYS[1], ARGV[i])
  end
end
if keys > tonumber(ARGV[1]) and keys > old_keys then return {-1, keys} end
if bytes > tonumber(ARGV[2]) and bytes > old_bytes then return {-2, bytes} end
for i = 0, n - 1 do
  redis.call('HSET', KEYS[1], ARGV[4 + 2 * i], ARGV[5 + 2 * i])
end
for i = 4 + 2 * n, #ARGV do
  redis.call('HDEL', KEYS[1], ARGV[i])
end
if ttl > 0 then redis.call('PEXPIRE', KEYS[1], ttl) end
return {redis.call('PTTL', KEYS[1]), redis.call('HGETALL', KEYS[1])}
"""


def max_state_bytes() -> int:
    """The most a state may hold, its keys and JSON values in UTF-8: what one PUT's body may carry."""
    return settings.MAX_REQUEST_BYTES


@dataclass
class WorkingMemory:
    state: dict[str, Any]
    ttl_seconds: int | None


def working_memory_key(namespace_id: int, session_id: str) -> str:
    return f"wm:{namespace_id}:{session_id}"


def _clean_state(state: Mapping[str, Any], *, allow_null: bool) -> dict[str, Any]:
    if not isinstance(state, Mapping):
        raise InvalidInput("state must be an object", details={"field": "state"})
    if len(state) > MAX_KEYS:
        raise InvalidInput(f"state holds at most {MAX_KEYS} keys", details={"field": "state"})
    for key, value in state.items():
        if not isinstance(key, str) or not key or len(key) > MAX_KEY_CHARS or "\x00" in key:
            raise InvalidInput(
                f"state keys are 1 to {MAX_KEY_CHARS} characters without NUL", details={"field": "state"}
            )
        if value is None and not allow_null:
            raise InvalidInput("state values must not be null here; leave the key out", details={"field": key})
        if problem := json_problem(value, strings=False):
            raise InvalidInput(f"state values {problem}", details={"field": key})
    return dict(state)


def _clean_ttl(ttl_seconds: int) -> int:
    if isinstance(ttl_seconds, bool) or not isinstance(ttl_seconds, int) or not 1 <= ttl_seconds <= MAX_TTL_SECONDS:
        raise InvalidInput(f"ttl_seconds must be between 1 and {MAX_TTL_SECONDS}", details={"field": "ttl_seconds"})
    return ttl_seconds


def _decode(fields: Mapping[str, str]) -> dict[str, Any]:
    return {key: json.loads(value) for key, value in fields.items() if key != MARKER}


def _encode(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _seconds(pttl: int) -> int | None:
    return None if pttl < 0 else math.ceil(pttl / 1000)


def working_memory_get(*, namespace_id: int, session_id: str) -> WorkingMemory | None:
    pipe = get_redis().pipeline(transaction=True)
    key = working_memory_key(namespace_id, session_id)
    pipe.hgetall(key)
    pipe.pttl(key)
    fields, pttl = pipe.execute()
    if not fields:
        return None
    return WorkingMemory(_decode(fields), _seconds(pttl))


def working_memory_put(
    *, namespace_id: int, session_id: str, state: Mapping[str, Any], ttl_seconds: int
) -> WorkingMemory:
    """Replace the state and start a fresh TTL."""
    state = _clean_state(state, allow_null=True)
    ttl_seconds = _clean_ttl(ttl_seconds)
    key = working_memory_key(namespace_id, session_id)
    mapping = {MARKER: "1", **{k: _encode(v) for k, v in state.items()}}
    pipe = get_redis().pipeline(transaction=True)
    pipe.delete(key)
    pipe.hset(key, mapping=mapping)
    pipe.expire(key, ttl_seconds)
    pipe.execute()
    return WorkingMemory(state, ttl_seconds)


def working_memory_patch(*, namespace_id: int, session_id: str, changes: Mapping[str, Any]) -> WorkingMemory | None:
    """Merge `changes` (a None value removes the key), keeping the remaining TTL; None when there is no state."""
    changes = _clean_state(changes, allow_null=True)
    to_set = [(k, _encode(v)) for k, v in changes.items() if v is not None]
    to_delete = [k for k, v in changes.items() if v is None]
    args: list[Any] = [MAX_KEYS, max_state_bytes(), len(to_set)]
    for field, value in to_set:
        args.extend((field, value))
    args.extend(to_delete)
    patch = get_redis().register_script(_PATCH)
    result = patch(keys=[working_memory_key(namespace_id, session_id)], args=args)
    if result is None:
        return None
    pttl, flat = result
    if pttl == -1 and isinstance(flat, int):
        raise InvalidInput(
            f"state holds at most {MAX_KEYS} keys; merged, it would hold {flat}", details={"field": "state"}
        )
    if pttl == -2 and isinstance(flat, int):
        raise InvalidInput(
            f"state holds at most {max_state_bytes()} bytes; merged, it would hold {flat}", details={"field": "state"}
        )
    fields = dict(zip(flat[::2], flat[1::2], strict=True))
    return WorkingMemory(_decode(fields), _seconds(pttl))


def working_memory_delete(*, namespace_id: int, session_id: str) -> bool:
    return bool(get_redis().delete(working_memory_key(namespace_id, session_id)))


def working_memory_delete_for_sessions(namespace_id: int, session_ids: Iterable[str]) -> int:
    """Remove the working memory of these sessions (erasure, session deletion); returns keys removed."""
    redis = get_redis()
    keys = [working_memory_key(namespace_id, session_id) for session_id in session_ids]
    removed = 0
    for start in range(0, len(keys), _DELETE_CHUNK):
        removed += redis.delete(*keys[start : start + _DELETE_CHUNK])
    return removed


# The keys a person's sessions hold here, for erasure (see core.personal_data).
WORKING_MEMORY_KEYS = KeyFamily(
    store="working_memory_keys",
    keys=lambda namespace_id, sessions: [working_memory_key(namespace_id, s.session_id) for s in sessions],
    clear=lambda namespace_id, sessions: working_memory_delete_for_sessions(
        namespace_id, [s.session_id for s in sessions]
    ),
)
