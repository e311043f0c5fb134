from __future__ import annotations

from django.apps import AppConfig


class GovernanceConfig(AppConfig):
    name = "memoryadmin.governance"
    label = "governance"

    def ready(self) -> None:
        from memoryadmin.audit.services import AuditTarget, audit_target
        from memoryadmin.core.personal_data import Treatment, register_treatment
        from memoryadmin.governance.models import (
            ErasureRequest,
            ForgettingPolicy,
            ForgettingRun,
            PrivacyLink,
            SnapshotRestore,
        )
        from memoryadmin.governance.restore_jobs import restore_uploads_discard

        audit_target(ErasureRequest, AuditTarget("erasure"))
        audit_target(ForgettingPolicy, AuditTarget("forgetting_policy"))
        audit_target(ForgettingRun, AuditTarget("forgetting_run"))
        audit_target(PrivacyLink, AuditTarget("privacy_link"))
        audit_target(SnapshotRestore, AuditTarget("snapshot_restore"))

        # Uploads not yet applied may hold the person's data: they go, with their chunks.
        register_treatment(
            Treatment(
                store="snapshot_uploads",
                declaration="discarded",
                models=("governance.SnapshotRestore", "governance.SnapshotChunk"),
                apply=restore_uploads_discard,
            )
        )
