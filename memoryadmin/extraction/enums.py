"""Choices of this app's columns, importable by every layer without the models: the API derives its
enums from them, and the console and privacy pages show and filter by them."""

from __future__ import annotations

from django.db import models


class RunStatus(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
