from __future__ import annotations

from django.apps import AppConfig


class TenancyConfig(AppConfig):
    name = "memoryadmin.tenancy"
    label = "tenancy"
