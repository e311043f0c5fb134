from __future__ import annotations

from django.apps import AppConfig


class MemoriesConfig(AppConfig):
    name = "memoryadmin.memories"
    label = "memories"

    def ready(self) -> None:
        from memoryadmin.audit.services import AuditTarget, audit_target
        from memoryadmin.memories.models import Memory, Tombstone

        audit_target(Memory, AuditTarget("memory", personal=True))
        audit_target(Tombstone, AuditTarget("tombstone", personal=True))
