from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.urls import include, path

from memoryadmin.console import (
    audit_views,
    governance_views,
    memory_views,
    namespace_views,
    people_views,
    review_views,
    run_views,
    session_views,
    subject_views,
    tombstone_views,
    views,
    webhook_views,
)

# The pages of one object, each group under the object's own prefix.
webhook_urls = [
    path("", webhook_views.webhook, name="webhook"),
    path("status/", webhook_views.webhook_status, name="webhook_status"),
    path("delete/", webhook_views.webhook_remove, name="webhook_delete"),
    path("test/", webhook_views.webhook_test, name="webhook_test"),
    path("deliveries/<int:delivery_id>/redeliver/", webhook_views.webhook_redeliver, name="webhook_redeliver"),
]
namespace_urls = [
    path("", namespace_views.namespace, name="namespace"),
    path("settings/", namespace_views.namespace_settings, name="namespace_settings"),
    path("keys/", namespace_views.api_key_new, name="api_key_new"),
    path("keys/<int:key_id>/", namespace_views.api_key, name="api_key"),
    path("keys/<int:key_id>/revoke/", namespace_views.api_key_revoke_view, name="api_key_revoke"),
    path("webhooks/", webhook_views.webhooks, name="webhooks"),
    path("webhooks/new/", webhook_views.webhook_new, name="webhook_new"),
    path("webhooks/<uuid:webhook_id>/", include(webhook_urls)),
]
memory_urls = [
    path("", memory_views.memory, name="memory"),
    path("row/", memory_views.memory_row, name="memory_row"),
    path("pin/", memory_views.memory_pin, name="memory_pin"),
    path("unpin/", memory_views.memory_unpin, name="memory_unpin"),
    path("edit/", memory_views.memory_edit, name="memory_edit"),
    path("forget/", memory_views.memory_forget, name="memory_forget"),
    path("approve/", memory_views.memory_approve, name="memory_approve"),
    path("reject/", memory_views.memory_reject, name="memory_reject"),
]
session_urls = [
    path("", session_views.transcript, name="transcript"),
    path("extract/", session_views.extract_now, name="extract_now"),
    path("runs/", session_views.session_runs, name="session_runs"),
    path("delete/", session_views.session_remove, name="session_delete"),
    path("working-memory/clear/", session_views.working_memory_clear_view, name="working_memory_clear"),
]
subject_urls = [
    path("", subject_views.subject, name="subject"),
    path("export/", subject_views.subject_export, name="subject_export"),
    path("privacy-link/", subject_views.subject_privacy_link, name="subject_privacy_link"),
    path(
        "privacy-links/<uuid:link_id>/revoke/",
        subject_views.subject_privacy_link_revoke,
        name="subject_privacy_link_revoke",
    ),
    path("erase/", subject_views.subject_erase, name="subject_erase"),
    path("erasures/", subject_views.subject_erasures, name="subject_erasures"),
]
# Forgetting policies, snapshots and erasures.
restore_urls = [
    path("", governance_views.snapshot_restore, name="snapshot_restore"),
    path("apply/", governance_views.snapshot_restore_apply, name="snapshot_restore_apply"),
    path("discard/", governance_views.snapshot_restore_discard, name="snapshot_restore_discard"),
]
erasure_urls = [
    path("", governance_views.erasure, name="erasure"),
    path("receipt.json", governance_views.erasure_receipt, name="erasure_receipt"),
    path("retry/", governance_views.erasure_retry, name="erasure_retry"),
]
governance_urls = [
    path("forgetting/", governance_views.forgetting, name="forgetting"),
    path("forgetting/preview/", governance_views.forgetting_preview, name="forgetting_preview"),
    path("forgetting/save/", governance_views.forgetting_save, name="forgetting_save"),
    path("forgetting/run/", governance_views.forgetting_run_now, name="forgetting_run"),
    path("snapshots/", governance_views.snapshots, name="snapshots"),
    path("snapshots/export/", governance_views.snapshot_export, name="snapshot_export"),
    path("snapshots/restore/", governance_views.snapshot_upload, name="snapshot_upload"),
    path("snapshots/restores/<uuid:restore_id>/", include(restore_urls)),
    path("erasures/", governance_views.erasures, name="erasures"),
    path("erasures/<uuid:erasure_id>/", include(erasure_urls)),
]

app_name = "console"
urlpatterns = [
    path("login/", auth_views.LoginView.as_view(template_name="console/login.html"), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("", views.dashboard, name="dashboard"),
    path("health/", views.health, name="health"),
    path("search-index/rebuild/", views.search_index_rebuild, name="search_index_rebuild"),
    path("namespaces/", namespace_views.namespaces, name="namespaces"),
    path("new-namespace/", namespace_views.namespace_new, name="namespace_new"),
    path("namespaces/<slug:slug>/", include(namespace_urls)),
    path("memories/", memory_views.memories, name="memories"),
    path("memories/bulk/", memory_views.memories_bulk, name="memories_bulk"),
    path("memories/<uuid:memory_id>/", include(memory_urls)),
    path("review/", review_views.review, name="review"),
    path("sessions/", session_views.sessions, name="sessions"),
    path("sessions/<int:session_pk>/", include(session_urls)),
    path("runs/", run_views.extraction_runs, name="extraction_runs"),
    path("subjects/", subject_views.subjects, name="subjects"),
    path("subjects/everywhere/", subject_views.subject_everywhere, name="subject_everywhere"),
    path("subjects/<int:namespace_id>/<str:user_id>/", include(subject_urls)),
    path("tombstones/", tombstone_views.tombstones, name="tombstones"),
    path("tombstones/<int:tombstone_id>/lift/", tombstone_views.tombstone_lift_view, name="tombstone_lift"),
    path("people/", people_views.people, name="people"),
    path("new-person/", people_views.person_new, name="person_new"),
    # `path:` so that an account named before names had rules (one holding a "/") can still be managed;
    # the actions come first, or the person's page would take "olivia/role" for a name.
    path("people/<path:username>/role/", people_views.person_role, name="person_role"),
    path("people/<path:username>/namespaces/", people_views.person_namespaces, name="person_namespaces"),
    path("people/<path:username>/deactivate/", people_views.person_deactivate, name="person_deactivate"),
    path("people/<path:username>/reactivate/", people_views.person_reactivate, name="person_reactivate"),
    path("people/<path:username>/", people_views.person, name="person"),
    path("audit/", audit_views.audit, name="audit"),
    path("audit/chain/", audit_views.audit_chain, name="audit_chain"),
    path("audit/export.csv", audit_views.audit_export, name="audit_export"),
    path("governance/", include(governance_urls)),
]
