"""The key lookup every API request starts with."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from memoryadmin.tenancy import key_cache
from memoryadmin.tenancy.key_cache import GENERATION_KEY
from memoryadmin.tenancy.models import ApiKey, Namespace, hash_api_key
from memoryadmin.tenancy.queries import api_key_live
from memoryadmin.tenancy.services import api_key_revoke, namespace_update
from tests.conftest import SYSTEM, ApiClient


def test_it_loads_the_key_with_its_namespace_in_one_query(make_namespace, make_key, django_assert_num_queries) -> None:
    namespace = make_namespace("loaded", extraction_strategy="discrete")
    # A JSON column: read back as data, not as its text.
    Namespace.objects.filter(pk=namespace.pk).update(extraction_config={"max_memories": 3})
    key, raw = make_key(namespace, scopes="read,write")
    with django_assert_num_queries(1):
        found = api_key_live(hash_api_key(raw))
        assert (found.pk, found.prefix, sorted(found.scopes)) == (key.pk, key.prefix, ["read", "write"])
        assert found.namespace == namespace
        assert found.namespace.extraction_config == {"max_memories": 3}
        assert found.namespace.extraction_strategy == "discrete"


def test_a_key_revoked_after_use_is_refused_on_the_very_next_request(
    namespace, make_key, django_capture_on_commit_callbacks
) -> None:
    key, raw = make_key(namespace)
    client = ApiClient(raw)
    assert client.get("/api/v1/sessions").status_code == 200
    assert client.get("/api/v1/sessions").status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        api_key_revoke(key=key, actor=SYSTEM)
    assert client.get("/api/v1/sessions").status_code == 401
    assert api_key_live(hash_api_key(raw)) is None


@contextmanager
def another_process() -> Iterator[None]:
    """What runs inside happens as in another process: this one's kept rows are as they were before."""
    kept = dict(key_cache._entries)
    yield
    key_cache._entries.clear()
    key_cache._entries.update(kept)


def test_a_revocation_in_another_process_is_refused_here_at_the_next_request(
    namespace, make_key, redis_client, django_capture_on_commit_callbacks
) -> None:
    key, raw = make_key(namespace)
    client = ApiClient(raw)
    assert key_reads(client) == 1
    assert key_reads(client) == 0
    with another_process(), django_capture_on_commit_callbacks(execute=True):
        api_key_revoke(key=key, actor=SYSTEM)
    assert redis_client.exists(GENERATION_KEY) == 0
    assert client.get("/api/v1/sessions").status_code == 401


def key_reads(client: ApiClient, path: str = "/api/v1/sessions") -> int:
    """How many times a request read its key from the database (it answered 200)."""
    with CaptureQueriesContext(connection) as captured:
        assert client.get(path).status_code == 200
    return sum("key_hash" in query["sql"] for query in captured.captured_queries)


def test_a_process_answers_a_key_it_read_under_the_same_generation_without_a_query(namespace, make_key) -> None:
    _, raw = make_key(namespace)
    client = ApiClient(raw)
    assert key_reads(client) == 1
    assert [key_reads(client) for _ in range(3)] == [0, 0, 0]
    # Another key is read once too: what a process keeps is per key.
    assert key_reads(ApiClient(make_key(namespace)[1])) == 1


def test_a_change_committed_by_another_process_is_seen_at_the_next_request(namespace, make_key, redis_client) -> None:
    key, raw = make_key(namespace)
    client = ApiClient(raw)
    assert key_reads(client) == 1
    # Another process revokes the key: its transaction commits, then it deletes the generation.
    ApiKey.objects.filter(pk=key.pk).update(revoked_at=timezone.now())
    redis_client.delete(GENERATION_KEY)
    assert client.get("/api/v1/sessions").status_code == 401


def test_a_change_no_process_announced_is_seen_once_the_row_is_too_old(namespace, make_key, monkeypatch) -> None:
    key, raw = make_key(namespace)
    client = ApiClient(raw)
    now = key_cache.clock()
    monkeypatch.setattr(key_cache, "clock", lambda: now)
    assert key_reads(client) == 1
    # SQL typed by hand: nothing tells Redis, so the row this process holds answers a while longer...
    ApiKey.objects.filter(pk=key.pk).update(revoked_at=timezone.now())
    monkeypatch.setattr(key_cache, "clock", lambda: now + key_cache.MAX_AGE_SECONDS - 0.5)
    assert client.get("/api/v1/sessions").status_code == 200
    # ...and no longer than that.
    monkeypatch.setattr(key_cache, "clock", lambda: now + key_cache.MAX_AGE_SECONDS)
    assert client.get("/api/v1/sessions").status_code == 401


def test_a_namespace_edit_is_read_with_the_key_at_the_next_request(
    namespace, make_key, redis_client, django_capture_on_commit_callbacks
) -> None:
    _, raw = make_key(namespace)
    client = ApiClient(raw)
    assert key_reads(client) == 1
    assert key_reads(client) == 0
    with another_process(), django_capture_on_commit_callbacks(execute=True):
        namespace_update(namespace=namespace, actor=SYSTEM, working_memory_ttl_seconds=120)
    assert redis_client.exists(GENERATION_KEY) == 0
    assert key_reads(client) == 1
    # Saved through the ORM anywhere else (a shell): announced the same way.
    with another_process(), django_capture_on_commit_callbacks(execute=True):
        Namespace.objects.get(pk=namespace.pk).save()
    assert redis_client.exists(GENERATION_KEY) == 0
    assert key_reads(client) == 1
    # An edit that changes nothing commits nothing to announce.
    with django_capture_on_commit_callbacks(execute=True):
        namespace_update(namespace=namespace, actor=SYSTEM, working_memory_ttl_seconds=120)
    assert key_reads(client) == 0


def test_a_change_rolled_back_announces_nothing(namespace, make_key, django_capture_on_commit_callbacks) -> None:
    key, raw = make_key(namespace)
    client = ApiClient(raw)
    assert key_reads(client) == 1

    class Abandoned(Exception):
        pass

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        try:
            with transaction.atomic():
                api_key_revoke(key=key, actor=SYSTEM)
                raise Abandoned
        except Abandoned:
            pass
    assert callbacks == []
    assert key_reads(client) == 0


def test_without_a_generation_every_request_reads_its_key(namespace, make_key, settings, redis_client) -> None:
    _, raw = make_key(namespace)
    client = ApiClient(raw)
    settings.API_RATE_LIMIT_PER_MINUTE = 0
    assert [key_reads(client) for _ in range(2)] == [1, 1]
    settings.API_RATE_LIMIT_PER_MINUTE = 6000
    assert [key_reads(client) for _ in range(2)] == [1, 0]
    # Redis emptied (a restart without persistence): a new generation, and the key is read again.
    redis_client.flushdb()
    assert [key_reads(client) for _ in range(2)] == [1, 0]
