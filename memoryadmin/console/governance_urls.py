from __future__ import annotations

from django.urls import include, path

from memoryadmin.console import governance_views as views

restore_urls = [
    path("", views.snapshot_restore, name="snapshot_restore"),
    path("apply/", views.snapshot_restore_apply, name="snapshot_restore_apply"),
    path("discard/", views.snapshot_restore_discard, name="snapshot_restore_discard"),
]
erasure_urls = [
    path("", views.erasure, name="erasure"),
    path("receipt.json", views.erasure_receipt, name="erasure_receipt"),
    path("retry/", views.erasure_retry, name="erasure_retry"),
]

# Included inside the console's namespace: names resolve as "console:forgetting" and so on.
urlpatterns = [
    path("forgetting/", views.forgetting, name="forgetting"),
    path("forgetting/preview/", views.forgetting_preview, name="forgetting_preview"),
    path("forgetting/save/", views.forgetting_save, name="forgetting_save"),
    path("forgetting/run/", views.forgetting_run_now, name="forgetting_run"),
    path("snapshots/", views.snapshots, name="snapshots"),
    path("snapshots/export/", views.snapshot_export, name="snapshot_export"),
    path("snapshots/restore/", views.snapshot_upload, name="snapshot_upload"),
    path("snapshots/restores/<uuid:restore_id>/", include(restore_urls)),
    path("erasures/", views.erasures, name="erasures"),
    path("erasures/<uuid:erasure_id>/", include(erasure_urls)),
]
