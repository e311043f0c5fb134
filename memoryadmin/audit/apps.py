from __future__ import annotations

from django.apps import AppConfig


class AuditConfig(AppConfig):
    name = "memoryadmin.audit"
    label = "audit"

    def ready(self) -> None:
        from memoryadmin.audit.services import audit_redact_subject
        from memoryadmin.core.personal_data import Treatment, register_treatment

        # The events stay (the chain must verify); their free text about the person is blanked.
        register_treatment(
            Treatment(
                store="audit_reasons",
                declaration="redacted",
                models=("audit.AuditEvent",),
                apply=audit_redact_subject,
            )
        )
