"""Choices of governance's columns, importable by the apps that show or filter them without its models."""

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
