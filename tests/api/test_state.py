from __future__ import annotations

import pytest

from memoryadmin.conversations.working_memory import working_memory_key


@pytest.fixture
def session(api):
    api.put("/api/v1/sessions/s1", {"user_id": "alice"})
    return "s1"


def test_it_has_no_state_at_first(api, session) -> None:
    r = api.get("/api/v1/sessions/s1/state")
    assert r.status_code == 404
    assert r.json()["error"]["code"] == "not_found"


def test_it_replaces_and_reads_state(api, session, redis_client, namespace) -> None:
    r = api.put("/api/v1/sessions/s1/state", {"state": {"step": 1, "cart": ["tea"]}, "ttl_seconds": 120})
    assert r.status_code == 200
    assert r.json() == {"state": {"step": 1, "cart": ["tea"]}, "ttl_seconds": 120}
    r = api.get("/api/v1/sessions/s1/state")
    assert r.json()["state"] == {"step": 1, "cart": ["tea"]}
    assert 0 < redis_client.ttl(working_memory_key(namespace.pk, "s1")) <= 120


def test_put_uses_the_namespace_ttl_by_default(
    api, session, namespace, redis_client, django_capture_on_commit_callbacks
) -> None:
    # Saved as anywhere else: the API's processes read the namespace again once the change commits.
    with django_capture_on_commit_callbacks(execute=True):
        namespace.working_memory_ttl_seconds = 900
        namespace.save()
    api.put("/api/v1/sessions/s1/state", {"state": {"a": 1}})
    assert 890 < redis_client.ttl(working_memory_key(namespace.pk, "s1")) <= 900


def test_patch_merges_and_keeps_the_remaining_ttl(api, session, namespace, redis_client) -> None:
    api.put("/api/v1/sessions/s1/state", {"state": {"a": 1, "b": 2}, "ttl_seconds": 600})
    key = working_memory_key(namespace.pk, "s1")
    redis_client.expire(key, 30)
    r = api.patch("/api/v1/sessions/s1/state", {"state": {"a": None, "c": "new"}})
    assert r.status_code == 200
    assert r.json()["state"] == {"b": 2, "c": "new"}
    ttl = redis_client.ttl(key)
    assert 0 < ttl <= 30
    assert r.json()["ttl_seconds"] <= 30


def test_patch_keeps_the_state_within_what_a_put_may_hold(api, session) -> None:
    full = {f"k{i}": i for i in range(1000)}
    assert api.put("/api/v1/sessions/s1/state", {"state": full, "ttl_seconds": 600}).status_code == 200
    # A key more is refused, and nothing of that patch is written.
    r = api.patch("/api/v1/sessions/s1/state", {"state": {"k0": "changed", "extra": 1}})
    assert r.status_code == 422, r.content
    assert "at most 1000 keys" in r.json()["error"]["message"]
    assert api.get("/api/v1/sessions/s1/state").json()["state"] == full
    # Changing keys, or removing one for each added, stays within it.
    r = api.patch("/api/v1/sessions/s1/state", {"state": {"k0": "changed", "k1": None, "extra": 1}})
    assert r.status_code == 200, r.content
    assert len(r.json()["state"]) == 1000 and r.json()["state"]["extra"] == 1
    # What the state reads back can be put again.
    state = api.get("/api/v1/sessions/s1/state").json()["state"]
    assert api.put("/api/v1/sessions/s1/state", {"state": state, "ttl_seconds": 600}).status_code == 200


def test_a_state_past_a_limit_may_still_shrink(api, session, settings, redis_client, namespace) -> None:
    from memoryadmin.conversations.working_memory import working_memory_key

    # Grown past the limit before it held (or under a higher setting): 1,200 keys.
    key = working_memory_key(namespace.pk, "s1")
    redis_client.hset(key, mapping={"\x00": "1", **{f"k{i}": "1" for i in range(1200)}})
    redis_client.expire(key, 600)
    r = api.patch("/api/v1/sessions/s1/state", {"state": {"k0": None, "k1": None}})
    assert r.status_code == 200, r.content
    assert len(r.json()["state"]) == 1198
    assert api.patch("/api/v1/sessions/s1/state", {"state": {"new": 1}}).status_code == 422


def test_patch_keeps_the_state_within_the_bytes_a_put_may_carry(api, session, settings) -> None:
    settings.MAX_REQUEST_BYTES = 4096
    assert api.put("/api/v1/sessions/s1/state", {"state": {"notes": "x" * 3000}, "ttl_seconds": 600}).status_code == 200
    r = api.patch("/api/v1/sessions/s1/state", {"state": {"more": "y" * 2000}})
    assert r.status_code == 422, r.content
    assert "at most 4096 bytes" in r.json()["error"]["message"]
    assert set(api.get("/api/v1/sessions/s1/state").json()["state"]) == {"notes"}
    # Replacing the large value with a smaller one makes room.
    r = api.patch("/api/v1/sessions/s1/state", {"state": {"notes": "short", "more": "y" * 2000}})
    assert r.status_code == 200, r.content


def test_patch_of_missing_state_is_404_and_creates_nothing(api, session, namespace, redis_client) -> None:
    r = api.patch("/api/v1/sessions/s1/state", {"state": {"a": 1}})
    assert r.status_code == 404
    assert not redis_client.exists(working_memory_key(namespace.pk, "s1"))


def test_it_deletes_state(api, session) -> None:
    api.put("/api/v1/sessions/s1/state", {"state": {"a": 1}})
    assert api.delete("/api/v1/sessions/s1/state").status_code == 204
    assert api.get("/api/v1/sessions/s1/state").status_code == 404


def test_it_validates_state(api, session) -> None:
    assert api.put("/api/v1/sessions/s1/state", {"state": {"a": 1}, "ttl_seconds": 0}).status_code == 422
    assert api.put("/api/v1/sessions/s1/state", {"state": []}).status_code == 422
    assert api.put("/api/v1/sessions/s1/state", {"state": {"": 1}}).status_code == 422
    assert api.put("/api/v1/sessions/s1/state", {}).status_code == 422


@pytest.mark.parametrize("number", [10**30, -(10**19), 1e30])
def test_a_number_beyond_64_bits_is_refused_and_the_state_stays_readable(api, session, number) -> None:
    api.put("/api/v1/sessions/s1/state", {"state": {"a": 1}})
    for write in (api.put, api.patch):
        r = write("/api/v1/sessions/s1/state", {"state": {"big": number}})
        assert r.status_code == 422
        assert r.json()["error"]["details"]["fields"][0]["field"].startswith("state")
    r = api.get("/api/v1/sessions/s1/state")
    assert (r.status_code, r.json()["state"]) == (200, {"a": 1})


def test_state_needs_the_session(api) -> None:
    for method in ("get", "delete"):
        assert getattr(api, method)("/api/v1/sessions/nope/state").status_code == 404
    assert api.put("/api/v1/sessions/nope/state", {"state": {}}).status_code == 404
    assert api.patch("/api/v1/sessions/nope/state", {"state": {}}).status_code == 404


def test_redis_down_is_503_and_the_rest_keeps_working(api, session, settings) -> None:
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    r = api.get("/api/v1/sessions/s1/state")
    assert r.status_code == 503
    assert r.json()["error"]["code"] == "redis_unavailable"
    assert api.put("/api/v1/sessions/s1/state", {"state": {"a": 1}}).status_code == 503
    assert api.get("/api/v1/sessions/s1").status_code == 200
    assert (
        api.post("/api/v1/sessions/s1/messages", {"messages": [{"role": "user", "content": "hi"}]}).status_code == 201
    )
