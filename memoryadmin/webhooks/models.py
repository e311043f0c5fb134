"""Webhook endpoints of a namespace, and the outbox: one delivery row per event and endpoint.

A delivery row is written in the transaction of the change it tells of (from its audit event), so an
event is sent exactly when its change committed. Workers take rows with `FOR UPDATE SKIP LOCKED` under a
lease: a worker that dies mid-delivery leaves its rows to be taken again when the lease runs out.
"""

from __future__ import annotations

import base64
import secrets
import uuid

from django.contrib.postgres.fields import ArrayField
from django.db import models

from memoryadmin.webhooks.enums import DeliveryState, EndpointStatus


def new_secret() -> str:
    """A signing secret in the Standard Webhooks form: `whsec_` and the base64 of 24 random bytes."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()


class WebhookEndpoint(models.Model):
    PERSONAL_DATA = "none"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    namespace = models.ForeignKey("tenancy.Namespace", on_delete=models.CASCADE, related_name="webhook_endpoints")
    url = models.CharField(max_length=2000)
    description = models.CharField(max_length=200, blank=True, default="")
    events = ArrayField(models.CharField(max_length=40))
    secret = models.CharField(max_length=100, default=new_secret)
    status = models.CharField(max_length=10, choices=EndpointStatus.choices, default=EndpointStatus.ACTIVE)
    # Set when a delivery was given up after its retries ran out; cleared by the next success.
    failing_since = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=500, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["created_at"]
        indexes = [models.Index(fields=["namespace", "status"], name="webhook_endpoint_ns_status")]

    def __str__(self) -> str:
        return f"webhook {self.url}"

    @property
    def failing(self) -> bool:
        return self.failing_since is not None


class WebhookDelivery(models.Model):
    """One event for one endpoint: the outbox row, and what came of sending it.

    It names its person only by the keyed hash the audit trail keeps (`subject_key`, which orders
    a person's events). Bodies carry ids and what changed, never a memory's text; the one body
    with a plain user id is `erasure.completed` (the receiver must know whom to erase), and that id
    is dropped from the row once the receiver acknowledged it.
    """

    PERSONAL_DATA = "ledger"

    id = models.BigAutoField(primary_key=True)
    endpoint = models.ForeignKey(WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries")
    event_id = models.UUIDField()
    event_type = models.CharField(max_length=40)
    # The target of the change (a memory's id, an erasure's id), to find deliveries by what they tell of.
    target_id = models.CharField(max_length=64, blank=True, default="")
    subject_key = models.CharField(max_length=64, blank=True, default="")
    payload = models.JSONField()
    state = models.CharField(max_length=10, choices=DeliveryState.choices, default=DeliveryState.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField()
    next_attempt_at = models.DateTimeField()
    # Retries stop after this; a redelivery sets it again.
    give_up_at = models.DateTimeField()
    leased_until = models.DateTimeField(null=True, blank=True)
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    latency_ms = models.PositiveIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=500, blank=True, default="")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["endpoint", "event_id"], name="webhook_delivery_once")]
        indexes = [
            models.Index(
                fields=["endpoint", "id"],
                name="webhook_delivery_pending",
                condition=models.Q(state="pending"),
            ),
            models.Index(fields=["endpoint", "-id"], name="webhook_delivery_recent"),
            models.Index(
                fields=["target_id"],
                name="webhook_delivery_erasure",
                condition=models.Q(event_type="erasure.completed"),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.event_type} {self.event_id} -> {self.endpoint_id} ({self.state})"
