"""Reads of webhook endpoints and deliveries, always from the caller's namespace."""

from __future__ import annotations

import uuid
from typing import Any
from urllib.parse import urlsplit

from memoryadmin.core.errors import found
from memoryadmin.core.pagination import Page, clamp_limit, keyset_page
from memoryadmin.core.timestamps import rfc3339
from memoryadmin.tenancy.models import Namespace
from memoryadmin.webhooks.models import DeliveryState, WebhookDelivery, WebhookEndpoint


def webhooks_of(namespace: Namespace) -> list[WebhookEndpoint]:
    return list(WebhookEndpoint.objects.filter(namespace=namespace).order_by("created_at", "id"))


def webhook_namespace_id(endpoint_id: uuid.UUID) -> int | None:
    return WebhookEndpoint.objects.filter(pk=endpoint_id).values_list("namespace_id", flat=True).first()


def delivery_namespace_id(delivery_id: int) -> int | None:
    return WebhookDelivery.objects.filter(pk=delivery_id).values_list("endpoint__namespace_id", flat=True).first()


def failing_webhooks(namespace: Namespace) -> list[WebhookEndpoint]:
    """Endpoints with a delivery given up since their last success: what an operator must look at."""
    return list(WebhookEndpoint.objects.filter(namespace=namespace, failing_since__isnull=False))


def webhook_get(namespace: Namespace, endpoint_id: uuid.UUID | str) -> WebhookEndpoint:
    return found(WebhookEndpoint.objects.filter(namespace=namespace, pk=endpoint_id), "No such webhook endpoint.")


def deliveries_page(
    endpoint: WebhookEndpoint, *, state: str | None = None, cursor: str | None = None, limit: int = 50
) -> Page[WebhookDelivery]:
    """An endpoint's deliveries, newest first (keyset on id)."""
    qs = WebhookDelivery.objects.filter(endpoint=endpoint)
    if state:
        qs = qs.filter(state=state)
    return keyset_page(qs, tag="webhook-deliveries", key=("id",), cursor=cursor, limit=clamp_limit(limit))


def delivery_get(endpoint: WebhookEndpoint, delivery_id: int) -> WebhookDelivery:
    return found(
        WebhookDelivery.objects.filter(endpoint=endpoint, pk=delivery_id).select_related("endpoint"),
        "No such delivery.",
    )


def erasure_notifications(namespace_id: int, erasure_id: uuid.UUID | str) -> list[dict[str, Any]]:
    """Each endpoint an erasure's `erasure.completed` went to, and whether it acknowledged it (a 2xx) and when.

    Names the endpoint by id and host, nothing about the person.
    """
    rows = (
        WebhookDelivery.objects.filter(
            event_type="erasure.completed", target_id=str(erasure_id), endpoint__namespace_id=namespace_id
        )
        .select_related("endpoint")
        .order_by("id")
    )
    return [
        {
            "endpoint_id": str(row.endpoint_id),
            # The host alone: a URL's path or query may hold a token of the receiver's.
            "receiver": urlsplit(row.endpoint.url).hostname or "",
            "description": row.endpoint.description,
            "event_id": str(row.event_id),
            "acknowledged": row.state == DeliveryState.DELIVERED,
            "acknowledged_at": rfc3339(row.delivered_at) if row.state == DeliveryState.DELIVERED else None,
            "state": row.state,
            "attempts": row.attempts,
        }
        for row in rows
    ]
