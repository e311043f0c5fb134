from __future__ import annotations

import uuid

from django.db import models
from django.db.models import Q

from memoryadmin.extraction.enums import RunStatus


class ExtractionRun(models.Model):
    ERASURE_STORE = "extraction_runs"
    # Operational records (counts, timings) of a session: erased with it, not part of a snapshot.
    SNAPSHOT_EXPORT = False

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    namespace = models.ForeignKey("tenancy.Namespace", on_delete=models.DB_CASCADE, related_name="extraction_runs")
    session = models.ForeignKey("conversations.Session", on_delete=models.DB_CASCADE, related_name="extraction_runs")
    status = models.CharField(max_length=10, choices=RunStatus.choices, default=RunStatus.QUEUED)
    strategy = models.CharField(max_length=20)
    from_seq = models.PositiveIntegerField(null=True, blank=True)
    to_seq = models.PositiveIntegerField(null=True, blank=True)
    candidates = models.PositiveIntegerField(default=0)
    created = models.PositiveIntegerField(default=0)
    # A summary extended in place rather than created.
    updated = models.PositiveIntegerField(default=0)
    duplicates = models.PositiveIntegerField(default=0)
    suppressed = models.PositiveIntegerField(default=0)
    # Older memories its new statements replaced (knowledge updates).
    superseded = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    # Renewed by the worker while the run is running (its lease); a run whose heartbeat stopped lost its worker.
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    duration_ms = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        constraints = [
            # Schedules of one session share the run that has not started yet.
            models.UniqueConstraint(
                fields=["session"], condition=Q(status="queued"), name="run_one_queued_per_session"
            ),
        ]
        indexes = [
            models.Index(fields=["session", "-created_at"], name="run_session_created"),
            models.Index(fields=["namespace", "-created_at"], name="run_ns_created"),
            # Beat's look for runs whose worker died reads only the few runs that are running.
            models.Index(fields=["heartbeat_at"], name="run_running_heartbeat", condition=Q(status="running")),
        ]

    def __str__(self) -> str:
        return f"run {self.id} ({self.status})"

    @property
    def counts(self) -> dict[str, int]:
        return {
            "candidates": self.candidates,
            "created": self.created,
            "updated": self.updated,
            "duplicates": self.duplicates,
            "suppressed": self.suppressed,
            "superseded": self.superseded,
        }
