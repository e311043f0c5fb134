from __future__ import annotations

from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    name = "memoryadmin.webhooks"
    label = "webhooks"

    def ready(self) -> None:
        from memoryadmin.audit.services import AuditTarget, audit_observe, audit_target
        from memoryadmin.webhooks.models import WebhookEndpoint
        from memoryadmin.webhooks.outbox import outbox_from_audit

        audit_observe(outbox_from_audit)
        audit_target(WebhookEndpoint, AuditTarget("webhook"))
