"""Choices of webhooks' columns, importable by the apps that show or filter them without its models."""

from __future__ import annotations

from django.db import models


class EndpointStatus(models.TextChoices):
    ACTIVE = "active"
    PAUSED = "paused"


class DeliveryState(models.TextChoices):
    PENDING = "pending"
    DELIVERED = "delivered"
    # Given up: its retries ran out (an operator may redeliver it).
    FAILED = "failed"
