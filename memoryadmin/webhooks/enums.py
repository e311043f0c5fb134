"""Choices of this app's columns, importable by every layer without the models: the API derives its
enums from them, and the console and privacy pages show and filter by them."""

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
