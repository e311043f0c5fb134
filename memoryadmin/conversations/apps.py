from __future__ import annotations

from django.apps import AppConfig


class ConversationsConfig(AppConfig):
    name = "memoryadmin.conversations"
    label = "conversations"

    def ready(self) -> None:
        from memoryadmin.conversations.working_memory import WORKING_MEMORY_KEYS
        from memoryadmin.core.personal_data import register_key_family

        register_key_family(WORKING_MEMORY_KEYS)
