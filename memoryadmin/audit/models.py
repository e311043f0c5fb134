from __future__ import annotations

from django.db import models

from memoryadmin.core.choices import text_choices

ActorType = text_choices("ActorType", "operator api_key system subject")


class AuditEvent(models.Model):
    """One governance action. Append-only: a trigger refuses UPDATE and DELETE.

    Events form one hash chain per namespace (events without a namespace form
    their own chain), so chains of busy tenants never wait on each other.
    The subject is kept as an HMAC, never as a plain user id, so an erased
    person leaves nothing readable here.
    """

    # Names its subject only by a keyed hash; an erasure redacts the free text of the person's events.
    PERSONAL_DATA = "redacted"

    namespace = models.ForeignKey(
        "tenancy.Namespace", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField()
    actor_type = models.CharField(max_length=10, choices=ActorType.choices)
    actor = models.CharField(max_length=200)
    action = models.CharField(max_length=60)
    target_type = models.CharField(max_length=40, blank=True, default="")
    target_id = models.CharField(max_length=200, blank=True, default="")
    subject_hash = models.CharField(max_length=64, blank=True, default="")
    # Free text (why an operator or an app did it) may name a person. The chain's digest covers its
    # keyed hash, not the text, so an erasure can blank the text of the person's events
    # (the one UPDATE the append-only trigger allows) and the chain still verifies.
    reason = models.TextField(blank=True, default="")
    reason_digest = models.CharField(max_length=64, blank=True, default="")
    data = models.JSONField(default=dict, blank=True)
    prev_hash = models.CharField(max_length=64)
    hash = models.CharField(max_length=64, unique=True)

    class Meta:
        ordering = ["-id"]
        indexes = [
            models.Index(fields=["namespace", "-id"], name="audit_ns_id"),
            models.Index(fields=["action", "-id"], name="audit_action_id"),
            models.Index(fields=["target_type", "target_id"], name="audit_target"),
            models.Index(fields=["subject_hash"], name="audit_subject"),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.action} {self.target_type}:{self.target_id}"

    @property
    def reason_redacted(self) -> bool:
        return bool(self.reason_digest) and not self.reason
