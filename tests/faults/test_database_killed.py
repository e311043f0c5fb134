"""PostgreSQL connections killed (pg_terminate_backend) in the middle of a request or a restore.

To kill a request at a known point, the test holds the lock the request
needs last: the namespace's audit-chain lock, taken after the change itself
is written and before it commits. Once the request waits there its backend
is terminated. It must answer a clean 503 with the error body, leave nothing
half-written, and the next request must work without any restart.
"""

from __future__ import annotations

import io
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import httpx
import psycopg
import pytest
from django.db import InterfaceError, OperationalError, connection

from memoryadmin.audit.models import AuditEvent
from memoryadmin.audit.services import _chain_lock_key, verify_audit_chain
from memoryadmin.conversations.models import Message, Session
from memoryadmin.conversations.services import NewMessage, session_append_messages
from memoryadmin.governance.snapshots import snapshot_export_lines, snapshot_restore
from memoryadmin.memories.models import Memory, MemoryRevision, Pin, Tombstone
from memoryadmin.memories.services import memory_create
from tests.conftest import SYSTEM

pytestmark = pytest.mark.django_db(transaction=True)


def blocker_connection() -> psycopg.Connection:
    s = connection.settings_dict
    # Nothing prepared: behind a transaction pooler the next statement may meet another server connection.
    return psycopg.connect(
        host=s["HOST"] or None, port=s["PORT"] or None, user=s["USER"], dbname=s["NAME"], prepare_threshold=None
    )


@contextmanager
def chain_lock_held(namespace_id: int) -> Iterator[psycopg.Connection]:
    """The chain's lock held in an open transaction, which keeps one server connection behind a pooler too."""
    with blocker_connection() as blocker:
        blocker.execute("SELECT pg_advisory_xact_lock(%s)", [_chain_lock_key(namespace_id)])
        try:
            yield blocker
        finally:
            blocker.rollback()


def kill_the_waiter(blocker: psycopg.Connection, timeout: float = 20) -> int:
    """Terminate the backend that waits for the blocker's lock; returns its pid."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        # Inside a transaction the activity view is a snapshot: taken again at each look.
        blocker.execute("SELECT pg_stat_clear_snapshot()")
        row = blocker.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() "
            "AND wait_event_type = 'Lock' LIMIT 1"
        ).fetchone()
        if row:
            blocker.execute("SELECT pg_terminate_backend(%s)", [row[0]])
            return row[0]
        time.sleep(0.05)
    raise AssertionError("no request ever waited for the lock")


def killed_mid_request(namespace_id: int, send) -> httpx.Response:
    with chain_lock_held(namespace_id) as blocker, ThreadPoolExecutor(1) as pool:
        pending = pool.submit(send)
        kill_the_waiter(blocker)
        return pending.result(timeout=60)


def state(namespace) -> tuple:
    return (
        sorted(Memory.objects.filter(namespace=namespace).values_list("id", "text", "revision", "topics")),
        MemoryRevision.objects.count(),
        Pin.objects.count(),
        Tombstone.objects.count(),
        sorted(Session.objects.values_list("session_id", "message_count")),
        Message.objects.count(),
        AuditEvent.objects.count(),
    )


@pytest.fixture
def http(live_server, namespace, make_key) -> Iterator[httpx.Client]:
    raw = make_key(namespace)[1]
    with httpx.Client(base_url=live_server.url, headers={"Authorization": f"Bearer {raw}"}, timeout=60) as client:
        yield client


@pytest.fixture
def memory(namespace) -> Memory:
    return memory_create(namespace=namespace, user_id="alice", text="Alice likes tea", actor=SYSTEM).memory


def assert_clean_503(response: httpx.Response) -> None:
    assert response.status_code == 503, response.text
    assert response.json()["error"]["code"] == "database_unavailable"


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/api/v1/memories", {"text": "Alice likes jazz", "user_id": "alice", "pinned": True}),
        ("PATCH", "/api/v1/memories/{id}", {"text": "Alice likes green tea", "topics": ["drinks"]}),
        ("DELETE", "/api/v1/memories/{id}", None),
        ("POST", "/api/v1/memories/{id}/pin", {"reason": "keep"}),
        ("DELETE", "/api/v1/sessions/s1?memories=delete", None),
    ],
)
def test_a_request_killed_mid_write_answers_503_and_leaves_nothing_half_written(
    http, namespace, memory, method, path, body
) -> None:
    session_append_messages(
        namespace=namespace, session_id="s1", user_id="alice", messages=[NewMessage(role="user", content="hi")]
    )
    Memory.objects.filter(pk=memory.pk).update(session_id="s1")
    before = state(namespace)
    url = path.format(id=memory.pk)

    response = killed_mid_request(namespace.pk, lambda: http.request(method, url, json=body))

    assert_clean_503(response)
    assert state(namespace) == before
    assert verify_audit_chain(namespace.pk).ok
    # The server recovers by itself: the same request now goes through.
    assert http.request(method, url, json=body).status_code < 300


def test_a_restore_killed_before_it_commits_applies_nothing(http, namespace, memory) -> None:
    session_append_messages(
        namespace=namespace, session_id="s1", user_id="alice", messages=[NewMessage(role="user", content="hi")]
    )
    snapshot = b"".join(snapshot_export_lines(namespace=namespace))
    # What a restore is for: the data is lost (not forgotten: no tombstones).
    Memory.objects.all().delete()
    Session.objects.all().delete()
    before = state(namespace)

    def restore() -> httpx.Response:
        return http.post(
            "/api/v1/snapshots/restore?dry_run=false",
            content=snapshot,
            headers={"Content-Type": "application/x-ndjson"},
        )

    assert_clean_503(killed_mid_request(namespace.pk, restore))
    assert state(namespace) == before
    applied = restore()
    assert applied.status_code == 200, applied.text
    assert Memory.objects.filter(text="Alice likes tea").exists()
    assert Message.objects.count() == 1


def test_a_restore_whose_connection_dies_half_way_applies_nothing(namespace, memory) -> None:
    session_append_messages(
        namespace=namespace, session_id="s1", user_id="alice", messages=[NewMessage(role="user", content="hi")]
    )
    snapshot = b"".join(snapshot_export_lines(namespace=namespace))
    Memory.objects.all().delete()
    Session.objects.all().delete()
    before = state(namespace)
    seen: list[int] = []

    def die_after_sessions_and_messages(done: int) -> None:
        seen.append(done)
        if len(seen) == 3:  # tombstones, sessions and messages are in; memories are next
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_terminate_backend(pg_backend_pid())")

    with pytest.raises((OperationalError, InterfaceError)):
        snapshot_restore(
            namespace=namespace,
            source=io.BytesIO(snapshot),
            actor=SYSTEM,
            dry_run=False,
            progress=die_after_sessions_and_messages,
        )
    connection.close()
    assert len(seen) == 3
    assert state(namespace) == before
