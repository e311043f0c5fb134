from __future__ import annotations

from django.apps import AppConfig


class ExtractionConfig(AppConfig):
    name = "memoryadmin.extraction"
    label = "extraction"

    def ready(self) -> None:
        from memoryadmin.conversations.signals import messages_appended
        from memoryadmin.extraction.receivers import schedule_after_append

        messages_appended.connect(schedule_after_append, dispatch_uid="extraction.schedule_after_append")
