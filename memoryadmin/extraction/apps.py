from __future__ import annotations

from django.apps import AppConfig


class ExtractionConfig(AppConfig):
    name = "memoryadmin.extraction"
    label = "extraction"
