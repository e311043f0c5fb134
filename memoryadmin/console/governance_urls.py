from __future__ import annotations

from django.urls import path

from memoryadmin.console import governance_views as views

# Included inside the console's namespace: names resolve as "console:forgetting" and so on.
urlpatterns = [
    path("forgetting/", views.forgetting, name="forgetting"),
    path("forgetting/preview/", views.forgetting_preview, name="forgetting_preview"),
    path("forgetting/save/", views.forgetting_save, name="forgetting_save"),
    path("forgetting/run/", views.forgetting_run_now, name="forgetting_run"),
    path("snapshots/", views.snapshots, name="snapshots"),
    path("snapshots/export/", views.snapshot_export, name="snapshot_export"),
    path("snapshots/restore/", views.snapshot_upload, name="snapshot_upload"),
    path("snapshots/restores/<uuid:restore_id>/", views.snapshot_restore, name="snapshot_restore"),
    path("snapshots/restores/<uuid:restore_id>/apply/", views.snapshot_restore_apply, name="snapshot_restore_apply"),
    path(
        "snapshots/restores/<uuid:restore_id>/discard/",
        views.snapshot_restore_discard,
        name="snapshot_restore_discard",
    ),
    path("erasures/", views.erasures, name="erasures"),
    path("erasures/<uuid:erasure_id>/", views.erasure, name="erasure"),
    path("erasures/<uuid:erasure_id>/receipt.json", views.erasure_receipt, name="erasure_receipt"),
    path("erasures/<uuid:erasure_id>/retry/", views.erasure_retry, name="erasure_retry"),
]
