from __future__ import annotations

from django.apps import AppConfig


class ConsoleConfig(AppConfig):
    name = "memoryadmin.console"
    label = "console"
