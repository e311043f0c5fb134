"""Sending the outbox: claim a batch under a lease, POST each row signed, record what came of it.

Order per person: a row is sent only when no earlier row of its endpoint and person is still
pending, so a person's next event waits until the one before it was delivered or given up. Rows
are taken with `FOR UPDATE SKIP LOCKED` and leased for `WEBHOOK_LEASE_SECONDS`: two workers never
send the same row at once, and a worker that dies leaves its rows to be taken when the lease runs
out. Delivery is at least once (a receiver that answered just as its worker died hears the event
again); the `webhook-id` header is the same each time, so a receiver keeps each event once.
"""

from __future__ import annotations

import json
import logging
import random
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

import httpx
from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from memoryadmin.core.metrics import WEBHOOK_ATTEMPTS, WEBHOOK_LAG, increment, observe_many
from memoryadmin.core.queueing import queued
from memoryadmin.core.redis_client import get_redis
from memoryadmin.webhooks.addresses import UrlRefused, resolve_allowed, url_parts
from memoryadmin.webhooks.models import DeliveryState, EndpointStatus, WebhookDelivery, WebhookEndpoint
from memoryadmin.webhooks.signing import signature_headers

# Queued by name: the tasks module imports this one.
DELIVER_ENDPOINT_TASK = "memoryadmin.webhooks.tasks.deliver_endpoint"

logger = logging.getLogger(__name__)

# A person's rows considered per claim, and rows per claim.
PER_PERSON = 20
BATCH = 100
# What is kept of a receiver's answer (for the operator to read), and the most read of it.
KEPT_ERROR_CHARS = 300
READ_RESPONSE_BYTES = 1024
USER_AGENT = "memoryadmin-webhooks/1"

_DELIVERY = WebhookDelivery._meta.db_table
_ENDPOINT = WebhookEndpoint._meta.db_table

# The rows ready to send, in order: of each person's first rows, those before the first that is waiting
# (for a retry, or leased to another worker). A person held back leaves the batch to everyone else.
_CANDIDATES = f"""
WITH head AS (
    SELECT id, subject_key,
           next_attempt_at > %(now)s OR coalesce(leased_until > %(now)s, false) AS waiting,
           row_number() OVER (PARTITION BY subject_key ORDER BY id) AS place
    FROM {_DELIVERY}
    WHERE endpoint_id = %(endpoint)s AND state = 'pending'
),
runs AS (
    SELECT id, subject_key, place, min(CASE WHEN waiting THEN place END) OVER (PARTITION BY subject_key) AS held_at
    FROM head WHERE place <= %(per_person)s
)
SELECT id, subject_key FROM runs WHERE held_at IS NULL OR place < held_at ORDER BY id LIMIT %(limit)s
"""

_LEASE = f"""
UPDATE {_DELIVERY} SET leased_until = %(until)s
WHERE id IN (
    SELECT id FROM {_DELIVERY}
    WHERE id = ANY(%(ids)s) AND state = 'pending' AND next_attempt_at <= %(now)s
      AND (leased_until IS NULL OR leased_until <= %(now)s)
    FOR UPDATE SKIP LOCKED
)
RETURNING id
"""

# The rows acknowledged since the last write, recorded in one statement. The plain user id of an
# erasure's event goes once the receiver acknowledged it.
_DELIVERED = f"""
UPDATE {_DELIVERY} AS d SET state = 'delivered', delivered_at = %(now)s, last_attempt_at = %(now)s,
    response_status = v.status, latency_ms = v.latency, attempts = d.attempts + 1, leased_until = NULL,
    last_error = '',
    payload = CASE WHEN d.event_type = 'erasure.completed' THEN d.payload #- '{{data,user_id}}' ELSE d.payload END
FROM unnest(%(ids)s::bigint[], %(statuses)s::integer[], %(latencies)s::integer[]) AS v(id, status, latency)
WHERE d.id = v.id AND d.leased_until = %(lease)s
RETURNING d.created_at
"""

# Acknowledged rows kept before they are written: a worker that dies loses at most these (they are sent
# again when their lease runs out, with the same webhook-id).
RECORD_EVERY = 20


@dataclass(frozen=True)
class Claimed:
    id: int
    subject_key: str


def _claim(endpoint_id: uuid.UUID, lease_until: datetime) -> list[Claimed]:
    """Lease the rows ready to send, in order; for each person only a run of rows from their oldest pending one."""
    now = timezone.now()
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(_CANDIDATES, {"endpoint": endpoint_id, "now": now, "per_person": PER_PERSON, "limit": BATCH})
        wanted = [Claimed(pk, key) for pk, key in cursor.fetchall()]
        if not wanted:
            return []
        cursor.execute(_LEASE, {"until": lease_until, "ids": [c.id for c in wanted], "now": now})
        got = {row[0] for row in cursor.fetchall()}
    # A row another worker took breaks its person's run: what follows it waits.
    claimed, broken, release = [], set(), []
    for row in wanted:
        if row.subject_key in broken or row.id not in got:
            broken.add(row.subject_key)
            if row.id in got:
                release.append(row.id)
            continue
        claimed.append(row)
    _release(release, lease_until)
    return claimed


def _release(ids: Sequence[int], lease_until: datetime) -> None:
    if ids:
        WebhookDelivery.objects.filter(pk__in=ids, leased_until=lease_until).update(leased_until=None)


def retry_delay(attempts: int) -> float:
    """Exponential backoff with jitter: base × 2^(attempts-1), capped, then between half and all of it."""
    delay = min(settings.WEBHOOK_RETRY_MAX_SECONDS, settings.WEBHOOK_RETRY_BASE_SECONDS * 2 ** (attempts - 1))
    return delay * random.uniform(0.5, 1.0)


def delivery_body(row: WebhookDelivery, namespace_slug: str) -> bytes:
    payload = row.payload
    body = {
        "id": str(row.event_id),
        "type": payload["type"],
        "timestamp": payload["timestamp"],
        "namespace": namespace_slug,
        "data": payload["data"],
    }
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False, sort_keys=True).encode()


@dataclass
class Outcome:
    status: int | None
    latency_ms: int
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


def post_signed(client: httpx.Client, endpoint: WebhookEndpoint, event_id: str, body: bytes) -> Outcome:
    """POST `body` to the endpoint, connected to an address checked now (not one a later DNS answer gives)."""
    started = time.monotonic()
    try:
        scheme, host, port = url_parts(endpoint.url)
        address = resolve_allowed(host, port)[0]
    except UrlRefused as exc:
        return Outcome(None, 0, exc.message)
    if len(body) > settings.WEBHOOK_MAX_BODY_BYTES:
        return Outcome(None, 0, f"the body is larger than {settings.WEBHOOK_MAX_BODY_BYTES} bytes")
    url = httpx.URL(endpoint.url)
    pinned = url.copy_with(host=str(address))
    default_port = 443 if scheme == "https" else 80
    headers = {
        "Host": host if port == default_port else f"{host}:{port}",
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        **signature_headers(endpoint.secret, event_id, int(time.time()), body),
    }
    extensions = {"sni_hostname": host} if scheme == "https" else {}
    try:
        with client.stream("POST", pinned, content=body, headers=headers, extensions=extensions) as response:
            answer = b""
            for chunk in response.iter_bytes():
                answer += chunk
                if len(answer) >= READ_RESPONSE_BYTES:
                    break
            latency = int((time.monotonic() - started) * 1000)
            if 200 <= response.status_code < 300:
                return Outcome(response.status_code, latency)
            text = answer[:KEPT_ERROR_CHARS].decode("utf-8", "replace")
            return Outcome(response.status_code, latency, f"HTTP {response.status_code}: {text}".strip())
    except httpx.TimeoutException:
        return Outcome(None, int((time.monotonic() - started) * 1000), "the receiver did not answer in time")
    except httpx.HTTPError as exc:
        return Outcome(None, int((time.monotonic() - started) * 1000), f"could not connect: {type(exc).__name__}")


def _record_delivered(acknowledged: list[tuple[WebhookDelivery, Outcome]], lease_until: datetime) -> None:
    """Write the acknowledged rows that are still ours, in one statement, and empty the list."""
    if not acknowledged:
        return
    now = timezone.now()
    with connection.cursor() as cursor:
        cursor.execute(
            _DELIVERED,
            {
                "now": now,
                "ids": [row.pk for row, _ in acknowledged],
                "statuses": [outcome.status for _, outcome in acknowledged],
                "latencies": [outcome.latency_ms for _, outcome in acknowledged],
                "lease": lease_until,
            },
        )
        created = [row[0] for row in cursor.fetchall()]
    acknowledged.clear()
    if created:
        increment(WEBHOOK_ATTEMPTS, len(created), outcome="delivered")
        observe_many(WEBHOOK_LAG, (max((now - at).total_seconds(), 0.0) for at in created))


def _record_failed(row: WebhookDelivery, outcome: Outcome, lease_until: datetime) -> None:
    """Write a failed attempt, if the row is still ours: retried later, or given up."""
    now = timezone.now()
    attempts = row.attempts + 1
    next_at = now + timedelta(seconds=retry_delay(attempts))
    give_up = next_at > row.give_up_at
    WebhookDelivery.objects.filter(pk=row.pk, leased_until=lease_until).update(
        state=DeliveryState.FAILED if give_up else DeliveryState.PENDING,
        attempts=attempts,
        last_attempt_at=now,
        next_attempt_at=now if give_up else next_at,
        leased_until=None,
        response_status=outcome.status,
        latency_ms=outcome.latency_ms if outcome.status is not None else None,
        last_error=outcome.error[:KEPT_ERROR_CHARS],
    )
    increment(WEBHOOK_ATTEMPTS, outcome="given_up" if give_up else "retry")
    if give_up:
        # The operator sees the endpoint failing until a delivery succeeds again.
        WebhookEndpoint.objects.filter(pk=row.endpoint_id, failing_since__isnull=True).update(failing_since=now)
        WebhookEndpoint.objects.filter(pk=row.endpoint_id).update(last_error=outcome.error[:KEPT_ERROR_CHARS])


def deliveries_send(endpoint_id: uuid.UUID | str, *, deadline_seconds: float | None = None) -> int:
    """Send what is ready for one endpoint until nothing is; returns how many were delivered.

    While it runs, the endpoint's nudge key stays set, so the commits it will find anyway queue no
    task of their own: one task drains a burst. Schedules a nudge for when the earliest retry comes
    due, so a retry does not wait for beat.
    """
    endpoint = WebhookEndpoint.objects.select_related("namespace").filter(pk=endpoint_id).first()
    if endpoint is None or endpoint.status != EndpointStatus.ACTIVE:
        return 0
    lease = settings.WEBHOOK_LEASE_SECONDS
    timeout = settings.WEBHOOK_TIMEOUT_SECONDS
    started = time.monotonic()
    delivered = 0
    with httpx.Client(timeout=httpx.Timeout(timeout), follow_redirects=False, trust_env=False, http2=False) as client:
        released = False
        while deadline_seconds is None or time.monotonic() - started < deadline_seconds:
            lease_until = timezone.now() + timedelta(seconds=lease)
            leased_at = time.monotonic()
            claimed = _claim(endpoint.pk, lease_until)
            if not claimed:
                if released:
                    break
                # Commits from now on queue another task; what committed before is found by one more claim.
                _nudge_release(endpoint.pk)
                released = True
                continue
            if released:
                _nudge_hold(endpoint.pk)
                released = False
            rows = {r.pk: r for r in WebhookDelivery.objects.filter(pk__in=[c.id for c in claimed])}
            failed_keys: set[str] = set()
            release: list[int] = []
            acknowledged: list[tuple[WebhookDelivery, Outcome]] = []
            any_ok = False
            for item in claimed:
                row = rows[item.id]
                # Stop short of the lease's end: what is left goes back for the next claim.
                out_of_lease = time.monotonic() - leased_at > lease - timeout - 1
                if item.subject_key in failed_keys or out_of_lease:
                    release.append(row.pk)
                    continue
                outcome = post_signed(client, endpoint, str(row.event_id), delivery_body(row, endpoint.namespace.slug))
                if outcome.ok:
                    acknowledged.append((row, outcome))
                    delivered += 1
                    any_ok = True
                    if len(acknowledged) >= RECORD_EVERY:
                        _record_delivered(acknowledged, lease_until)
                else:
                    _record_failed(row, outcome, lease_until)
                    failed_keys.add(item.subject_key)
            _record_delivered(acknowledged, lease_until)
            _release(release, lease_until)
            if any_ok:
                WebhookEndpoint.objects.filter(pk=endpoint.pk, failing_since__isnull=False).update(
                    failing_since=None, last_error=""
                )
        if not released:
            _nudge_release(endpoint.pk)
    _schedule_retry(endpoint.pk)
    return delivered


# --- nudges ---------------------------------------------------------------------------------------


def _nudge_key(endpoint_id: uuid.UUID | str) -> str:
    return f"webhooks:nudge:{endpoint_id}"


def deliveries_nudge(endpoint_ids: Sequence[uuid.UUID | str]) -> None:
    """Queue a delivery task per endpoint unless one is queued or sending (a Redis key says so).

    A lost nudge (Redis or the broker down at that moment) delays delivery until beat's sweep; it
    never loses an event, which is in the database.
    """
    try:
        redis = get_redis()
        with redis.pipeline(transaction=False) as pipe:
            for endpoint_id in endpoint_ids:
                pipe.set(_nudge_key(endpoint_id), "1", nx=True, ex=settings.WEBHOOK_NUDGE_TTL_SECONDS)
            fresh = pipe.execute()
        for endpoint_id, is_new in zip(endpoint_ids, fresh, strict=True):
            if is_new:
                # A moment later: the commits meanwhile join the same task, and the worker does not take the
                # processor from the request that committed while it answers.
                queued(DELIVER_ENDPOINT_TASK).apply_async(
                    (str(endpoint_id),), countdown=settings.WEBHOOK_NUDGE_DELAY_SECONDS
                )
    except Exception:
        logger.warning("webhook deliveries not queued now; beat's sweep will", exc_info=True)


def _nudge_release(endpoint_id: uuid.UUID | str) -> None:
    get_redis().delete(_nudge_key(endpoint_id))


def _nudge_hold(endpoint_id: uuid.UUID | str) -> None:
    get_redis().set(_nudge_key(endpoint_id), "1", nx=True, ex=settings.WEBHOOK_NUDGE_TTL_SECONDS)


def _schedule_retry(endpoint_id: uuid.UUID) -> None:
    """A nudge for when the endpoint's next retry comes due, or a lease runs out (a worker that died),
    at most one scheduled at a time. Rows waiting behind a person's earlier row need none: whoever
    sends that row goes on to them."""
    now = timezone.now()
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT least(min(next_attempt_at) FILTER (WHERE attempts > 0 AND next_attempt_at > %(now)s), "
            f"min(leased_until) FILTER (WHERE leased_until > %(now)s)) "
            f"FROM {_DELIVERY} WHERE endpoint_id = %(endpoint)s AND state = 'pending'",
            {"now": now, "endpoint": endpoint_id},
        )
        next_at = cursor.fetchone()[0]
    if next_at is None:
        return
    countdown = min((next_at - now).total_seconds(), settings.WEBHOOK_RETRY_MAX_SECONDS)
    key = f"webhooks:retry:{endpoint_id}"
    try:
        if get_redis().set(key, "1", nx=True, px=max(1, int(countdown * 1000))):
            queued(DELIVER_ENDPOINT_TASK).apply_async((str(endpoint_id),), countdown=countdown)
    except Exception:
        logger.warning("webhook retry not scheduled; beat's sweep will send it", exc_info=True)


def endpoints_due(now: datetime | None = None) -> list[str]:
    """Active endpoints with a row ready to send: beat's sweep nudges them (a nudge lost, a worker dead)."""
    now = now or timezone.now()
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT e.id FROM {_ENDPOINT} e WHERE e.status = 'active' AND EXISTS ("
            f"  SELECT 1 FROM {_DELIVERY} d WHERE d.endpoint_id = e.id AND d.state = 'pending'"
            "   AND d.next_attempt_at <= %s AND (d.leased_until IS NULL OR d.leased_until <= %s))",
            [now, now],
        )
        return [str(row[0]) for row in cursor.fetchall()]
