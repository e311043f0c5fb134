"""Choices of this app's columns, importable by every layer without the models: the API derives its
enums from them, and the console and privacy pages show and filter by them."""

from __future__ import annotations

from django.db import models


class ErasureStatus(models.TextChoices):
    PENDING = "pending"
    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"


class ForgettingTrigger(models.TextChoices):
    API = "api"
    CONSOLE = "console"
    SCHEDULE = "schedule"


class JobStatus(models.TextChoices):
    PENDING = "pending"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


class PrivacyRight(models.TextChoices):
    """What a privacy link lets its holder do with their own data."""

    READ = "read", "see and download"
    FORGET = "forget", "forget one memory"
    ERASE = "erase", "erase everything"
