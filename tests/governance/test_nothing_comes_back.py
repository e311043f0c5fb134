"""What was forgotten or erased stays gone: every earlier text of a memory, and uploads waiting to be applied."""

from __future__ import annotations

import io

import pytest
from django.urls import reverse

from memoryadmin.governance.models import SnapshotChunk, SnapshotRestore
from memoryadmin.governance.snapshots import snapshot_export_lines
from memoryadmin.memories.models import Memory, Tombstone
from tests.governance.conftest import populate
from tests.governance.test_erasure import erase_via_api
from tests.governance.test_snapshots import export, restore


def remember(api, text: str, user_id: str = "alice") -> dict:
    response = api.post("/api/v1/memories", {"user_id": user_id, "text": text})
    assert response.status_code == 201, response.content
    return response.json()


def test_forgetting_an_edited_memory_forgets_every_text_it_ever_had(api, namespace) -> None:
    memory = remember(api, "Alice loves tacos")
    earlier = export(api)
    edited = api.patch(f"/api/v1/memories/{memory['id']}", {"text": "Alice loves tacos and ramen"})
    assert edited.status_code == 200, edited.content
    assert api.delete(f"/api/v1/memories/{memory['id']}").status_code == 204

    for text in ("Alice loves tacos", "Alice loves tacos and ramen"):
        again = api.post("/api/v1/memories", {"user_id": "alice", "text": text})
        assert again.status_code == 409 and again.json()["error"]["code"] == "tombstoned", text
    # Neither does a snapshot taken before the edit bring the old text back.
    result = restore(api, earlier, dry_run=False)
    assert result.status_code == 200, result.content
    assert not Memory.objects.filter(namespace=namespace).exists()
    assert Tombstone.objects.filter(namespace=namespace, user_id="alice").count() == 2


def test_a_forgetting_policy_forgets_every_earlier_text_too(api, namespace) -> None:
    memory = remember(api, "Alice drives a red Prius")
    api.patch(f"/api/v1/memories/{memory['id']}", {"text": "Alice drives a blue Prius"})
    Memory.objects.filter(pk=memory["id"]).update(created_at="2020-01-01T00:00:00Z")
    run = api.post("/api/v1/memories/forget", {"policy": {"max_age_days": 30}, "user_id": "alice", "dry_run": False})
    assert run.status_code == 200, run.content
    assert run.json()["deleted"] == 1
    again = api.post("/api/v1/memories", {"user_id": "alice", "text": "Alice drives a red Prius"})
    assert again.status_code == 409 and again.json()["error"]["code"] == "tombstoned"


def test_a_restored_revision_with_forgotten_text_is_suppressed(api, namespace) -> None:
    memory = remember(api, "Alice lives in Lyon")
    api.patch(f"/api/v1/memories/{memory['id']}", {"text": "Alice lives in Paris"})
    before = export(api)
    api.delete(f"/api/v1/memories/{memory['id']}")
    restore(api, before, dry_run=False)
    assert not Memory.objects.filter(namespace=namespace).exists()
    assert api.get(f"/api/v1/memories/{memory['id']}/revisions").status_code == 404


@pytest.mark.django_db(transaction=True)
def test_an_erasure_discards_uploads_not_yet_applied_and_their_samples(
    api, admin_client, namespace, eager_celery, django_capture_on_commit_callbacks
) -> None:
    populate(namespace, "alice")
    body = b"".join(snapshot_export_lines(namespace=namespace))
    Memory.objects.filter(namespace=namespace).delete()
    upload = io.BytesIO(body)
    upload.name = "alpha.jsonl"
    with django_capture_on_commit_callbacks(execute=True):
        admin_client.post(reverse("console:snapshot_upload"), {"ns": "alpha", "file": upload})
    job = SnapshotRestore.objects.get()
    assert job.status == "succeeded" and job.samples and job.chunks.exists()

    accepted = erase_via_api(api, "alice", django_capture_on_commit_callbacks)
    status = api.get(f"/api/v1/erasures/{accepted['erasure_id']}").json()
    assert status["status"] == "completed", status
    assert status["counts"]["snapshot_uploads"] == 1
    job.refresh_from_db()
    assert not SnapshotChunk.objects.exists()
    assert job.samples == {} and job.status == "failed" and "erasure" in job.error
    with django_capture_on_commit_callbacks(execute=True):
        applied = admin_client.post(reverse("console:snapshot_restore_apply", args=[job.pk]), {"confirm_apply": "yes"})
    assert applied.status_code in (302, 409)
    assert not Memory.objects.filter(namespace=namespace, user_id="alice").exists()


def test_an_erasure_blanks_the_free_text_of_the_persons_audit_events_and_the_chain_still_verifies(
    api, namespace, eager_celery, django_capture_on_commit_callbacks
) -> None:
    from memoryadmin.audit.models import AuditEvent
    from memoryadmin.audit.services import verify_audit_chain

    memory = remember(api, "Alice likes tea")
    said = "Alice moved to 12 Rue de la Paix and asked us to drop this"
    assert api.delete(f"/api/v1/memories/{memory['id']}?reason={said}").status_code == 204
    bob = remember(api, "Bob likes coffee", user_id="bob")
    assert api.delete(f"/api/v1/memories/{bob['id']}?reason=Bob changed his mind").status_code == 204
    assert AuditEvent.objects.filter(reason=said).exists()

    accepted = erase_via_api(api, "alice", django_capture_on_commit_callbacks)
    status = api.get(f"/api/v1/erasures/{accepted['erasure_id']}").json()
    assert status["status"] == "completed", status
    assert status["counts"]["audit_reasons"] >= 1
    assert not AuditEvent.objects.filter(reason__contains="Rue de la Paix").exists()
    forgotten = AuditEvent.objects.get(action="memory.forget", target_id=memory["id"])
    assert forgotten.reason == "" and forgotten.reason_redacted
    # Bystanders keep theirs, and every event still verifies against its keyed digest.
    assert AuditEvent.objects.get(action="memory.forget", target_id=bob["id"]).reason == "Bob changed his mind"
    assert verify_audit_chain(namespace.pk, all_chains=False).ok


@pytest.mark.django_db(transaction=True)
def test_the_only_change_an_audit_event_accepts_is_blanking_its_hashed_reason(api, namespace) -> None:
    from django.db import DatabaseError, connection, transaction

    from memoryadmin.audit.models import AuditEvent

    memory = remember(api, "Alice likes tea")
    api.delete(f"/api/v1/memories/{memory['id']}?reason=because")
    event = AuditEvent.objects.get(action="memory.forget")
    for statement in (
        "UPDATE audit_auditevent SET reason = 'something else' WHERE id = %s",
        "UPDATE audit_auditevent SET reason = '', action = 'memory.pin' WHERE id = %s",
        "UPDATE audit_auditevent SET reason_digest = '' WHERE id = %s",
        "DELETE FROM audit_auditevent WHERE id = %s",
    ):
        with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(statement, [event.pk])
    with connection.cursor() as cursor:
        cursor.execute("UPDATE audit_auditevent SET reason = '' WHERE id = %s", [event.pk])
    assert AuditEvent.objects.get(pk=event.pk).reason_redacted


def _tables_holding(marker: str) -> dict[str, int]:
    """Every table of the database read as text, row by row: what `pg_dump --data-only` would show."""
    from django.db import connection

    found = {}
    with connection.cursor() as cursor:
        tables = connection.introspection.table_names(cursor)
        for table in tables:
            quoted = connection.ops.quote_name(table)
            cursor.execute(f"SELECT count(*) FROM {quoted} AS t WHERE strpos(t::text, %s) > 0", [marker])
            if n := cursor.fetchone()[0]:
                found[table] = n
    return found


def test_after_an_erasure_no_table_holds_the_persons_id_anywhere(
    api, admin_client, namespace, eager_celery, django_capture_on_commit_callbacks
) -> None:
    marker = "zq-marker-4417"
    populate(namespace, marker)
    # A link made for the person and revoked with a reason that names them.
    link = api.post(f"/api/v1/subjects/{marker}/privacy-link").json()
    revoked = api.delete(f"/api/v1/privacy-links/{link['link_id']}?reason=asked by {marker} on the phone")
    assert revoked.status_code == 204
    # An upload whose file name is the person's, discarded by the erasure with the rest.
    upload = io.BytesIO(b"".join(snapshot_export_lines(namespace=namespace)))
    upload.name = f"{marker}.jsonl"
    with django_capture_on_commit_callbacks(execute=True):
        admin_client.post(reverse("console:snapshot_upload"), {"ns": namespace.slug, "file": upload})
    # An operator who looked the person up in the audit log and exported what they found.
    exported = admin_client.get(reverse("console:audit_export"), {"ns": namespace.slug, "target": f"user:{marker}"})
    assert exported.status_code == 200
    b"".join(exported.streaming_content)
    assert _tables_holding(marker)

    accepted = erase_via_api(api, marker, django_capture_on_commit_callbacks)
    assert api.get(f"/api/v1/erasures/{accepted['erasure_id']}").json()["status"] == "completed"
    assert _tables_holding(marker) == {}
