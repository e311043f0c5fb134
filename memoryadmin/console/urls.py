from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.urls import include, path

from memoryadmin.console import (
    audit_views,
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

app_name = "console"
urlpatterns = [
    path("login/", auth_views.LoginView.as_view(template_name="console/login.html"), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("", views.dashboard, name="dashboard"),
    path("health/", views.health, name="health"),
    path("search-index/rebuild/", views.search_index_rebuild, name="search_index_rebuild"),
    path("namespaces/", namespace_views.namespaces, name="namespaces"),
    path("new-namespace/", namespace_views.namespace_new, name="namespace_new"),
    path("namespaces/<slug:slug>/", namespace_views.namespace, name="namespace"),
    path("namespaces/<slug:slug>/settings/", namespace_views.namespace_settings, name="namespace_settings"),
    path("namespaces/<slug:slug>/keys/", namespace_views.api_key_new, name="api_key_new"),
    path("namespaces/<slug:slug>/webhooks/", webhook_views.webhooks, name="webhooks"),
    path("namespaces/<slug:slug>/webhooks/new/", webhook_views.webhook_new, name="webhook_new"),
    path("namespaces/<slug:slug>/webhooks/<uuid:webhook_id>/", webhook_views.webhook, name="webhook"),
    path(
        "namespaces/<slug:slug>/webhooks/<uuid:webhook_id>/status/", webhook_views.webhook_status, name="webhook_status"
    ),
    path(
        "namespaces/<slug:slug>/webhooks/<uuid:webhook_id>/delete/", webhook_views.webhook_remove, name="webhook_delete"
    ),
    path("namespaces/<slug:slug>/webhooks/<uuid:webhook_id>/test/", webhook_views.webhook_test, name="webhook_test"),
    path(
        "namespaces/<slug:slug>/webhooks/<uuid:webhook_id>/deliveries/<int:delivery_id>/redeliver/",
        webhook_views.webhook_redeliver,
        name="webhook_redeliver",
    ),
    path("namespaces/<slug:slug>/keys/<int:key_id>/", namespace_views.api_key, name="api_key"),
    path(
        "namespaces/<slug:slug>/keys/<int:key_id>/revoke/",
        namespace_views.api_key_revoke_view,
        name="api_key_revoke",
    ),
    path("memories/", memory_views.memories, name="memories"),
    path("memories/bulk/", memory_views.memories_bulk, name="memories_bulk"),
    path("memories/<uuid:memory_id>/", memory_views.memory, name="memory"),
    path("memories/<uuid:memory_id>/row/", memory_views.memory_row, name="memory_row"),
    path("memories/<uuid:memory_id>/pin/", memory_views.memory_pin, name="memory_pin"),
    path("memories/<uuid:memory_id>/unpin/", memory_views.memory_unpin, name="memory_unpin"),
    path("memories/<uuid:memory_id>/edit/", memory_views.memory_edit, name="memory_edit"),
    path("memories/<uuid:memory_id>/forget/", memory_views.memory_forget, name="memory_forget"),
    path("memories/<uuid:memory_id>/approve/", memory_views.memory_approve, name="memory_approve"),
    path("memories/<uuid:memory_id>/reject/", memory_views.memory_reject, name="memory_reject"),
    path("review/", review_views.review, name="review"),
    path("sessions/", session_views.sessions, name="sessions"),
    path("sessions/<int:session_pk>/", session_views.transcript, name="transcript"),
    path("sessions/<int:session_pk>/extract/", session_views.extract_now, name="extract_now"),
    path("sessions/<int:session_pk>/runs/", session_views.session_runs, name="session_runs"),
    path("sessions/<int:session_pk>/delete/", session_views.session_remove, name="session_delete"),
    path(
        "sessions/<int:session_pk>/working-memory/clear/",
        session_views.working_memory_clear_view,
        name="working_memory_clear",
    ),
    path("runs/", run_views.extraction_runs, name="extraction_runs"),
    path("subjects/", subject_views.subjects, name="subjects"),
    path("subjects/everywhere/", subject_views.subject_everywhere, name="subject_everywhere"),
    path("subjects/<int:namespace_id>/<str:user_id>/", subject_views.subject, name="subject"),
    path("subjects/<int:namespace_id>/<str:user_id>/export/", subject_views.subject_export, name="subject_export"),
    path(
        "subjects/<int:namespace_id>/<str:user_id>/privacy-link/",
        subject_views.subject_privacy_link,
        name="subject_privacy_link",
    ),
    path(
        "subjects/<int:namespace_id>/<str:user_id>/privacy-links/<uuid:link_id>/revoke/",
        subject_views.subject_privacy_link_revoke,
        name="subject_privacy_link_revoke",
    ),
    path("subjects/<int:namespace_id>/<str:user_id>/erase/", subject_views.subject_erase, name="subject_erase"),
    path(
        "subjects/<int:namespace_id>/<str:user_id>/erasures/",
        subject_views.subject_erasures,
        name="subject_erasures",
    ),
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
    # Forgetting policies, snapshots and erasures have their own module.
    path("governance/", include("memoryadmin.console.governance_urls")),
]
