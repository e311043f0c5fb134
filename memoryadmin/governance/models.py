from __future__ import annotations

import uuid

from django.contrib.postgres.fields import ArrayField
from django.db import models


class ForgettingPolicy(models.Model):
    """A namespace's standing rule for forgetting; beat runs it every `interval_hours`."""

    namespace = models.OneToOneField("tenancy.Namespace", on_delete=models.CASCADE, related_name="forgetting_policy")
    enabled = models.BooleanField(default=False)
    max_age_days = models.PositiveIntegerField(null=True, blank=True)
    max_inactive_days = models.PositiveIntegerField(null=True, blank=True)
    hard_age_multiplier = models.FloatField(default=12.0)
    budget = models.PositiveIntegerField(null=True, blank=True)
    memory_type_allowlist = ArrayField(models.CharField(max_length=12), default=list, blank=True)
    interval_hours = models.PositiveIntegerField(default=24)
    last_run_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"forgetting policy of {self.namespace_id}"


class ErasureStatus(models.TextChoices):
    PENDING = "pending"
    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"


class ErasureRequest(models.Model):
    """A right-to-be-forgotten request. Once completed only the subject's HMAC stays.

    Completed requests double as the erasure ledger: a restore skips records of a
    subject erased after the record was written.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    namespace = models.ForeignKey("tenancy.Namespace", on_delete=models.CASCADE, related_name="erasures")
    user_id = models.CharField(max_length=128, blank=True, default="")
    subject_hash = models.CharField(max_length=64)
    requested_by = models.CharField(max_length=220)
    status = models.CharField(max_length=10, choices=ErasureStatus.choices, default=ErasureStatus.PENDING)
    counts = models.JSONField(default=dict, blank=True)
    receipt = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["namespace", "subject_hash"], name="erasure_ns_subject"),
            models.Index(fields=["namespace", "-created_at"], name="erasure_ns_created"),
        ]

    def __str__(self) -> str:
        return f"erasure {self.id} ({self.status})"
