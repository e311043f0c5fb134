"""The connection settings hold for the statements that need them, directly and behind a transaction pooler."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.db import connection

from memoryadmin.core.session_settings import behind_transaction_pooler, execute_with_session_settings

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
