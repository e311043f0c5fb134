"""The governance choices the API publishes, importable by every layer without the models."""

from __future__ import annotations

from django.db import models


class PrivacyRight(models.TextChoices):
    """What a privacy link lets its holder do with their own data."""

    READ = "read", "see and download"
    FORGET = "forget", "forget one memory"
    ERASE = "erase", "erase everything"
