"""Erasure: everything about one person goes, provably, and nothing about anyone else."""

from __future__ import annotations

import json
import threading
import time
from datetime import datetime

import pytest
from django.db import connection, models, transaction
from django.utils import timezone

from memoryadmin.audit.models import AuditEvent
from memoryadmin.audit.services import verify_audit_chain
from memoryadmin.conversations.models import Message, Session
from memoryadmin.conversations.services import NewMessage, session_append_messages
from memoryadmin.conversations.working_memory import working_memory_put
from memoryadmin.core.fingerprints import subject_hmac
from memoryadmin.core.locks import SUBJECT_LOCK_CLASS, lock_subject
from memoryadmin.core.personal_data import subject_tables
from memoryadmin.governance.erasure import erasure_execute, erasure_request, receipt_verify
from memoryadmin.governance.models import ErasureRequest
from memoryadmin.memories.models import Memory, MemoryEvidence, MemoryRevision, Pin, Tombstone
from tests.conftest import SYSTEM, ApiClient
from tests.governance.conftest import populate


def give_redis_state(namespace, person, redis_client) -> None:
    for session in person.sessions:
        working_memory_put(
            namespace_id=namespace.pk, session_id=session.session_id, state={"mood": "ok"}, ttl_seconds=600
        )
        # A pending extraction schedule, in the extraction pipeline's key format.
        redis_client.set(f"extract:{namespace.pk}:{session.pk}", "1", ex=600)


def rows_about(user_id: str, namespace=None) -> dict[str, int]:
    """Scan every model that has a user_id column for this person."""
    found = {}
    from django.apps import apps

    for model in apps.get_models():
        names = {f.name for f in model._meta.get_fields()}
        if "user_id" not in names or not isinstance(model._meta.get_field("user_id"), models.CharField):
            continue
        qs = model._default_manager.filter(user_id=user_id)
        if namespace is not None and "namespace" in names:
            qs = qs.filter(namespace=namespace)
        if n := qs.count():
            found[model._meta.label] = n
    return found


def keys_of(redis_client, namespace, person) -> list[str]:
    wanted = {f"wm:{namespace.pk}:{s.session_id}" for s in person.sessions} | {
        f"extract:{namespace.pk}:{s.pk}" for s in person.sessions
    }
    return sorted(k for k in redis_client.scan_iter(count=1000) if k in wanted)


def erase_via_api(api, user_id, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(f"/api/v1/subjects/{user_id}/erasure")
    assert response.status_code == 202, response.content
    return response.json()


def test_erasure_leaves_zero_rows_and_zero_keys_while_a_bystander_is_untouched(
    api, namespace, other_namespace, redis_client, eager_celery, django_capture_on_commit_callbacks
) -> None:
    alice = populate(namespace, "alice")
    bob = populate(namespace, "bob")
    alice_elsewhere = populate(other_namespace, "alice", sessions=1)
    for ns, person in ((namespace, alice), (namespace, bob), (other_namespace, alice_elsewhere)):
        give_redis_state(ns, person, redis_client)
    bob_before = rows_about("bob", namespace)
    bob_keys = keys_of(redis_client, namespace, bob)
    alice_message_ids = list(Message.objects.filter(session__in=alice.sessions).values_list("pk", flat=True))
    alice_memory_ids = [m.pk for m in Memory.objects.filter(namespace=namespace, user_id="alice")]

    accepted = erase_via_api(api, "alice", django_capture_on_commit_callbacks)
    assert accepted["status"] == "pending"

    status = api.get(f"/api/v1/erasures/{accepted['erasure_id']}").json()
    assert status["status"] == "completed", status
    assert rows_about("alice", namespace) == {}
    assert not Message.objects.filter(pk__in=alice_message_ids).exists()
    for model in (MemoryRevision, MemoryEvidence, Pin):
        assert not model.objects.filter(memory_id__in=alice_memory_ids).exists()
    assert keys_of(redis_client, namespace, alice) == []
    # Nothing anywhere in the keyspace still names one of her sessions in this namespace.
    gone = {f":{namespace.pk}:{s.session_id}" for s in alice.sessions} | {
        f":{namespace.pk}:{s.pk}" for s in alice.sessions
    }
    assert [k for k in redis_client.scan_iter(count=1000) if any(k.endswith(g) or f"{g}:" in k for g in gone)] == []
    # The bystanders: bob here, and alice in another namespace.
    assert rows_about("bob", namespace) == bob_before
    assert keys_of(redis_client, namespace, bob) == bob_keys
    assert rows_about("alice", other_namespace) != {}
    assert len(keys_of(redis_client, other_namespace, alice_elsewhere)) == 2
    counts = status["counts"]
    assert counts["sessions"] == 2 and counts["messages"] == 6 and counts["memories"] == 2
    assert counts["revisions"] == 3 and counts["pins"] == 1 and counts["tombstones"] == 1
    assert counts["working_memory_keys"] == 2


def test_the_receipt_is_chained_to_the_audit_trail_and_keeps_no_plain_user_id(
    api, namespace, eager_celery, django_capture_on_commit_callbacks
) -> None:
    populate(namespace, "alice")
    accepted = erase_via_api(api, "alice", django_capture_on_commit_callbacks)
    erasure = ErasureRequest.objects.get(pk=accepted["erasure_id"])
    assert erasure.user_id == ""
    assert erasure.subject_hash == subject_hmac(namespace.pk, "alice")
    receipt = erasure.receipt
    assert receipt["subject_hmac"] == erasure.subject_hash
    assert receipt["verification"]["rows_remaining"] == 0
    assert receipt["verification"]["redis_keys_remaining"] == 0
    event = AuditEvent.objects.get(pk=receipt["audit_event"]["id"])
    assert event.action == "erasure.complete" and event.hash == receipt["audit_event"]["hash"]
    assert receipt_verify(receipt)
    assert not receipt_verify({**receipt, "deleted": {**receipt["deleted"], "memories": 0}})
    assert verify_audit_chain().ok
    assert "alice" not in json.dumps(receipt)


def test_audit_events_about_the_person_hold_no_content(api, namespace, eager_celery) -> None:
    populate(namespace, "alice")
    erasure_execute(erasure_id=erasure_request(namespace=namespace, user_id="alice", actor=SYSTEM).pk)
    for event in AuditEvent.objects.filter(subject_hash=subject_hmac(namespace.pk, "alice")):
        text = json.dumps([event.target_id, event.reason, event.data])
        assert "alice" not in text and "likes topic" not in text and "says thing" not in text


def test_searching_listing_and_exporting_an_erased_person_returns_nothing(api, namespace) -> None:
    populate(namespace, "alice")
    erasure_execute(erasure_id=erasure_request(namespace=namespace, user_id="alice", actor=SYSTEM).pk)
    assert api.get("/api/v1/memories?user_id=alice").json()["items"] == []
    assert api.get("/api/v1/sessions?user_id=alice").json()["items"] == []
    export = b"".join(api.get("/api/v1/subjects/alice/export").streaming_content).splitlines()
    assert len(export) == 2


def test_it_requires_the_erase_scope(namespace, make_key) -> None:
    writer = ApiClient(make_key(namespace, "read,write")[1])
    response = writer.post("/api/v1/subjects/alice/erasure")
    assert response.status_code == 403
    assert not ErasureRequest.objects.exists()


def test_it_rejects_a_bad_user_id(api) -> None:
    assert api.post("/api/v1/subjects/bad%20id/erasure").status_code == 400


def test_an_erasure_of_another_namespace_is_404(api, other_api, namespace) -> None:
    erasure = erasure_request(namespace=namespace, user_id="alice", actor=SYSTEM)
    assert other_api.get(f"/api/v1/erasures/{erasure.pk}").status_code == 404
    assert api.get(f"/api/v1/erasures/{erasure.pk}").status_code == 200
    assert api.get("/api/v1/erasures/not-a-uuid").status_code == 400


def test_a_request_while_one_is_open_returns_the_open_one(namespace) -> None:
    first = erasure_request(namespace=namespace, user_id="alice", actor=SYSTEM)
    again = erasure_request(namespace=namespace, user_id="alice", actor=SYSTEM)
    assert again.pk == first.pk
    assert ErasureRequest.objects.count() == 1


def test_a_person_can_be_erased_again_later(namespace) -> None:
    populate(namespace, "alice")
    first = erasure_execute(erasure_id=erasure_request(namespace=namespace, user_id="alice", actor=SYSTEM).pk)
    populate(namespace, "alice", sessions=1)
    second = erasure_execute(erasure_id=erasure_request(namespace=namespace, user_id="alice", actor=SYSTEM).pk)
    assert first.pk != second.pk and second.status == "completed"
    assert second.counts["sessions"] == 1
    assert rows_about("alice", namespace) == {}


def test_running_a_finished_erasure_again_changes_nothing(namespace) -> None:
    populate(namespace, "alice")
    done = erasure_execute(erasure_id=erasure_request(namespace=namespace, user_id="alice", actor=SYSTEM).pk)
    again = erasure_execute(erasure_id=done.pk)
    assert again.receipt == done.receipt
    assert AuditEvent.objects.filter(action="erasure.complete").count() == 1


def test_every_model_with_a_user_id_is_covered() -> None:
    labels = {m._meta.label for m in subject_tables()}
    assert {"conversations.Session", "memories.Memory", "memories.Tombstone"} <= labels
    assert "governance.ErasureRequest" not in labels


@pytest.mark.django_db(transaction=True)
def test_concurrent_appends_during_an_erasure_never_leave_orphans(make_namespace, redis_client) -> None:
    namespace = make_namespace("concurrent")
    populate(namespace, "alice", sessions=3, messages=20)
    stop = threading.Event()
    outcomes = {"appended": 0, "refused": 0}

    def appender() -> None:
        n = 0
        try:
            while not stop.is_set():
                n += 1
                try:
                    session_append_messages(
                        namespace=namespace,
                        session_id=f"alice-chat-{n % 4}",
                        user_id="alice",
                        messages=[NewMessage(role="user", content=f"message {n}")] * 5,
                    )
                    outcomes["appended"] += 1
                except Exception:
                    outcomes["refused"] += 1
                time.sleep(0.001)
        finally:
            connection.close()

    thread = threading.Thread(target=appender)
    thread.start()
    try:
        # The erasure starts once the appender is writing (however loaded the machine is).
        deadline = time.monotonic() + 20
        while not outcomes["appended"] and time.monotonic() < deadline:
            time.sleep(0.01)
        erasure = erasure_execute(erasure_id=erasure_request(namespace=namespace, user_id="alice", actor=SYSTEM).pk)
    finally:
        stop.set()
        thread.join(10)
    assert outcomes["appended"] > 0
    assert erasure.status == "completed", erasure.error
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM conversations_message m "
            "LEFT JOIN conversations_session s ON s.id = m.session_id WHERE s.id IS NULL"
        )
        assert cursor.fetchone()[0] == 0
        cursor.execute(
            "SELECT count(*) FROM memories_memoryevidence e LEFT JOIN conversations_message m ON m.id = e.message_id "
            "LEFT JOIN memories_memory y ON y.id = e.memory_id WHERE m.id IS NULL OR y.id IS NULL"
        )
        assert cursor.fetchone()[0] == 0
    # Whatever survives was written after the point the receipt covers (the appender went on
    # writing): whole new sessions, seqs gap-free from 1.
    covered = datetime.fromisoformat(erasure.receipt["verification"]["covers_data_written_by"])
    for session in Session.objects.filter(namespace=namespace, user_id="alice"):
        assert session.created_at > covered
        seqs = list(session.messages.order_by("seq").values_list("seq", flat=True))
        assert seqs == list(range(1, len(seqs) + 1)) and session.message_count == len(seqs)
    assert not Memory.objects.filter(namespace=namespace, user_id="alice", created_at__lt=erasure.started_at).exists()
    assert not Tombstone.objects.filter(namespace=namespace, user_id="alice").exists()


def _waiting_for_a_subject_lock() -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND classid = %s",
            [SUBJECT_LOCK_CLASS],
        )
        return cursor.fetchone()[0] > 0


def _wait_until(condition, what: str) -> None:
    deadline = time.monotonic() + 60
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


@pytest.mark.django_db(transaction=True)
def test_an_erasure_waits_for_a_new_session_in_flight_and_erases_it_too(make_namespace) -> None:
    """A session created (with its messages, dated before the erasure) by a transaction that has not
    committed when the erasure starts is swept with the rest, not left behind as 'written during'."""
    namespace = make_namespace("in-flight")
    populate(namespace, "alice", sessions=1, messages=2)
    written, release = threading.Event(), threading.Event()
    done: dict[str, ErasureRequest] = {}

    def writer() -> None:
        try:
            with transaction.atomic():
                session_append_messages(
                    namespace=namespace,
                    session_id="alice-late",
                    user_id="alice",
                    messages=[NewMessage(role="user", content="said while being erased")],
                )
                written.set()
                release.wait(60)
        finally:
            connection.close()

    def eraser() -> None:
        try:
            erasure = erasure_request(namespace=namespace, user_id="alice", actor=SYSTEM)
            done["erasure"] = erasure_execute(erasure_id=erasure.pk)
        finally:
            connection.close()

    threads = [threading.Thread(target=writer), threading.Thread(target=eraser)]
    threads[0].start()
    try:
        assert written.wait(60)
        threads[1].start()
        # The erasure waits for the writer's transaction, however long it takes.
        _wait_until(_waiting_for_a_subject_lock, "the erasure never waited for the writer")
        assert "erasure" not in done
    finally:
        release.set()
        for thread in threads:
            thread.join(60)
    erasure = done["erasure"]
    assert erasure.status == "completed", erasure.error
    assert erasure.receipt["verification"]["rows_written_during_erasure"] == 0
    assert not Session.objects.filter(namespace=namespace, user_id="alice").exists()
    assert not Message.objects.filter(session__namespace=namespace, content="said while being erased").exists()


@pytest.mark.django_db(transaction=True)
def test_a_new_session_started_during_an_erasure_waits_and_is_new_data(make_namespace) -> None:
    """A writer that starts while the sweep holds the person waits for it, then writes the person's new
    data, dated after the moment the receipt covers."""
    namespace = make_namespace("after")
    populate(namespace, "alice", sessions=1, messages=2)
    done: dict[str, object] = {}

    def writer() -> None:
        try:
            done["session"] = session_append_messages(
                namespace=namespace,
                session_id="alice-next",
                user_id="alice",
                messages=[NewMessage(role="user", content="written after")],
            )[0]
        finally:
            connection.close()

    thread = threading.Thread(target=writer)
    with transaction.atomic():
        # What the sweep holds: the person's subject lock, exclusively.
        lock_subject(namespace.pk, "alice", exclusive=True)
        held_since = timezone.now()
        thread.start()
        _wait_until(_waiting_for_a_subject_lock, "the writer never waited for the subject lock")
        assert "session" not in done
    thread.join(60)
    session = done["session"]
    assert session.created_at > held_since
    assert Message.objects.get(session=session).created_at > held_since


@pytest.mark.django_db(transaction=True)
def test_an_extraction_run_waits_for_an_erasure_before_it_holds_the_session(make_namespace) -> None:
    """An extraction run takes the person's subject lock before it holds their session, as an erasure takes
    them: it waits for the sweep instead of holding the session the sweep is waiting for (a deadlock)."""
    from memoryadmin.extraction.models import RunStatus
    from memoryadmin.extraction.services import extraction_run, extraction_schedule

    namespace = make_namespace("extracting")
    session, _ = session_append_messages(
        namespace=namespace,
        session_id="alice-chat",
        user_id="alice",
        messages=[NewMessage(role="user", name="Alice", content="I live in Lyon and I love jazz.")],
    )
    run = extraction_schedule(session=session, delay=0)
    done: dict[str, object] = {}

    def extract() -> None:
        try:
            done["run"] = extraction_run(run=run)
        finally:
            connection.close()

    thread = threading.Thread(target=extract)
    with transaction.atomic():
        lock_subject(namespace.pk, "alice", exclusive=True)
        thread.start()
        _wait_until(_waiting_for_a_subject_lock, "the run never waited for the subject lock")
        assert "run" not in done
        with connection.cursor() as cursor:
            # It holds nothing of the session yet: a sweep could lock it.
            cursor.execute("SELECT id FROM conversations_session WHERE id = %s FOR UPDATE NOWAIT", [session.pk])
    thread.join(60)
    assert done["run"].status == RunStatus.SUCCEEDED
    assert Memory.objects.filter(namespace=namespace, user_id="alice").exists()


def test_each_table_is_counted_once_per_pass_and_the_sessions_locked_once(namespace) -> None:
    from django.test.utils import CaptureQueriesContext

    from memoryadmin.core.personal_data import holdings

    populate(namespace, "alice")
    erasure = erasure_request(namespace=namespace, user_id="alice", actor=SYSTEM)
    with CaptureQueriesContext(connection) as queries:
        assert erasure_execute(erasure_id=erasure.pk).status == "completed"
    statements = [q["sql"] for q in queries.captured_queries]

    def outer_table(sql: str) -> str:
        return sql.split(" FROM ", 1)[1].split()[0].strip('"') if " FROM " in sql else ""

    counts = [sql for sql in statements if sql.startswith("SELECT COUNT(")]
    for holding in holdings():
        table = holding.model._meta.db_table
        # The sweep counts a dependent table (a subject table's rows are the ones it locked); the check in its
        # transaction counts every table once for what remains and once more per key to a deleted subject row,
        # and once after it commits for what arrived.
        one_hop = sum(1 for path in holding.paths if path.prefix.count("__") == 1)
        expected = (0 if holding.is_subject_table else 1) + 1 + one_hop + 1
        assert sum(outer_table(sql) == table for sql in counts) == expected, table
    locks = [sql for sql in statements if outer_table(sql) == "conversations_session" and "FOR UPDATE" in sql]
    assert len(locks) == 1
