"""The console's governance pages: forgetting with its preview, snapshots, erasures — and who may do what."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from memoryadmin.governance.erasure import erasure_execute, erasure_request
from memoryadmin.governance.models import ErasureRequest, ForgettingPolicy, ForgettingRun, SnapshotRestore
from memoryadmin.governance.snapshots import snapshot_export_lines
from memoryadmin.memories.models import Memory
from memoryadmin.memories.services import memory_create
from tests.conftest import SYSTEM
from tests.governance.conftest import populate

POLICY = {
    "max_age_days": "30",
    "max_inactive_days": "",
    "hard_age_multiplier": "12",
    "budget": "",
    "interval_hours": "24",
}


def old_memory(namespace, text, days=100):
    return memory_create(
        namespace=namespace, user_id="u1", text=text, actor=SYSTEM, created_at=timezone.now() - timedelta(days=days)
    ).memory


@pytest.mark.parametrize("name", ["forgetting", "snapshots", "erasures"])
def test_the_pages_render_for_a_viewer(viewer_client, namespace, name) -> None:
    response = viewer_client.get(reverse(f"console:{name}") + "?ns=alpha")
    assert response.status_code == 200
    assert b"<h1>" in response.content


@pytest.mark.parametrize("name", ["forgetting", "snapshots", "erasures"])
def test_the_pages_need_a_role(norole_client, namespace, name) -> None:
    assert norole_client.get(reverse(f"console:{name}")).status_code == 403


def test_the_policy_form_explains_its_hard_age_and_budget(viewer_client, namespace) -> None:
    html = viewer_client.get(reverse("console:forgetting") + "?ns=alpha").content.decode()
    assert "even if it is still used: with 30 days and 12, after 360 days" in html
    assert "Beyond this many memories, the least fresh go" in html


def test_an_unknown_namespace_is_404(viewer_client, namespace) -> None:
    assert viewer_client.get(reverse("console:forgetting") + "?ns=nope").status_code == 404


def test_the_preview_shows_how_many_which_and_why(operator_client, namespace, htmx) -> None:
    old = old_memory(namespace, "An old fact")
    old_memory(namespace, "A new fact", days=1)
    response = operator_client.post(reverse("console:forgetting_preview"), {**POLICY, "ns": "alpha"}, headers=htmx)
    assert response.status_code == 200
    html = response.content.decode()
    assert "<strong>1</strong> of 2 memories" in html
    assert "An old fact" in html and "A new fact" not in html
    assert ">age<" in html and reverse("console:memory", args=[old.pk]) in html
    assert "<html" not in html  # the partial alone
    assert Memory.objects.filter(pk=old.pk).exists()


def test_the_preview_reports_a_bad_policy(operator_client, namespace, htmx) -> None:
    response = operator_client.post(
        reverse("console:forgetting_preview"), {**POLICY, "max_age_days": "-3", "ns": "alpha"}, headers=htmx
    )
    assert response.status_code == 422
    assert b'role="alert"' in response.content


def test_a_viewer_cannot_preview(viewer_client, namespace) -> None:
    assert viewer_client.post(reverse("console:forgetting_preview"), {**POLICY, "ns": "alpha"}).status_code == 403


def test_an_admin_saves_a_policy_and_beat_then_runs_it(admin_client, namespace) -> None:
    from memoryadmin.governance.forgetting import due_forgetting_policies, forgetting_policy_run

    old_memory(namespace, "An old fact")
    response = admin_client.post(reverse("console:forgetting_save"), {**POLICY, "ns": "alpha", "enabled": "on"})
    assert response.status_code == 302
    stored = ForgettingPolicy.objects.get(namespace=namespace)
    assert stored.enabled and stored.max_age_days == 30 and stored.interval_hours == 24
    assert due_forgetting_policies() == [namespace.pk]
    assert due_forgetting_policies() == []  # claimed: not due again until the interval passes
    run = forgetting_policy_run(namespace_id=namespace.pk)
    assert run is not None and run.deleted == 1 and run.trigger == "schedule"
    page = admin_client.get(reverse("console:forgetting") + "?ns=alpha").content.decode()
    assert "schedule" in page and "system:forgetting-policy" in page


def test_an_operator_cannot_save_or_run(operator_client, namespace) -> None:
    assert operator_client.post(reverse("console:forgetting_save"), {**POLICY, "ns": "alpha"}).status_code == 403
    assert operator_client.post(reverse("console:forgetting_run"), {**POLICY, "ns": "alpha"}).status_code == 403
    assert not ForgettingPolicy.objects.exists()


def test_run_now_needs_the_confirmation_and_then_forgets(
    admin_client, namespace, eager_celery, django_capture_on_commit_callbacks
) -> None:
    old = old_memory(namespace, "An old fact")
    admin_client.post(reverse("console:forgetting_run"), {**POLICY, "ns": "alpha"})
    assert Memory.objects.filter(pk=old.pk).exists()
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(reverse("console:forgetting_run"), {**POLICY, "ns": "alpha", "confirm_run": "yes"})
    assert response.status_code == 302
    assert not Memory.objects.filter(pk=old.pk).exists()
    run = ForgettingRun.objects.get()
    assert run.trigger == "console" and run.actor == "operator:alice"


def test_a_refused_run_is_the_form_again_with_what_was_typed(admin_client, namespace) -> None:
    response = admin_client.post(reverse("console:forgetting_run"), {**POLICY, "budget": "500", "ns": "alpha"})
    assert response.status_code == 422
    html = response.content.decode()
    assert html.count("Tick the confirmation box") == 1  # beside the form, not again in the dry run
    assert 'name="max_age_days" value="30"' in html and 'name="budget" value="500"' in html
    assert not ForgettingRun.objects.exists()


def test_a_run_is_pending_at_once_and_the_runs_table_follows_it_until_done(
    admin_client, namespace, htmx, eager_celery, django_capture_on_commit_callbacks
) -> None:
    old = old_memory(namespace, "An old fact")
    with django_capture_on_commit_callbacks() as callbacks:
        admin_client.post(reverse("console:forgetting_run"), {**POLICY, "ns": "alpha", "confirm_run": "yes"})
    run = ForgettingRun.objects.get()
    assert run.status == "pending" and run.trigger == "console" and run.actor == "operator:alice"
    fragment = admin_client.get(reverse("console:forgetting") + "?ns=alpha", headers=htmx).content.decode()
    assert "<html" not in fragment and 'hx-trigger="every 2s"' in fragment and 'data-run-status="pending"' in fragment

    for callback in callbacks:
        callback()
    run.refresh_from_db()
    assert run.status == "succeeded" and run.deleted == 1 and run.finished_at is not None
    assert not Memory.objects.filter(pk=old.pk).exists()
    fragment = admin_client.get(reverse("console:forgetting") + "?ns=alpha", headers=htmx).content.decode()
    assert "hx-trigger" not in fragment and 'data-run-status="succeeded"' in fragment


def test_an_operator_downloads_a_snapshot(operator_client, viewer_client, namespace) -> None:
    populate(namespace, "u1")
    response = operator_client.get(reverse("console:snapshot_export") + "?ns=alpha")
    assert response.status_code == 200
    lines = b"".join(response.streaming_content).splitlines()
    assert len(lines) == 21
    assert viewer_client.get(reverse("console:snapshot_export") + "?ns=alpha").status_code == 403


def test_upload_dry_run_then_apply(admin_client, namespace, eager_celery, django_capture_on_commit_callbacks) -> None:
    populate(namespace, "u1")
    body = b"".join(snapshot_export_lines(namespace=namespace))
    Memory.objects.filter(namespace=namespace).delete()
    upload = io.BytesIO(body)
    upload.name = "alpha.jsonl"
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(reverse("console:snapshot_upload"), {"ns": "alpha", "file": upload})
    assert response.status_code == 302
    job = SnapshotRestore.objects.get()
    assert job.status == "succeeded" and job.dry_run
    assert job.counts["totals"]["created"] == 2 + 3 + 4 + 1  # memories, revisions, evidence, pin
    assert not Memory.objects.filter(namespace=namespace).exists()
    page = admin_client.get(response["Location"]).content.decode()
    assert "Apply restore" in page and "memory" in page
    with django_capture_on_commit_callbacks(execute=True):
        admin_client.post(reverse("console:snapshot_restore_apply", args=[job.pk]), {"confirm_apply": "yes"})
    job.refresh_from_db()
    assert job.status == "succeeded" and not job.dry_run and job.applied_at is not None
    assert Memory.objects.filter(namespace=namespace).count() == 2
    assert not job.chunks.exists()


def dry_run_of(admin_client, body: bytes, capture) -> SnapshotRestore:
    """The restore of `body` uploaded to alpha through the console, its dry run done by the eager worker."""
    upload = io.BytesIO(body)
    upload.name = "alpha.jsonl"
    with capture(execute=True):
        admin_client.post(reverse("console:snapshot_upload"), {"ns": "alpha", "file": upload})
    return SnapshotRestore.objects.get()


def test_a_restore_is_applied_only_once_its_confirmation_is_ticked(
    admin_client, namespace, eager_celery, django_capture_on_commit_callbacks
) -> None:
    populate(namespace, "u1")
    body = b"".join(snapshot_export_lines(namespace=namespace))
    Memory.objects.filter(namespace=namespace).delete()
    job = dry_run_of(admin_client, body, django_capture_on_commit_callbacks)
    page = admin_client.get(reverse("console:snapshot_restore", args=[job.pk])).content.decode()
    assert 'name="confirm_apply" value="yes" required' in page
    with django_capture_on_commit_callbacks(execute=True):
        refused = admin_client.post(reverse("console:snapshot_restore_apply", args=[job.pk]), follow=True)
    assert "Tick the confirmation box" in refused.content.decode()
    job.refresh_from_db()
    assert job.dry_run and job.applied_at is None
    assert not Memory.objects.filter(namespace=namespace).exists()


def test_a_restore_preview_shows_memories_by_their_text(
    admin_client, namespace, eager_celery, django_capture_on_commit_callbacks
) -> None:
    populate(namespace, "u1")
    body = b"".join(snapshot_export_lines(namespace=namespace))
    Memory.objects.filter(namespace=namespace).delete()
    job = dry_run_of(admin_client, body, django_capture_on_commit_callbacks)
    assert {s.get("text") for s in job.samples["created"] if s["type"] == "memory"} == {
        "u1 really likes topic 0",
        "u1 likes topic 1",
    }
    page = admin_client.get(reverse("console:snapshot_restore", args=[job.pk])).content.decode()
    assert "<q>u1 really likes topic 0</q>" in page


def test_a_restore_preview_never_stores_the_text_a_tombstone_keeps_out(
    admin_client, namespace, eager_celery, django_capture_on_commit_callbacks
) -> None:
    from memoryadmin.memories.services import memory_forget

    person = populate(namespace, "u1")
    body = b"".join(snapshot_export_lines(namespace=namespace))
    memory_forget(memory=person.memories[1], actor=SYSTEM, force=True)
    job = dry_run_of(admin_client, body, django_capture_on_commit_callbacks)
    suppressed = [s for s in job.samples["suppressed"] if s["type"] == "memory"]
    assert [s["label"] for s in suppressed] == [str(person.memories[1].pk)]
    assert "text" not in suppressed[0]


def test_a_tampered_upload_fails_its_dry_run_and_cannot_be_applied(
    admin_client, namespace, eager_celery, django_capture_on_commit_callbacks
) -> None:
    populate(namespace, "u1")
    body = b"".join(snapshot_export_lines(namespace=namespace)).replace(b"u1 likes", b"u1 loves")
    upload = io.BytesIO(body)
    upload.name = "bad.jsonl"
    with django_capture_on_commit_callbacks(execute=True):
        admin_client.post(reverse("console:snapshot_upload"), {"ns": "alpha", "file": upload})
    job = SnapshotRestore.objects.get()
    assert job.status == "failed" and "checksum" in job.error
    admin_client.post(reverse("console:snapshot_restore_apply", args=[job.pk]), {"confirm_apply": "yes"})
    job.refresh_from_db()
    assert job.status == "failed" and job.dry_run


def test_the_restore_status_polls_while_running(viewer_client, namespace, htmx, redis_client) -> None:
    from memoryadmin.governance.restore_jobs import progress_key

    job = SnapshotRestore.objects.create(namespace=namespace, requested_by="operator:alice", status="running")
    redis_client.set(progress_key(job.pk), 7)
    response = viewer_client.get(reverse("console:snapshot_restore", args=[job.pk]), headers=htmx)
    html = response.content.decode()
    assert 'hx-trigger="every 2s"' in html and "7 records handled" in html and "<html" not in html


def test_only_an_admin_uploads(operator_client, namespace) -> None:
    upload = io.BytesIO(b"{}\n")
    upload.name = "x.jsonl"
    assert operator_client.post(reverse("console:snapshot_upload"), {"ns": "alpha", "file": upload}).status_code == 403
    assert not SnapshotRestore.objects.exists()


def test_erasures_list_detail_and_receipt(viewer_client, namespace, django_assert_max_num_queries) -> None:
    # An id no random token on the page can hold (tokens have no "." nor "_").
    erased = "erased.person_1"
    populate(namespace, erased)
    done = erasure_execute(erasure_id=erasure_request(namespace=namespace, user_id=erased, actor=SYSTEM).pk)
    erasure_request(namespace=namespace, user_id="u2", actor=SYSTEM)
    with django_assert_max_num_queries(12):
        page = viewer_client.get(reverse("console:erasures") + "?ns=alpha")
    html = page.content.decode()
    assert "completed" in html and "pending" in html and erased not in html
    detail = viewer_client.get(reverse("console:erasure", args=[done.pk])).content.decode()
    assert "verified" in detail and done.receipt["receipt_sha256"] in detail
    receipt = viewer_client.get(reverse("console:erasure_receipt", args=[done.pk]))
    assert receipt["Content-Disposition"].startswith("attachment")
    assert receipt.json()["receipt_sha256"] == done.receipt["receipt_sha256"]


def test_an_admin_retries_a_failed_erasure(admin_client, namespace, eager_celery, django_capture_on_commit_callbacks):
    populate(namespace, "u1")
    erasure = erasure_request(namespace=namespace, user_id="u1", actor=SYSTEM)
    ErasureRequest.objects.filter(pk=erasure.pk).update(status="failed", error="worker lost")
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(reverse("console:erasure_retry", args=[erasure.pk]))
    assert response.status_code == 302
    erasure.refresh_from_db()
    assert erasure.status == "completed"


def test_a_viewer_cannot_retry(viewer_client, namespace) -> None:
    erasure = erasure_request(namespace=namespace, user_id="u1", actor=SYSTEM)
    assert viewer_client.post(reverse("console:erasure_retry", args=[erasure.pk])).status_code == 403
