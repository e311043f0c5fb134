from __future__ import annotations

from django.apps import AppConfig


class GovernanceConfig(AppConfig):
    name = "memoryadmin.governance"
    label = "governance"
