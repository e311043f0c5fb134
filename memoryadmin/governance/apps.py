from __future__ import annotations

from django.apps import AppConfig


class GovernanceConfig(AppConfig):
    name = "memoryadmin.governance"
    label = "governance"

    def ready(self) -> None:
        from memoryadmin.core.personal_data import Treatment, register_treatment
        from memoryadmin.governance.restore_jobs import restore_uploads_discard

        # Uploads not yet applied may hold the person's data: they go, with their chunks.
        register_treatment(
            Treatment(
                store="snapshot_uploads",
                declaration="discarded",
                models=("governance.SnapshotRestore", "governance.SnapshotChunk"),
                apply=restore_uploads_discard,
            )
        )
