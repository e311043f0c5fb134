"""The connection settings hold for the statements that need them, directly and behind a transaction pooler."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.db import connection

from memoryadmin.core.session_settings import behind_transaction_pooler, execute_with_session_settings
from memoryadmin.memories.services import memory_create
from tests.conftest import SYSTEM

PROBE = (
    "SELECT current_setting('jit'), current_setting('hnsw.ef_search', true), "
    "current_setting('hnsw.iterative_scan', true)"
)
WANTED = (
    settings.DATABASE_SESSION_SETTINGS["jit"],
    settings.DATABASE_SESSION_SETTINGS["hnsw.ef_search"],
    settings.DATABASE_SESSION_SETTINGS["hnsw.iterative_scan"],
)


@pytest.mark.django_db(transaction=True)
def test_a_statement_runs_with_the_connection_settings() -> None:
    with connection.cursor() as cursor:
        execute_with_session_settings(cursor, PROBE + ", %s", ["param"])
        assert cursor.fetchall() == [(*WANTED, "param")]


@pytest.mark.django_db(transaction=True)
def test_behind_a_pooler_nothing_outlives_the_statement() -> None:
    if not behind_transaction_pooler():
        pytest.skip("connected directly, every connection has the settings from its start (make test-pgbouncer)")
    with connection.cursor() as cursor:
        execute_with_session_settings(cursor, PROBE, [])
        cursor.execute("SELECT current_setting('jit'), current_setting('hnsw.ef_search', true)")
        jit, ef_search = cursor.fetchone()
    # The server's defaults: what the next transaction, on whichever server connection, starts with.
    assert (jit, ef_search) != WANTED[:2]


def test_behind_a_pooler_no_connect_option_is_sent_and_nothing_is_prepared() -> None:
    options = settings.DATABASES["default"]["OPTIONS"]
    if behind_transaction_pooler():
        assert "options" not in options
        assert options["prepare_threshold"] is None
        assert settings.DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] is True
    else:
        assert "-c jit=off" in options["options"]


@pytest.mark.django_db
def test_a_search_asked_again_and_again_is_prepared_only_when_connected_directly(api, namespace) -> None:
    """Connected directly, the candidates statement is parsed and planned once per connection, not per search."""
    memory_create(namespace=namespace, user_id="alice", text="Alice plays the cello", actor=SYSTEM)
    # The first search sends Alice's vectors; the next six, of the same shape, only their mark.
    for query in ("cello", "violin", "what does Alice play", "strings", "cello lessons", "bow", "practice"):
        assert api.post("/api/v1/memories/search", {"query": query, "user_id": "alice"}).status_code == 200
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [row[0] for row in cursor.fetchall()]
    candidates = [statement for statement in prepared if "hits AS MATERIALIZED" in statement]
    if behind_transaction_pooler():
        assert prepared == []
    else:
        assert len(candidates) == 1
        # Prepared, yet planned for each run's own parameters: a plan for any parameters can be far off.
        with connection.cursor() as cursor:
            cursor.execute("SELECT current_setting('plan_cache_mode')")
            assert cursor.fetchone()[0] == "force_custom_plan"
