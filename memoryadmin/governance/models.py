from __future__ import annotations

import uuid

from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import Q

from memoryadmin.governance.enums import ErasureStatus, ForgettingTrigger, JobStatus, PrivacyRight


class ForgettingPolicy(models.Model):
    """A namespace's standing rule for forgetting; beat runs it every `interval_hours`."""

    PERSONAL_DATA = "none"

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


class ErasureRequest(models.Model):
    """A right-to-be-forgotten request. Once completed only the subject's HMAC stays.

    Completed requests double as the erasure ledger: a restore skips records of a
    subject erased after the record was written.
    """

    # The ledger: after completion only the keyed hash of the person stays.
    PERSONAL_DATA = "ledger"

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
            # The few requests not done yet (the metrics' gauge, beat's requeue), however long the ledger grows.
            models.Index(fields=["created_at"], name="erasure_open", condition=Q(status__in=["pending", "running"])),
        ]

    def __str__(self) -> str:
        return f"erasure {self.id} ({self.status})"


class ForgettingRun(models.Model):
    """One real (not dry) run of a forgetting policy: what it was asked, what it removed.

    It keeps no user id: a run scoped to one person records only that it was
    scoped, so erasing that person leaves nothing here to clean.
    """

    PERSONAL_DATA = "none"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    namespace = models.ForeignKey("tenancy.Namespace", on_delete=models.CASCADE, related_name="forgetting_runs")
    trigger = models.CharField(max_length=10, choices=ForgettingTrigger.choices)
    actor = models.CharField(max_length=220)
    policy = models.JSONField(default=dict)
    scope = models.CharField(max_length=10, default="namespace")
    status = models.CharField(max_length=10, choices=JobStatus.choices, default=JobStatus.RUNNING)
    scanned = models.PositiveIntegerField(default=0)
    selected = models.PositiveIntegerField(default=0)
    deleted = models.PositiveIntegerField(default=0)
    reasons = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True, default="")
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["namespace", "-started_at"], name="forgetrun_ns_started")]

    def __str__(self) -> str:
        return f"forgetting run {self.id} ({self.status})"


class SnapshotRestore(models.Model):
    """A restore uploaded through the console, run by a worker with visible progress.

    The upload itself is kept in SnapshotChunk rows so any worker can read it;
    they are deleted when the restore is applied or abandoned.
    """

    # An upload may hold anyone's data: an erasure discards the uploads that hold the person's.
    PERSONAL_DATA = "discarded"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    namespace = models.ForeignKey("tenancy.Namespace", on_delete=models.CASCADE, related_name="snapshot_restores")
    requested_by = models.CharField(max_length=220)
    filename = models.CharField(max_length=255, blank=True, default="")
    size_bytes = models.PositiveBigIntegerField(default=0)
    dry_run = models.BooleanField(default=True)
    status = models.CharField(max_length=10, choices=JobStatus.choices, default=JobStatus.PENDING)
    records_total = models.PositiveIntegerField(null=True, blank=True)
    records_done = models.PositiveIntegerField(default=0)
    counts = models.JSONField(default=dict, blank=True)
    samples = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    applied_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["namespace", "-created_at"], name="restore_ns_created")]

    def __str__(self) -> str:
        return f"restore {self.id} ({self.status})"

    @property
    def progress_percent(self) -> int:
        if not self.records_total:
            return 0
        return min(100, round(100 * self.records_done / self.records_total))


class SnapshotChunk(models.Model):
    PERSONAL_DATA = "discarded"

    restore = models.ForeignKey(SnapshotRestore, on_delete=models.CASCADE, related_name="chunks")
    index = models.PositiveIntegerField()
    data = models.BinaryField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["restore", "index"], name="snapshot_chunk_unique")]

    def __str__(self) -> str:
        return f"{self.restore_id}[{self.index}]"


class PrivacyLink(models.Model):
    """A link handed to a data subject. Its token is random; only its hash is kept, to find this row.

    The rights it was made with are bounded by the scopes of the key (or the role of the operator)
    that made it, and at every use by what that maker may still grant (`made_by_key`,
    `made_by_user`). The person is kept only as an HMAC, like the erasure ledger, and as their user
    id sealed under the token (`subject_sealed`), which only the link's holder can open: the link
    outlives an erasure it asked for (to show the receipt) without the database holding the user id.
    """

    PERSONAL_DATA = "ledger"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    namespace = models.ForeignKey(
        "tenancy.Namespace", on_delete=models.CASCADE, related_name="privacy_links", db_index=False
    )
    subject_hash = models.CharField(max_length=64)
    # SHA-256 of the token; empty for links made before tokens were random (they no longer open).
    token_hash = models.CharField(max_length=64, null=True, blank=True, unique=True)
    subject_sealed = models.BinaryField(default=b"", blank=True)
    rights = ArrayField(models.CharField(max_length=10, choices=PrivacyRight.choices))
    created_by = models.CharField(max_length=220)
    # Who made it, followed at every use. A key or account deleted since: the link no longer opens.
    made_by_key = models.ForeignKey(
        "tenancy.ApiKey", on_delete=models.SET_NULL, null=True, blank=True, related_name="+", db_index=False
    )
    made_by_user = models.ForeignKey(
        "auth.User", on_delete=models.SET_NULL, null=True, blank=True, related_name="+", db_index=False
    )
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    revoked_at = models.DateTimeField(null=True, blank=True)
    revoked_by = models.CharField(max_length=220, blank=True, default="")
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["namespace", "subject_hash", "-created_at", "-id"], name="privacylink_ns_subject"),
            models.Index(fields=["made_by_key", "-created_at", "-id"], name="privacylink_key"),
            models.Index(fields=["made_by_user", "-created_at", "-id"], name="privacylink_user"),
        ]

    def __str__(self) -> str:
        return f"privacy link {self.id}"

    def allows(self, right: str) -> bool:
        return right in self.rights
