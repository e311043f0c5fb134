"""Every write to webhook endpoints and deliveries: atomic and audited."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from memoryadmin.audit.services import Actor, audit_about
from memoryadmin.core.errors import Conflict, InvalidInput
from memoryadmin.tenancy.models import Namespace
from memoryadmin.webhooks.addresses import url_clean
from memoryadmin.webhooks.events import EVENT_TYPES, TEST_EVENT
from memoryadmin.webhooks.models import (
    DeliveryState,
    EndpointStatus,
    WebhookDelivery,
    WebhookEndpoint,
    new_secret,
)
from memoryadmin.webhooks.outbox import nudge_after_commit

MAX_DESCRIPTION_CHARS = 200
MAX_ENDPOINTS_PER_NAMESPACE = 20


def clean_events(events: Iterable[str]) -> list[str]:
    cleaned: list[str] = []
    for event in events:
        if event not in EVENT_TYPES:
            raise InvalidInput(
                f"unknown event {event!r}; events are {', '.join(EVENT_TYPES)}", details={"field": "events"}
            )
        if event not in cleaned:
            cleaned.append(event)
    if not cleaned:
        raise InvalidInput("an endpoint needs at least one event", details={"field": "events"})
    return cleaned


def _clean_description(description: str) -> str:
    description = description.strip()
    if len(description) > MAX_DESCRIPTION_CHARS:
        raise InvalidInput(
            f"the description is longer than {MAX_DESCRIPTION_CHARS} characters", details={"field": "description"}
        )
    return description


def webhook_create(
    *, namespace: Namespace, url: str, events: Iterable[str], actor: Actor, description: str = ""
) -> WebhookEndpoint:
    """A new active endpoint with a fresh secret (the caller shows it once)."""
    url = url_clean(url)
    events = clean_events(events)
    description = _clean_description(description)
    with transaction.atomic():
        # Counted under the namespace's row lock, so two creates cannot both pass the limit.
        Namespace.objects.select_for_update().filter(pk=namespace.pk).values_list("pk", flat=True).first()
        if WebhookEndpoint.objects.filter(namespace=namespace).count() >= MAX_ENDPOINTS_PER_NAMESPACE:
            raise Conflict(
                f"a namespace has at most {MAX_ENDPOINTS_PER_NAMESPACE} webhook endpoints", code="too_many_endpoints"
            )
        endpoint = WebhookEndpoint.objects.create(namespace=namespace, url=url, events=events, description=description)
        audit_about(endpoint, actor=actor, action="webhook.create", data={"events": events})
    return endpoint


def webhook_update(
    *,
    endpoint: WebhookEndpoint,
    actor: Actor,
    url: str | None = None,
    events: Iterable[str] | None = None,
    description: str | None = None,
    status: str | None = None,
) -> WebhookEndpoint:
    changed: dict[str, object] = {}
    if url is not None and (url := url_clean(url)) != endpoint.url:
        changed["url"] = url
    if events is not None and (events := clean_events(events)) != endpoint.events:
        changed["events"] = events
    if description is not None and (description := _clean_description(description)) != endpoint.description:
        changed["description"] = description
    if status is not None:
        if status not in EndpointStatus.values:
            raise InvalidInput(f"status must be {' or '.join(EndpointStatus.values)}", details={"field": "status"})
        if status != endpoint.status:
            changed["status"] = status
    if not changed:
        return endpoint
    with transaction.atomic():
        for name, value in changed.items():
            setattr(endpoint, name, value)
        endpoint.save(update_fields=[*changed, "updated_at"])
        audit_about(endpoint, actor=actor, action="webhook.update", data={"fields": sorted(changed)})
        if changed.get("status") == EndpointStatus.ACTIVE:
            # Resumed: what waited while it was paused goes now.
            nudge_after_commit({endpoint.pk})
    return endpoint


def webhook_delete(*, endpoint: WebhookEndpoint, actor: Actor) -> None:
    """The endpoint and its deliveries go; what was pending is never sent."""
    with transaction.atomic():
        audit_about(endpoint, actor=actor, action="webhook.delete")
        WebhookEndpoint.objects.filter(pk=endpoint.pk).delete()


def webhook_rotate_secret(*, endpoint: WebhookEndpoint, actor: Actor) -> WebhookEndpoint:
    """A new secret; deliveries from now on are signed with it (the caller shows it once)."""
    with transaction.atomic():
        endpoint.secret = new_secret()
        endpoint.save(update_fields=["secret", "updated_at"])
        audit_about(endpoint, actor=actor, action="webhook.rotate_secret")
    return endpoint


def webhook_send_test(*, endpoint: WebhookEndpoint, actor: Actor) -> WebhookDelivery:
    """A `webhook.test` event for this endpoint alone, sent at once (it waits behind no person's events)."""
    if endpoint.status != EndpointStatus.ACTIVE:
        raise Conflict("the endpoint is paused; resume it to send", code="paused")
    now = timezone.now()
    event_id = uuid.uuid4()
    with transaction.atomic():
        delivery = WebhookDelivery.objects.create(
            endpoint=endpoint,
            event_id=event_id,
            event_type=TEST_EVENT,
            subject_key=f"test:{event_id}",
            payload={"type": TEST_EVENT, "timestamp": now.isoformat(), "data": {"endpoint_id": str(endpoint.pk)}},
            created_at=now,
            next_attempt_at=now,
            give_up_at=now + timedelta(seconds=settings.WEBHOOK_RETRY_FOR_SECONDS),
        )
        audit_about(endpoint, actor=actor, action="webhook.test", data={"event_id": str(event_id)})
        nudge_after_commit({endpoint.pk})
    return delivery


def delivery_redeliver(*, delivery: WebhookDelivery, actor: Actor) -> WebhookDelivery:
    """Send a delivered or given-up event again, with the same id, and a fresh round of retries.

    A person's events after it wait for it again, so the receiver hears them in order.
    """
    now = timezone.now()
    with transaction.atomic():
        updated = (
            WebhookDelivery.objects.filter(pk=delivery.pk)
            .exclude(state=DeliveryState.PENDING)
            .update(
                state=DeliveryState.PENDING,
                next_attempt_at=now,
                give_up_at=now + timedelta(seconds=settings.WEBHOOK_RETRY_FOR_SECONDS),
                leased_until=None,
            )
        )
        if not updated:
            raise Conflict("the delivery is still pending: it will be sent", code="pending")
        audit_about(
            delivery.endpoint, actor=actor, action="webhook.redeliver", data={"event_id": str(delivery.event_id)}
        )
        nudge_after_commit({delivery.endpoint_id})
    delivery.refresh_from_db()
    return delivery
