"""Choices of extraction's columns, importable by the apps that show or filter them without its models."""

from __future__ import annotations

from django.db import models


class RunStatus(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
