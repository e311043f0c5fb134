from __future__ import annotations

from django.apps import AppConfig


class PrivacyConfig(AppConfig):
    name = "memoryadmin.privacy"
    label = "privacy"
