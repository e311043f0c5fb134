from __future__ import annotations

import pytest

from memoryadmin.conversations.working_memory import (
    working_memory_delete_for_sessions,
    working_memory_get,
    working_memory_key,
    working_memory_patch,
    working_memory_put,
)
from memoryadmin.core.errors import InvalidInput


def test_it_stores_state_with_a_ttl(redis_client) -> None:
    working_memory_put(namespace_id=1, session_id="s1", state={"step": 2, "cart": ["tea"]}, ttl_seconds=60)
    found = working_memory_get(namespace_id=1, session_id="s1")
    assert found is not None
    assert found.state == {"step": 2, "cart": ["tea"]}
    assert 59 <= found.ttl_seconds <= 60
    assert 0 < redis_client.ttl("wm:1:s1") <= 60


def test_an_empty_state_is_still_a_state() -> None:
    working_memory_put(namespace_id=1, session_id="s1", state={}, ttl_seconds=60)
    found = working_memory_get(namespace_id=1, session_id="s1")
    assert found is not None
    assert found.state == {}


def test_put_replaces_the_state() -> None:
    working_memory_put(namespace_id=1, session_id="s1", state={"a": 1}, ttl_seconds=60)
    working_memory_put(namespace_id=1, session_id="s1", state={"b": 2}, ttl_seconds=60)
    assert working_memory_get(namespace_id=1, session_id="s1").state == {"b": 2}


def test_patch_merges_removes_and_keeps_the_remaining_ttl(redis_client) -> None:
    working_memory_put(namespace_id=1, session_id="s1", state={"a": 1, "b": 2}, ttl_seconds=100)
    redis_client.pexpire(working_memory_key(1, "s1"), 40_000)
    patched = working_memory_patch(namespace_id=1, session_id="s1", changes={"a": None, "c": {"x": 1}})
    assert patched.state == {"b": 2, "c": {"x": 1}}
    assert 0 < redis_client.pttl("wm:1:s1") <= 40_000
    assert patched.ttl_seconds <= 40


def test_patch_does_not_bring_expired_state_back(redis_client) -> None:
    assert working_memory_patch(namespace_id=1, session_id="gone", changes={"a": 1}) is None
    assert not redis_client.exists("wm:1:gone")


def test_it_refuses_bad_keys_and_ttls() -> None:
    with pytest.raises(InvalidInput):
        working_memory_put(namespace_id=1, session_id="s1", state={"": 1}, ttl_seconds=60)
    with pytest.raises(InvalidInput):
        working_memory_put(namespace_id=1, session_id="s1", state={"a\x00": 1}, ttl_seconds=60)
    with pytest.raises(InvalidInput):
        working_memory_put(namespace_id=1, session_id="s1", state={"a": 1}, ttl_seconds=0)


def test_it_deletes_the_state_of_many_sessions(redis_client) -> None:
    for session_id in ("s1", "s2", "s3"):
        working_memory_put(namespace_id=1, session_id=session_id, state={"a": 1}, ttl_seconds=60)
    working_memory_put(namespace_id=2, session_id="s1", state={"a": 1}, ttl_seconds=60)
    assert working_memory_delete_for_sessions(1, ["s1", "s2", "nope"]) == 2
    assert redis_client.exists("wm:1:s3", "wm:2:s1") == 2
