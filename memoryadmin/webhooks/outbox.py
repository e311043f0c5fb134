"""The outbox: delivery rows written with the change they tell of, in its transaction.

`outbox_from_audit` observes every batch of audit events as it is written (`audit_observe`):
one indexed lookup of the namespaces' active endpoints, and, when one is subscribed, one insert for
all the batch's rows. After the commit each endpoint with new rows is nudged once (a Redis key
keeps a burst of commits from queueing a task each); beat's sweep finds anything a lost nudge missed.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from memoryadmin.audit.models import AuditEvent
from memoryadmin.audit.services import AuditEntry
from memoryadmin.webhooks.events import EVENT_OF_ACTION, event_data
from memoryadmin.webhooks.models import EndpointStatus, WebhookDelivery, WebhookEndpoint


@dataclass(frozen=True)
class OutboxEvent:
    """One event of a namespace, for every active endpoint subscribed to its type."""

    namespace_id: int
    event_type: str
    data: dict[str, Any]
    target_id: str = ""
    subject_key: str = ""
    occurred_at: datetime | None = None


def _subscribers(namespace_ids: Iterable[int]) -> dict[int, list[tuple[uuid.UUID, list[str]]]]:
    ids = sorted(set(namespace_ids))
    found: dict[int, list[tuple[uuid.UUID, list[str]]]] = {}
    if not ids:
        return found
    rows = WebhookEndpoint.objects.filter(namespace_id__in=ids, status=EndpointStatus.ACTIVE).values_list(
        "namespace_id", "pk", "events"
    )
    for namespace_id, pk, events in rows:
        found.setdefault(namespace_id, []).append((pk, events))
    return found


def outbox_add(events: Sequence[OutboxEvent]) -> int:
    """Queue `events` for every active endpoint of their namespace subscribed to them, in the caller's
    transaction, in one insert; returns how many delivery rows that made."""
    if not events:
        return 0
    subscribers = _subscribers(event.namespace_id for event in events)
    if not subscribers:
        return 0
    now = timezone.now()
    give_up_at = now + timedelta(seconds=settings.WEBHOOK_RETRY_FOR_SECONDS)
    rows = []
    for event in events:
        endpoints = [pk for pk, types in subscribers.get(event.namespace_id, ()) if event.event_type in types]
        if not endpoints:
            continue
        event_id = uuid.uuid4()
        occurred = event.occurred_at or now
        payload = {"type": event.event_type, "timestamp": occurred.isoformat(), "data": event.data}
        rows += [
            WebhookDelivery(
                endpoint_id=endpoint_id,
                event_id=event_id,
                event_type=event.event_type,
                target_id=event.target_id[:64],
                subject_key=event.subject_key,
                payload=payload,
                created_at=now,
                next_attempt_at=now,
                give_up_at=give_up_at,
            )
            for endpoint_id in endpoints
        ]
    if not rows:
        return 0
    WebhookDelivery.objects.bulk_create(rows)
    nudge_after_commit({row.endpoint_id for row in rows})
    return len(rows)


def outbox_from_audit(entries: Sequence[AuditEntry], written: Sequence[AuditEvent]) -> None:
    """The audit observer: the events of the actions webhooks tell of, from the events just written."""
    events = [
        OutboxEvent(
            namespace_id=event.namespace_id,
            event_type=EVENT_OF_ACTION[entry.action],
            data=event_data(
                target_type=entry.target_type, target_id=event.target_id, data=event.data, notice=entry.notice
            ),
            target_id=event.target_id,
            subject_key=event.subject_hash,
            occurred_at=event.created_at,
        )
        for entry, event in zip(entries, written, strict=True)
        if entry.action in EVENT_OF_ACTION and event.namespace_id is not None
    ]
    outbox_add(events)


# Endpoints to nudge once the current transaction commits, per connection.
_PENDING_ATTR = "_webhook_nudges"


def nudge_after_commit(endpoint_ids: set[uuid.UUID]) -> None:
    """Queue a delivery for each endpoint once the transaction commits; one callback per transaction."""
    pending: set[uuid.UUID] | None = getattr(connection, _PENDING_ATTR, None)
    if pending is not None and _callback_registered():
        pending |= endpoint_ids
        return
    pending = set(endpoint_ids)
    setattr(connection, _PENDING_ATTR, pending)

    def nudge() -> None:
        if getattr(connection, _PENDING_ATTR, None) is pending:
            setattr(connection, _PENDING_ATTR, None)
        from memoryadmin.webhooks.delivery import deliveries_nudge  # delivery imports the tasks

        deliveries_nudge(sorted(pending, key=str))

    nudge.webhook_nudge = True  # type: ignore[attr-defined]
    transaction.on_commit(nudge)


def _callback_registered() -> bool:
    # A rolled-back transaction drops its callbacks (and the set with them): a new one is registered then.
    return any(getattr(func, "webhook_nudge", False) for _, func, _ in connection.run_on_commit)
