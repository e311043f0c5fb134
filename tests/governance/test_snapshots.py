"""Snapshots: export, restore, and what a restore must never bring back."""

from __future__ import annotations

import hashlib
import io
import json

import orjson
import pytest

from memoryadmin.conversations.models import Message, Session
from memoryadmin.governance.erasure import erasure_execute, erasure_request
from memoryadmin.governance.snapshots import snapshot_export_lines, snapshot_restore
from memoryadmin.memories.models import Memory, MemoryEvidence, MemoryRevision, Pin, Tombstone
from memoryadmin.memories.services import memory_create, memory_forget
from tests.conftest import SYSTEM


def export(api, path="/api/v1/snapshots/export") -> bytes:
    response = api.get(path)
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "application/x-ndjson"
    return b"".join(response.streaming_content)


def restore(api, body: bytes, *, dry_run: bool):
    return api.post(
        f"/api/v1/snapshots/restore?dry_run={'true' if dry_run else 'false'}",
        data=body,
        content_type="application/x-ndjson",
    )


def wipe(namespace) -> None:
    Memory.objects.filter(namespace=namespace).delete()
    Session.objects.filter(namespace=namespace).delete()
    Tombstone.objects.filter(namespace=namespace).delete()


def lines_of(body: bytes) -> list[dict]:
    return [json.loads(line) for line in body.splitlines()]


def test_it_exports_a_header_every_record_and_a_checked_trailer(api, namespace, make_person) -> None:
    make_person("alice")
    body = export(api)
    lines = lines_of(body)
    header, trailer = lines[0], lines[-1]
    assert header["format"] == "memoryadmin.snapshot" and header["version"] == 1
    assert header["namespace"] == "alpha" and header["user_id"] is None
    kinds = [line["type"] for line in lines[1:-1]]
    assert header["counts"] == {kind: kinds.count(kind) for kind in header["counts"]}
    assert header["counts"] == {
        "tombstone": 1,
        "session": 2,
        "message": 6,
        "memory": 2,
        "revision": 3,
        "evidence": 4,
        "pin": 1,
    }
    preceding = body[: body.rindex(b"\n", 0, len(body) - 1) + 1]
    assert trailer == {"type": "end", "records": 19, "sha256": hashlib.sha256(preceding).hexdigest()}


def test_records_carry_the_fields_of_the_api_objects(api, namespace, make_person) -> None:
    person = make_person("alice")
    records = lines_of(export(api))
    memory_record = next(r for r in records if r.get("type") == "memory" and r["id"] == str(person.memories[0].pk))
    api_object = api.get(f"/api/v1/memories/{person.memories[0].pk}").json()
    # Beside them, a memory carries its vector (see test_snapshot_vectors).
    assert {k: v for k, v in memory_record.items() if k not in ("type", "vector")} == api_object
    session_record = next(r for r in records if r.get("type") == "session")
    api_session = api.get(f"/api/v1/sessions/{session_record['session_id']}").json()
    assert {k: v for k, v in session_record.items() if k != "type"} == api_session


def test_export_restore_export_is_byte_for_byte_stable(api, namespace, make_person) -> None:
    make_person("alice")
    make_person("bob")
    first = export(api)
    wipe(namespace)
    response = restore(api, first, dry_run=False)
    assert response.status_code == 200, response.content
    counts = response.json()["counts"]
    assert counts["created"] == len(first.splitlines()) - 2
    assert counts["suppressed"] == counts["skipped_erased"] == counts["skipped"] == 0
    second = export(api)
    a, b = first.splitlines(), second.splitlines()
    assert a[1:-2] == b[1:-2]
    head_a, head_b = json.loads(a[0]), json.loads(b[0])
    head_a.pop("created_at"), head_b.pop("created_at")
    assert head_a == head_b


def test_restoring_the_same_snapshot_twice_changes_nothing_the_second_time(api, namespace, make_person) -> None:
    make_person("alice")
    body = export(api)
    wipe(namespace)
    assert restore(api, body, dry_run=False).json()["counts"]["created"] > 0
    again = restore(api, body, dry_run=False).json()
    assert again["counts"]["created"] == again["counts"]["updated"] == 0
    assert again["counts"]["unchanged"] == again["records"]


def test_restore_keeps_ids_and_timestamps(api, namespace, make_person) -> None:
    person = make_person("alice")
    before = {m.pk: (m.created_at, m.updated_at) for m in Memory.objects.filter(namespace=namespace)}
    messages_before = set(Message.objects.values_list("pk", "seq", "persisted_at"))
    body = export(api)
    wipe(namespace)
    restore(api, body, dry_run=False)
    after = {m.pk: (m.created_at, m.updated_at) for m in Memory.objects.filter(namespace=namespace)}
    assert after == before
    assert set(Message.objects.values_list("pk", "seq", "persisted_at")) == messages_before
    assert Pin.objects.filter(memory_id=person.memories[-1].pk).exists()
    assert MemoryEvidence.objects.count() == 4 and MemoryRevision.objects.count() == 3


def test_appends_after_a_restore_continue_the_sequence(api, namespace, make_person) -> None:
    make_person("alice")
    body = export(api)
    wipe(namespace)
    restore(api, body, dry_run=False)
    response = api.post("/api/v1/sessions/alice-chat-0/messages", {"messages": [{"role": "user", "content": "more"}]})
    assert response.status_code == 201, response.content
    assert response.json()["messages"][0]["seq"] == 4


def test_a_dry_run_writes_nothing_and_reports_what_would_happen(api, namespace, make_person) -> None:
    make_person("alice")
    body = export(api)
    wipe(namespace)
    answer = restore(api, body, dry_run=True).json()
    assert answer["dry_run"] is True
    assert answer["counts"]["created"] == answer["records"] == 19
    assert not Memory.objects.filter(namespace=namespace).exists()
    assert not Session.objects.filter(namespace=namespace).exists()


def _sequence_position(table: str) -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_get_serial_sequence(%s, 'id')", [table])
        cursor.execute(f"SELECT last_value FROM {cursor.fetchone()[0]}")
        return cursor.fetchone()[0]


@pytest.mark.parametrize("dry_run", [True, False], ids=["dry-run", "applied"])
def test_ids_at_the_end_of_the_range_leave_every_namespace_writable(
    api, other_api, namespace, make_person, dry_run
) -> None:
    make_person("alice")
    lines = export(api).splitlines(keepends=True)[:-1]
    wipe(namespace)
    top = 2**63 - 1
    for i, line in enumerate(lines):
        record = json.loads(line)
        if record.get("type") in ("message", "tombstone"):
            record["id"] = str(top - i) if record["type"] == "message" else top - i
            lines[i] = orjson.dumps(record) + b"\n"
    before = {table: _sequence_position(table) for table in ("conversations_message", "memories_tombstone")}
    response = restore(api, resign(lines), dry_run=dry_run)
    assert response.status_code == 200, response.content
    for table, position in before.items():
        # The restore draws ids as the app does (at most one per record); nothing moves a sequence to the end.
        assert position <= _sequence_position(table) <= position + 20, table
    assert not Message.objects.filter(pk__gt=2**62).exists()
    assert not Tombstone.objects.filter(pk__gt=2**62).exists()
    # Another namespace still appends and forgets.
    appended = other_api.post(
        "/api/v1/sessions/s/messages", {"user_id": "bob", "messages": [{"role": "user", "content": "hi"}]}
    )
    assert appended.status_code == 201, appended.content
    created = other_api.post("/api/v1/memories", {"text": "Bob plays chess", "user_id": "bob"})
    assert other_api.delete(f"/api/v1/memories/{created.json()['id']}").status_code == 204


def test_a_kept_id_is_one_the_sequence_already_handed_out(api, namespace, make_person) -> None:
    make_person("alice")
    body = export(api)
    ids = {int(r["id"]) for r in lines_of(body) if r.get("type") == "message"}
    wipe(namespace)
    restore(api, body, dry_run=False)
    # Ids this database made come back as they were; the next append draws a new one past them.
    assert set(Message.objects.values_list("pk", flat=True)) == ids
    response = api.post("/api/v1/sessions/alice-chat-0/messages", {"messages": [{"role": "user", "content": "more"}]})
    assert int(response.json()["messages"][0]["id"]) > max(ids)


def test_a_tampered_checksum_writes_nothing(api, namespace, make_person) -> None:
    make_person("alice")
    body = export(api)
    wipe(namespace)
    tampered = body.replace(b"alice likes topic 1", b"alice hates topic 1")
    assert tampered != body
    response = restore(api, tampered, dry_run=False)
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "checksum_mismatch"
    assert not Memory.objects.filter(namespace=namespace).exists()
    assert not Session.objects.filter(namespace=namespace).exists()
    assert not Tombstone.objects.filter(namespace=namespace).exists()


@pytest.mark.parametrize(
    ("mangle", "code"),
    [
        (lambda lines: lines[:-1], "invalid_snapshot"),
        (lambda lines: [b"not json\n", *lines[1:]], "invalid_snapshot"),
        (lambda lines: [lines[0].replace(b'"version":1', b'"version":9'), *lines[1:]], "invalid_snapshot"),
        (lambda lines: [lines[0], lines[5], *lines[1:5], *lines[6:]], "invalid_snapshot"),
        (lambda lines: [*lines, b'{"type":"memory"}\n'], "invalid_snapshot"),
    ],
    ids=["truncated", "garbage-header", "unknown-version", "out-of-order", "after-trailer"],
)
def test_a_malformed_snapshot_is_422_and_writes_nothing(api, namespace, make_person, mangle, code) -> None:
    make_person("alice")
    body = export(api)
    wipe(namespace)
    mangled = b"".join(mangle(body.splitlines(keepends=True)))
    response = restore(api, mangled, dry_run=False)
    assert response.status_code == 422, response.content
    assert response.json()["error"]["code"] == code
    assert not Session.objects.filter(namespace=namespace).exists()


def resign(lines: list[bytes]) -> bytes:
    """Rebuild the trailer so only the records' own validation can object."""
    body = b"".join(lines)
    return body + orjson.dumps({"type": "end", "sha256": hashlib.sha256(body).hexdigest()}) + b"\n"


def test_an_invalid_record_is_422_and_writes_nothing(api, namespace, make_person) -> None:
    make_person("alice")
    lines = export(api).splitlines(keepends=True)[:-1]
    wipe(namespace)
    index = next(i for i, line in enumerate(lines) if b'"type":"memory"' in line)
    record = json.loads(lines[index])
    record["memory_type"] = "feelings"
    lines[index] = orjson.dumps(record) + b"\n"
    response = restore(api, resign(lines), dry_run=False)
    assert response.status_code == 422
    assert response.json()["error"]["details"]["line"] == index + 1
    assert not Session.objects.filter(namespace=namespace).exists()


@pytest.mark.parametrize("kind", ["memory", "message", "tombstone"])
def test_a_time_in_the_future_is_422_and_writes_nothing(api, namespace, make_person, kind) -> None:
    make_person("alice")
    memory_create(namespace=namespace, user_id="alice", text="Alice forgot this", actor=SYSTEM)
    memory_forget(memory=Memory.objects.get(text="Alice forgot this"), actor=SYSTEM, reason="asked")
    lines = export(api).splitlines(keepends=True)[:-1]
    wipe(namespace)
    index = next(i for i, line in enumerate(lines) if f'"type":"{kind}"'.encode() in line)
    record = json.loads(lines[index])
    record["created_at"] = "9999-12-30T00:00:00Z"
    lines[index] = orjson.dumps(record) + b"\n"
    for dry_run in (True, False):
        response = restore(api, resign(lines), dry_run=dry_run)
        assert response.status_code == 422
        assert response.json()["error"]["details"]["line"] == index + 1
    assert not Memory.objects.filter(namespace=namespace).exists()


def test_a_snapshot_of_another_namespace_is_refused(api, other_api, namespace, make_person) -> None:
    make_person("alice")
    response = restore(other_api, export(api), dry_run=True)
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "namespace_mismatch"


def test_restore_after_forget_resurrects_nothing(api, namespace, make_person) -> None:
    person = make_person("alice")
    body = export(api)
    target = person.memories[0]
    assert api.delete(f"/api/v1/memories/{target.pk}").status_code == 204
    answer = restore(api, body, dry_run=False).json()
    assert answer["by_type"]["memory"]["suppressed"] == 1
    assert not Memory.objects.filter(pk=target.pk).exists()
    assert not Memory.objects.filter(namespace=namespace, fingerprint=target.fingerprint).exists()


def test_restore_after_forget_resurrects_nothing_when_the_tombstones_are_too_many_to_keep(
    api, namespace, make_person, monkeypatch
) -> None:
    # Past the limit every text is looked up in the database instead of among the kept fingerprints.
    monkeypatch.setattr("memoryadmin.governance.snapshots.validate.KEPT_TOMBSTONE_FINGERPRINTS", 1)
    person = make_person("alice")
    body = export(api)
    target = person.memories[0]
    assert api.delete(f"/api/v1/memories/{target.pk}").status_code == 204
    assert Tombstone.objects.filter(namespace=namespace).count() > 1
    answer = restore(api, body, dry_run=False).json()
    assert answer["by_type"]["memory"]["suppressed"] == 1
    assert not Memory.objects.filter(pk=target.pk).exists()


def test_restore_after_erasure_resurrects_nothing(api, namespace, make_person) -> None:
    make_person("alice")
    bob = make_person("bob")
    body = export(api)
    erasure = erasure_request(namespace=namespace, user_id="alice", actor=SYSTEM)
    assert erasure_execute(erasure_id=erasure.pk).status == "completed"
    wipe_bob = [m.pk for m in bob.memories]
    Memory.objects.filter(pk__in=wipe_bob).delete()
    answer = restore(api, body, dry_run=False).json()
    assert answer["counts"]["skipped_erased"] > 0
    assert not Session.objects.filter(namespace=namespace, user_id="alice").exists()
    assert not Memory.objects.filter(namespace=namespace, user_id="alice").exists()
    assert not Tombstone.objects.filter(namespace=namespace, user_id="alice").exists()
    # The bystander's memories come back.
    assert set(Memory.objects.filter(namespace=namespace, user_id="bob").values_list("pk", flat=True)) == set(wipe_bob)


def test_a_person_can_come_back_after_an_erasure(api, namespace, make_person) -> None:
    make_person("alice")
    erasure = erasure_request(namespace=namespace, user_id="alice", actor=SYSTEM)
    assert erasure_execute(erasure_id=erasure.pk).status == "completed"
    make_person("alice", sessions=1)
    body = export(api)
    wipe(namespace)
    answer = restore(api, body, dry_run=False).json()
    assert answer["counts"]["skipped_erased"] == 0
    assert Memory.objects.filter(namespace=namespace, user_id="alice").count() == 1


def test_a_subject_export_holds_only_that_person(api, namespace, make_person) -> None:
    make_person("alice")
    make_person("bob")
    records = lines_of(export(api, "/api/v1/subjects/alice/export"))
    assert records[0]["user_id"] == "alice"
    body = records[1:-1]
    assert body and all(r.get("user_id", "alice") == "alice" for r in body)
    assert {r["session_id"] for r in body if r["type"] in ("session", "message")} == {"alice-chat-0", "alice-chat-1"}
    assert b"bob" not in export(api, "/api/v1/subjects/alice/export")


def test_a_subject_export_of_nobody_is_empty(api, namespace) -> None:
    records = lines_of(export(api, "/api/v1/subjects/nobody/export"))
    assert len(records) == 2 and records[1]["type"] == "end"


def test_export_checks_namespace(api, other_api, namespace, make_person) -> None:
    make_person("alice")
    records = lines_of(export(other_api, "/api/v1/snapshots/export"))
    assert records[0]["namespace"] == "bravo" and len(records) == 2


def test_export_rejects_a_bad_user_id(api) -> None:
    assert api.get("/api/v1/subjects/bad%20id/export").status_code == 400
    assert api.get("/api/v1/snapshots/export?user_id=bad%20id").status_code == 400


def test_export_requires_a_key_and_restore_the_write_scope(anon_api, namespace, make_key) -> None:
    from tests.conftest import ApiClient

    assert anon_api.get("/api/v1/snapshots/export").status_code == 401
    reader = ApiClient(make_key(namespace, "read")[1])
    assert restore(reader, b"{}\n", dry_run=True).status_code == 403


def test_export_memory_stays_flat_and_queries_are_bounded(
    namespace, make_person, django_assert_max_num_queries
) -> None:
    for n in range(5):
        make_person(f"user{n}")
    with django_assert_max_num_queries(20):
        lines = list(snapshot_export_lines(namespace=namespace))
    assert len(lines) == 2 + 5 * 19


def test_restore_from_a_file_object_works_without_the_api(namespace, make_person) -> None:
    make_person("alice")
    body = b"".join(snapshot_export_lines(namespace=namespace))
    wipe(namespace)
    result = snapshot_restore(namespace=namespace, source=io.BytesIO(body), actor=SYSTEM, dry_run=False)
    assert result.counts["created"] == 19
    assert result.by_type["memory"]["created"] == 2


def test_a_snapshot_larger_than_the_api_body_limit_restores(api, namespace, make_person, settings) -> None:
    make_person("alice")
    lines = export(api).splitlines(keepends=True)[:-1]
    index = next(i for i, line in enumerate(lines) if b'"type":"memory"' in line)
    record = json.loads(lines[index])
    record["metadata"] = {"notes": "x" * (settings.MAX_REQUEST_BYTES + 1000)}
    lines[index] = orjson.dumps(record) + b"\n"
    body = resign(lines)
    assert len(body) > settings.MAX_REQUEST_BYTES
    response = restore(api, body, dry_run=True)
    assert response.status_code == 200, response.content[:300]
    assert response.json()["by_type"]["memory"]["updated"] == 1


def test_a_snapshot_over_its_own_limit_is_413(api, namespace, settings) -> None:
    settings.MAX_SNAPSHOT_UPLOAD_BYTES = 2048
    response = restore(api, b"x" * 4096, dry_run=True)
    assert response.status_code == 413
