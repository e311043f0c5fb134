"""A replica that stops or lags is skipped without an error, the health endpoint and the dashboard say so,
and it is used again once it is back."""

from __future__ import annotations

import pytest
from django.test import Client

from memoryadmin.audit.services import Actor
from memoryadmin.memories.services import memory_create
from memoryadmin.tenancy.services import operator_create
from tests.conftest import ApiClient
from tests.replicas.conftest import REPLICA, eventually

pytestmark = [pytest.mark.replica, pytest.mark.django_db(transaction=True, databases=["default", REPLICA])]

SYSTEM = Actor.system("tests")


def replica_health(api: ApiClient) -> dict:
    response = api.get("/api/v1/health")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "ok"
    (replica,) = body["replicas"]
    assert replica["name"] == REPLICA
    return replica


def listed(api: ApiClient) -> set[str]:
    response = api.get("/api/v1/memories?user_id=alice")
    assert response.status_code == 200, response.content
    return {item["text"] for item in response.json()["items"]}


def searched(api: ApiClient) -> set[str]:
    response = api.post("/api/v1/memories/search", {"query": "Where does Alice go?", "user_id": "alice"})
    assert response.status_code == 200, response.content
    return {hit["memory"]["text"] for hit in response.json()["items"]}


def test_a_stopped_replica_sends_reads_to_the_primary_and_is_used_again_once_back(
    replica, namespace, api, anon_api, settings
) -> None:
    # Known to be fine for a minute: the stop is found by the read that fails on it, not by a check.
    settings.DATABASE_REPLICA_CHECK_SECONDS = 60
    settings.DATABASE_REPLICA_RETRY_SECONDS = 0.5
    memory_create(namespace=namespace, user_id="alice", text="Alice goes to Lisbon", actor=SYSTEM)
    replica.caught_up()
    healthy = replica_health(anon_api)
    assert healthy["state"] == "ok" and healthy["used"] is True
    assert healthy["lag_seconds"] <= settings.DATABASE_REPLICA_MAX_LAG_SECONDS
    assert listed(api) == {"Alice goes to Lisbon"}

    replica.stop()
    memory_create(namespace=namespace, user_id="alice", text="Alice goes to Oslo", actor=SYSTEM)
    # No error: the read that met the stopped replica was done again on the primary, which has everything.
    assert searched(api) == {"Alice goes to Lisbon", "Alice goes to Oslo"}
    assert listed(api) == {"Alice goes to Lisbon", "Alice goes to Oslo"}
    assert replica_health(anon_api) == {"name": REPLICA, "state": "down", "lag_seconds": None, "used": False}
    # The metrics say so too, for an alert.
    scraped = Client().get("/metrics").content.decode()
    assert f'memoryadmin_replica_used{{replica="{REPLICA}",state="down"}} 0' in scraped

    replica.start()
    eventually(lambda: replica_health(anon_api)["used"], "the health endpoint says the replica is used again")
    # Used again: held before a new write, it is where this caller's lists come from.
    replica.pause()
    memory_create(namespace=namespace, user_id="alice", text="Alice goes to Riga", actor=SYSTEM)
    assert listed(api) == {"Alice goes to Lisbon", "Alice goes to Oslo"}


def test_a_replica_lagging_beyond_the_bound_is_skipped(replica, namespace, api, anon_api, settings) -> None:
    settings.DATABASE_REPLICA_MAX_LAG_SECONDS = 0.3
    settings.DATABASE_REPLICA_CHECK_SECONDS = 0.05
    memory_create(namespace=namespace, user_id="alice", text="Alice goes to Bergen", actor=SYSTEM)
    replica.pause()
    memory_create(namespace=namespace, user_id="alice", text="Alice goes to Tromso", actor=SYSTEM)

    lagging = eventually(lambda: (h := replica_health(anon_api))["state"] == "lagging" and h, "the replica lags")
    # Past the bound when judged; the lag shown is rounded to the millisecond (0.3004 is shown as 0.3).
    assert lagging["used"] is False and lagging["lag_seconds"] >= 0.3
    scraped = Client().get("/metrics").content.decode()
    assert f'memoryadmin_replica_used{{replica="{REPLICA}",state="lagging"}} 0' in scraped
    assert f'memoryadmin_replica_lag_seconds{{replica="{REPLICA}"}} ' in scraped
    # Skipped: the list is the primary's.
    assert listed(api) == {"Alice goes to Bergen", "Alice goes to Tromso"}

    replica.resume()
    eventually(lambda: replica_health(anon_api)["state"] == "ok", "the replica catches up")


def test_the_dashboard_says_which_replica_is_skipped(replica, settings) -> None:
    settings.DATABASE_REPLICA_CHECK_SECONDS = 0
    settings.DATABASE_REPLICA_RETRY_SECONDS = 60
    operator = Client()
    operator.force_login(operator_create(username="victor", role="viewer", password="p" * 12, actor=SYSTEM))
    card = lambda: operator.get("/health/", headers={"HX-Request": "true"}).content.decode()  # noqa: E731
    assert "Read replica replica1 <strong>in use</strong>" in " ".join(card().split())

    replica.stop()
    text = " ".join(card().split())
    assert "Read replica replica1 <strong>skipped</strong>" in text
    assert "unreachable: its reads go to the primary" in text
