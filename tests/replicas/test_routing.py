"""Lag-tolerant reads from a real streaming replica, read-your-writes, and the primary for everything else.

The replica's replay is paused to hold it at an older state: what a read returns says where it was read.
"""

from __future__ import annotations

import json

import pytest
from django.db import transaction
from django.test import Client

from memoryadmin.audit.services import Actor
from memoryadmin.core.replicas import lag_tolerant, read_alias
from memoryadmin.memories.models import Memory
from memoryadmin.memories.services import memory_create
from memoryadmin.tenancy.services import operator_create
from tests.conftest import ApiClient
from tests.replicas.conftest import REPLICA

pytestmark = [pytest.mark.replica, pytest.mark.django_db(transaction=True, databases=["default", REPLICA])]

SYSTEM = Actor.system("tests")


def remember(api: ApiClient, text: str) -> str:
    response = api.post("/api/v1/memories", {"user_id": "alice", "text": text})
    assert response.status_code == 201, response.content
    return response.json()["id"]


def searched(api: ApiClient, query: str) -> set[str]:
    response = api.post("/api/v1/memories/search", {"query": query, "user_id": "alice", "limit": 50})
    assert response.status_code == 200, response.content
    return {hit["memory"]["text"] for hit in response.json()["items"]}


def listed(api: ApiClient) -> set[str]:
    response = api.get("/api/v1/memories?user_id=alice")
    assert response.status_code == 200, response.content
    return {item["text"] for item in response.json()["items"]}


@pytest.fixture
def writer(namespace, make_key) -> ApiClient:
    return ApiClient(make_key(namespace)[1])


@pytest.fixture
def reader(namespace, make_key) -> ApiClient:
    """Another key of the same namespace: another caller, with no write of its own."""
    return ApiClient(make_key(namespace)[1])


def test_another_callers_search_and_list_read_the_replica_while_the_writer_reads_its_write(
    replica, writer, reader
) -> None:
    remember(writer, "Alice plays the cello")
    replica.pause()
    remember(writer, "Alice plays the banjo")

    # The other caller reads the replica, held before the second write.
    assert searched(reader, "What does Alice play?") == {"Alice plays the cello"}
    assert listed(reader) == {"Alice plays the cello"}
    # The writer's own reads stay on the primary until the replica has replayed its write.
    assert searched(writer, "What does Alice play?") == {"Alice plays the cello", "Alice plays the banjo"}
    assert listed(writer) == {"Alice plays the cello", "Alice plays the banjo"}

    replica.resume()
    both = {"Alice plays the cello", "Alice plays the banjo"}
    replica.caught_up()
    assert listed(reader) == both


def test_the_writers_reads_go_back_to_the_replica_once_it_has_replayed_the_write(replica, namespace, writer) -> None:
    remember(writer, "Alice drinks green tea")
    replica.caught_up()
    replica.pause()
    # Written on the primary, not by a request of the writer's: the replica has replayed the writer's
    # last write, so the writer reads there again and does not see this one yet.
    memory_create(namespace=namespace, user_id="alice", text="Alice drinks black coffee", actor=SYSTEM)
    assert listed(writer) == {"Alice drinks green tea"}


def test_a_read_inside_a_transaction_or_outside_lag_tolerant_code_is_on_the_primary(replica, namespace) -> None:
    replica.pause()
    memory_create(namespace=namespace, user_id="alice", text="Alice lives in Porto", actor=SYSTEM)
    texts = lambda: set(Memory.objects.filter(namespace=namespace).values_list("text", flat=True))  # noqa: E731

    with lag_tolerant(actor=None):
        assert read_alias() == REPLICA
        assert texts() == set()
        with transaction.atomic():
            assert read_alias() == "default"
            assert texts() == {"Alice lives in Porto"}
            # A row locked before an update reads the primary's row.
            locked = Memory.objects.select_for_update().get(namespace=namespace, user_id="alice")
            assert locked.text == "Alice lives in Porto"
    assert read_alias() == "default"
    assert texts() == {"Alice lives in Porto"}


def test_an_export_by_another_caller_is_read_from_the_replica(replica, writer, reader) -> None:
    remember(writer, "Alice collects stamps")
    replica.pause()
    remember(writer, "Alice collects coins")

    def exported(api: ApiClient) -> set[str]:
        response = api.get("/api/v1/subjects/alice/export")
        assert response.status_code == 200
        lines = [json.loads(line) for line in b"".join(response.streaming_content).splitlines()]
        assert lines[-1]["type"] == "end"
        return {line["text"] for line in lines if line.get("type") == "memory"}

    assert exported(reader) == {"Alice collects stamps"}
    assert exported(writer) == {"Alice collects stamps", "Alice collects coins"}


def test_an_operators_console_pages_read_their_own_writes(replica, namespace) -> None:
    memory_create(namespace=namespace, user_id="alice", text="Alice swims on Sundays", actor=SYSTEM)
    forgotten = memory_create(namespace=namespace, user_id="alice", text="Alice runs on Mondays", actor=SYSTEM)
    olivia, oscar = Client(), Client()
    olivia.force_login(operator_create(username="olivia", role="operator", password="p" * 12, actor=SYSTEM))
    oscar.force_login(operator_create(username="oscar", role="operator", password="p" * 12, actor=SYSTEM))
    replica.pause()

    response = olivia.post(f"/memories/{forgotten.memory.pk}/forget/", {"reason": "asked"})
    assert response.status_code in (200, 302), response.content[:500]

    page = lambda client: client.get("/memories/?ns=alpha").content.decode()  # noqa: E731
    assert "Alice runs on Mondays" not in page(olivia)
    assert "Alice runs on Mondays" in page(oscar)
