"""The outbox: delivery rows written with the change they tell of, in its transaction.

`outbox_from_audit` observes every batch of audit events as it is written (`audit_observe`):
one statement finds the namespaces' active endpoints subscribed to each event and inserts their
rows (none when nothing is subscribed). After the commit each endpoint with new rows is nudged once (a Redis key
keeps a burst of commits from queueing a task each); beat's sweep finds anything a lost nudge missed.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import orjson
from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from memoryadmin.audit.models import AuditEvent
from memoryadmin.audit.services import AuditEntry
from memoryadmin.webhooks.events import EVENT_OF_ACTION, event_data
from memoryadmin.webhooks.models import DeliveryState, EndpointStatus, WebhookDelivery, WebhookEndpoint


@dataclass(frozen=True)
class OutboxEvent:
    """One event of a namespace, for every active endpoint subscribed to its type."""

    namespace_id: int
    event_type: str
    data: dict[str, Any]
    target_id: str = ""
    subject_key: str = ""
    occurred_at: datetime | None = None


_DELIVERY = WebhookDelivery._meta.db_table
_ENDPOINT = WebhookEndpoint._meta.db_table

# The events joined to the active endpoints of their namespace subscribed to their type, written in one
# statement: a namespace with no endpoint pays this statement and nothing else. Rows take their ids in the
# events' order, which is the order a person's events are sent in.
_ADD = f"""
INSERT INTO {_DELIVERY} (endpoint_id, event_id, event_type, target_id, subject_key, payload, state, attempts,
                         created_at, next_attempt_at, give_up_at, last_error)
SELECT e.id, v.event_id, v.event_type, v.target_id, v.subject_key, v.payload, %(pending)s, 0,
       %(now)s, %(now)s, %(give_up_at)s, ''
FROM json_to_recordset(%(events)s)
     AS v(n int, namespace_id bigint, event_id uuid, event_type text, target_id text, subject_key text, payload jsonb)
JOIN {_ENDPOINT} e ON e.namespace_id = v.namespace_id AND e.status = %(active)s AND v.event_type = ANY(e.events)
ORDER BY v.n, e.id
RETURNING endpoint_id
"""


def outbox_add(events: Sequence[OutboxEvent]) -> int:
    """Queue `events` for every active endpoint of their namespace subscribed to them, in the caller's
    transaction, in one statement; returns how many delivery rows that made."""
    if not events:
        return 0
    now = timezone.now()
    # The events travel as one JSON parameter: quoted once, rather than value by value (see core.bulk).
    document = orjson.dumps(
        [
            {
                "n": n,
                "namespace_id": e.namespace_id,
                "event_id": uuid.uuid4(),
                "event_type": e.event_type,
                "target_id": e.target_id[:64],
                "subject_key": e.subject_key,
                "payload": orjson.Fragment(
                    json.dumps({"type": e.event_type, "timestamp": (e.occurred_at or now).isoformat(), "data": e.data})
                ),
            }
            for n, e in enumerate(events)
        ]
    ).decode()
    with connection.cursor() as cursor:
        cursor.execute(
            _ADD,
            {
                "events": document,
                "pending": DeliveryState.PENDING,
                "active": EndpointStatus.ACTIVE,
                "now": now,
                "give_up_at": now + timedelta(seconds=settings.WEBHOOK_RETRY_FOR_SECONDS),
            },
        )
        written = [row[0] for row in cursor.fetchall()]
    if written:
        nudge_after_commit(set(written))
    return len(written)


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
