"""What an operator's dashboard reads: a request id on every request, its latency by route, and /metrics.

`ObservabilityMiddleware` comes first, so everything after it (refusals of the API guard and the
rate limiter included) is timed and logged under the request's id. Latencies are recorded by
route, the URL pattern and never the path (`GET /api/v1/memories/{memory_id}`), in the shared
histograms of memoryadmin.core.metrics.

`GET /metrics` answers Prometheus' text format: what every web and worker process recorded
(kept in Redis, so any web process answers for all of them), and gauges read at scrape time:
extraction runs waiting and running, the age of the oldest waiting run, the broker's queue,
erasures not yet done, whether the database and Redis answer, and each read replica's lag and
whether it is used. It is open to a bearer
token (METRICS_TOKEN) or, without one, to the addresses of METRICS_ALLOWED_NETWORKS
(loopback by default); anyone else gets a 404, as for a page that does not exist.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import time
from collections.abc import Callable
from typing import Any

import redis
from django.conf import settings
from django.core.signals import request_finished
from django.db import connection, transaction
from django.db.models import Count, Min, QuerySet
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from redis.exceptions import RedisError

from memoryadmin.api.access_log import endpoint_of
from memoryadmin.api.errors import error_response
from memoryadmin.api.ratelimit import bearer_token
from memoryadmin.core import request_ids
from memoryadmin.core.health import check_database, check_redis
from memoryadmin.core.metrics import HTTP_REQUESTS, Gauge, exposition, observe
from memoryadmin.core.redis_batch import batched
from memoryadmin.core.redis_client import get_redis
from memoryadmin.core.replicas import replica_statuses
from memoryadmin.extraction.models import ExtractionRun, RunStatus
from memoryadmin.governance.models import ErasureRequest, ErasureStatus
from memoryadmin.webhooks.models import DeliveryState, WebhookDelivery, WebhookEndpoint

logger = logging.getLogger(__name__)

METRICS_PATH = "/metrics"
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
# The broker's queues: Celery's default one is all the app uses.
QUEUES = ("celery",)


class ObservabilityMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request_id = request_ids.accepted_or_new(request.headers.get(request_ids.HEADER))
        # Held until the response is closed (request_finished), so Django's own warning about a 4xx,
        # written after the middleware returns, carries the id too.
        request_ids.current.set(request_id)
        started = time.perf_counter()
        # The request's bookkeeping writes (access log, durations) leave in one round trip, at its end.
        with batched():
            response = self.get_response(request)
            response[request_ids.HEADER] = request_id
            if request.path != METRICS_PATH:
                observe(
                    HTTP_REQUESTS,
                    time.perf_counter() - started,
                    route=endpoint_of(request),
                    status=str(response.status_code),
                )
        return response


@receiver(request_finished)
def _request_done(**_: object) -> None:
    request_ids.current.set(None)


def _allowed(request: HttpRequest) -> bool:
    if settings.METRICS_TOKEN:
        given = bearer_token(request) or ""
        return hmac.compare_digest(given.encode(), settings.METRICS_TOKEN.encode())
    try:
        address = ipaddress.ip_address(request.META.get("REMOTE_ADDR", ""))
    except ValueError:
        return False
    return any(address in network for network in settings.METRICS_ALLOWED_NETWORKS)


def _by_status(rows: QuerySet[Any], statuses: tuple[str, ...]) -> list[tuple[dict[str, str], float]]:
    """A gauge's samples: how many of the rows are in each of these statuses (0 for none), in one GROUP BY."""
    grouped = rows.filter(status__in=statuses).values_list("status").order_by().annotate(n=Count("*"))
    counts = dict(grouped.values_list("status", "n"))
    return [({"status": status}, float(counts.get(status, 0))) for status in statuses]


def _database_gauges() -> list[Gauge]:
    """Small reads, each served by a partial index: the waiting and running runs, the open erasures."""
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL statement_timeout = 2000")
        runs = _by_status(ExtractionRun.objects, (RunStatus.QUEUED, RunStatus.RUNNING))
        oldest = (
            ExtractionRun.objects.filter(status=RunStatus.QUEUED)
            .order_by("created_at")
            .values_list("created_at", flat=True)
            .first()
        )
        erasures = _by_status(ErasureRequest.objects, (ErasureStatus.PENDING, ErasureStatus.RUNNING))
        # Served by the partial index of pending deliveries: the backlog, not the history.
        pending = WebhookDelivery.objects.filter(state=DeliveryState.PENDING).aggregate(
            n=Count("*"), oldest=Min("created_at")
        )
        failing = WebhookEndpoint.objects.filter(failing_since__isnull=False).count()
    now = timezone.now()
    waited = (now - oldest).total_seconds() if oldest is not None else 0.0
    behind = (now - pending["oldest"]).total_seconds() if pending["oldest"] is not None else 0.0
    return [
        Gauge(
            "memoryadmin_extraction_runs",
            "Extraction runs not finished, by status (queued: waiting for a worker).",
            runs,
        ),
        Gauge(
            "memoryadmin_extraction_oldest_queued_seconds",
            "How long the oldest queued extraction run has waited (0 when none waits): the extraction lag.",
            [({}, max(waited, 0.0))],
        ),
        Gauge(
            "memoryadmin_webhook_deliveries_pending",
            "Webhook deliveries not yet acknowledged nor given up (a receiver down keeps them here).",
            [({}, float(pending["n"]))],
        ),
        Gauge(
            "memoryadmin_webhook_oldest_pending_seconds",
            "Age of the oldest pending webhook delivery (0 when none): how far behind receivers are.",
            [({}, max(behind, 0.0))],
        ),
        Gauge(
            "memoryadmin_webhook_endpoints_failing",
            "Webhook endpoints whose retries ran out, until a delivery succeeds again.",
            [({}, float(failing))],
        ),
        Gauge(
            "memoryadmin_erasures_open",
            "Erasure requests not done yet, by status.",
            erasures,
        ),
    ]


def _broker_gauge() -> Gauge | None:
    broker = settings.CELERY_BROKER_URL
    try:
        if broker == settings.REDIS_URL or (settings.REDIS_SENTINELS and broker.startswith("sentinel://")):
            client = get_redis()
        elif broker.startswith(("redis://", "rediss://")):
            client = redis.Redis.from_url(broker, socket_timeout=2, socket_connect_timeout=2)
        else:
            return None
        pipe = client.pipeline(transaction=False)
        for queue in QUEUES:
            pipe.llen(queue)
        lengths = pipe.execute()
    except RedisError:
        return None
    return Gauge(
        "memoryadmin_celery_queue_length",
        "Tasks waiting in the broker's queue.",
        [({"queue": queue}, float(n)) for queue, n in zip(QUEUES, lengths, strict=True)],
    )


def metrics(request: HttpRequest) -> HttpResponse:
    if request.method not in ("GET", "HEAD"):
        return error_response(
            405, "method_not_allowed", f"Method {request.method} is not allowed here.", {"allowed": ["GET"]}
        )
    if not _allowed(request):
        return error_response(404, "not_found", "No such endpoint.")
    try:
        with transaction.atomic():
            database_up = check_database()
    except Exception:
        database_up = False
    redis_up = check_redis()
    gauges = [
        Gauge(
            "memoryadmin_dependency_up",
            "Whether a dependency answers (1) or not (0).",
            [({"dependency": "database"}, float(database_up)), ({"dependency": "redis"}, float(redis_up))],
        )
    ]
    if database_up:
        try:
            gauges.extend(_database_gauges())
        except Exception as error:
            logger.warning("metrics: database gauges unreadable (%s)", error)
    if (broker := _broker_gauge()) is not None:
        gauges.append(broker)
    if database_up and (replicas := replica_statuses()):
        gauges.append(
            Gauge(
                "memoryadmin_replica_used",
                "Whether lag-tolerant reads use a read replica (0: skipped, its reads go to the primary).",
                [({"replica": r["name"], "state": r["state"]}, float(r["used"])) for r in replicas],
            )
        )
        gauges.append(
            Gauge(
                "memoryadmin_replica_lag_seconds",
                "How far a read replica is behind the primary, when it answers.",
                [({"replica": r["name"]}, float(r["lag_seconds"])) for r in replicas if r["lag_seconds"] is not None],
            )
        )
    return HttpResponse(exposition(gauges), content_type=CONTENT_TYPE)
