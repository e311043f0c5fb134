from __future__ import annotations

from django.apps import AppConfig


class ConversationsConfig(AppConfig):
    name = "memoryadmin.conversations"
    label = "conversations"

    def ready(self) -> None:
        from memoryadmin.audit.services import AuditTarget, audit_target
        from memoryadmin.conversations.models import Session
        from memoryadmin.conversations.working_memory import WORKING_MEMORY_KEYS
        from memoryadmin.core.personal_data import register_key_family

        register_key_family(WORKING_MEMORY_KEYS)
        # By its key, not its app-chosen id: an audit event outlives an erasure and must not name it.
        audit_target(Session, AuditTarget("session", personal=True))
