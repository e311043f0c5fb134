"""The health check of a persistent connection sends nothing while the connection is sound, and still
finds a connection the server has closed (core/postgresql)."""

from __future__ import annotations

import select
import time
from pathlib import Path

import psycopg
import pytest
from django.conf import settings
from django.db import close_old_connections, connection

from memoryadmin.core.session_settings import behind_transaction_pooler
from memoryadmin.memories.models import Memory


def server_url() -> str:
    db = connection.settings_dict
    return f"host={db['HOST']} port={db['PORT']} user={db['USER']} dbname={db['NAME']}"


def test_every_database_alias_uses_the_backend() -> None:
    for alias in settings.DATABASES:
        assert settings.DATABASES[alias]["ENGINE"] == "memoryadmin.core.postgresql", alias


@pytest.mark.django_db(transaction=True)
def test_a_sound_idle_connection_is_usable_without_a_round_trip(tmp_path: Path) -> None:
    connection.ensure_connection()
    trace = tmp_path / "protocol.trace"
    pgconn = connection.connection.pgconn
    with trace.open("w") as out:
        pgconn.trace(out.fileno())
        try:
            usable = connection.is_usable()
        finally:
            pgconn.untrace()
    assert usable is True
    # libpq writes every protocol message sent or received to the trace: nothing went either way.
    assert trace.read_text() == ""


@pytest.mark.django_db(transaction=True)
def test_a_connection_inside_a_transaction_is_checked_by_asking(tmp_path: Path) -> None:
    connection.ensure_connection()
    connection.connection.execute("BEGIN")
    trace = tmp_path / "protocol.trace"
    pgconn = connection.connection.pgconn
    try:
        with trace.open("w") as out:
            pgconn.trace(out.fileno())
            try:
                assert connection.is_usable() is True
            finally:
                pgconn.untrace()
    finally:
        connection.connection.execute("ROLLBACK")
    assert "SELECT 1" in trace.read_text()


@pytest.mark.django_db(transaction=True)
def test_a_connection_the_server_closed_is_found_and_the_next_request_reconnects() -> None:
    if behind_transaction_pooler():
        # The client's connection is the pooler's; a server connection killed behind it is the pooler's to
        # replace (and the killing query may be handed that very server connection).
        pytest.skip("connected through a transaction pooler: this is tested connected directly (make test)")
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    with psycopg.connect(server_url(), autocommit=True) as admin:
        assert admin.execute("SELECT pg_terminate_backend(%s)", [pid]).fetchone() == (True,)
    # The server's goodbye reaches the socket when its process has gone: wait for that, not for a time.
    socket = connection.connection.pgconn.socket
    deadline = time.monotonic() + 30
    while not select.select([socket], [], [], 0.5)[0]:
        assert time.monotonic() < deadline, "the terminated connection never became readable"
    assert connection.is_usable() is False
    # What a request's start does (request_started): the check closes the dead connection, and the
    # request's first statement opens a new one instead of failing.
    close_old_connections()
    assert not Memory.objects.exists()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        assert cursor.fetchone()[0] != pid
