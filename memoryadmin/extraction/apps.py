from __future__ import annotations

from django.apps import AppConfig


class ExtractionConfig(AppConfig):
    name = "memoryadmin.extraction"
    label = "extraction"

    def ready(self) -> None:
        from memoryadmin.conversations.signals import messages_appended
        from memoryadmin.core.personal_data import register_key_family
        from memoryadmin.extraction.receivers import schedule_after_append
        from memoryadmin.extraction.services import SCHEDULE_KEYS

        messages_appended.connect(schedule_after_append, dispatch_uid="extraction.schedule_after_append")
        register_key_family(SCHEDULE_KEYS)
