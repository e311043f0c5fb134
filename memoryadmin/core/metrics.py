"""Counters and latency histograms shared by every web and worker process, kept in Redis.

Each process adds to the same Redis hashes (one per metric: `metrics:{name}`), so any web
process answers a scrape with the figures of all of them, however many machines run them.
A histogram observation is a few field increments and a counter's one; within a web request
they wait for its end and go with its other bookkeeping writes in one round trip
(core/redis_batch.py), elsewhere each is sent at once. Recording never fails the work it
measures: when Redis is unreachable it steps aside for a few seconds, as the access log does,
and those observations go uncounted.

Label values come from bounded sets (routes, status codes, outcomes), never from ids or
text, so each hash keeps a bounded number of fields.
"""

from __future__ import annotations

import functools
import logging
import math
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import ParamSpec, TypeVar

from django.conf import settings
from redis.client import Pipeline
from redis.exceptions import RedisError

from memoryadmin.core.redis_batch import deferred
from memoryadmin.core.redis_client import get_redis

logger = logging.getLogger(__name__)

PREFIX = "metrics:"
BACKOFF_SECONDS = 5.0
# Latency buckets in seconds (upper bounds), Prometheus' defaults widened at both ends.
BUCKETS = (0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
# Field names: label values joined by this byte, then the bucket after it.
JOIN = "\x1f"

_paused_until: dict[str, float] = {}
P = ParamSpec("P")
R = TypeVar("R")


@dataclass(frozen=True)
class Metric:
    name: str
    kind: str  # "counter" or "histogram"
    help: str
    labels: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in ("counter", "histogram"):
            raise ValueError(f"{self.name}: a recorded metric is a counter or a histogram, not {self.kind!r}")

    @property
    def key(self) -> str:
        return PREFIX + self.name


HTTP_REQUESTS = Metric(
    "memoryadmin_http_request_duration_seconds",
    "histogram",
    "Time to answer a request, by route (method and URL pattern, never the path) and status.",
    ("route", "status"),
)
SEARCHES = Metric(
    "memoryadmin_search_duration_seconds",
    "histogram",
    "Time of a long-term memory search (ranking, filters and hydration), whatever asked for it.",
)
EXTRACTION_RUNS = Metric(
    "memoryadmin_extraction_runs_total",
    "counter",
    "Extraction runs finished, by outcome (succeeded or failed).",
    ("outcome",),
)
WEBHOOK_ATTEMPTS = Metric(
    "memoryadmin_webhook_attempts_total",
    "counter",
    "Webhook delivery attempts, by outcome: delivered, retry (to be tried again) or given_up.",
    ("outcome",),
)
WEBHOOK_LAG = Metric(
    "memoryadmin_webhook_delivery_lag_seconds",
    "histogram",
    "From an event's change to its receiver's acknowledgement (retries included).",
)
RECORDED = (HTTP_REQUESTS, SEARCHES, EXTRACTION_RUNS, WEBHOOK_ATTEMPTS, WEBHOOK_LAG)


def _label_field(metric: Metric, labels: Mapping[str, str]) -> str:
    if set(labels) != set(metric.labels):
        raise ValueError(f"{metric.name} takes the labels {metric.labels}, got {sorted(labels)}")
    return JOIN.join(str(labels[name]) for name in metric.labels)


def _paused() -> bool:
    return _paused_until.get(settings.REDIS_URL, 0.0) > time.monotonic()


def _failed(error: RedisError) -> None:
    _paused_until[settings.REDIS_URL] = time.monotonic() + BACKOFF_SECONDS
    logger.warning("metrics not recorded for %ss: Redis failed (%s)", BACKOFF_SECONDS, error)


def observe(metric: Metric, seconds: float, **labels: str) -> None:
    """One observation of a histogram."""
    observe_many(metric, (seconds,), **labels)


def observe_many(metric: Metric, values: Iterable[float], **labels: str) -> None:
    """Several observations of a histogram with the same labels, in one round trip."""
    field = _label_field(metric, labels)
    values = list(values)
    if not values or _paused():
        return
    buckets: dict[str, int] = {}
    for seconds in values:
        bucket = next((str(bound) for bound in BUCKETS if seconds <= bound), "+Inf")
        buckets[bucket] = buckets.get(bucket, 0) + 1
    total = sum(values)

    def add(pipe: Pipeline) -> None:
        for bucket, count in buckets.items():
            pipe.hincrby(metric.key, f"{field}{JOIN}{bucket}", count)
        pipe.hincrbyfloat(metric.key, f"{field}{JOIN}sum", total)
        pipe.hincrby(metric.key, f"{field}{JOIN}count", len(values))

    deferred(add, _failed)


def increment(metric: Metric, by: int = 1, **labels: str) -> None:
    """Adds to a counter."""
    field = _label_field(metric, labels)
    if _paused():
        return
    deferred(lambda pipe: pipe.hincrby(metric.key, field, by), _failed)


def timed(metric: Metric) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorates a function whose every call is one observation of `metric` (a histogram without labels)."""

    def decorate(function: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(function)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            with Timer(metric):
                return function(*args, **kwargs)

        return wrapper

    return decorate


class Timer:
    """`with Timer(SEARCHES): ...` observes the block's duration, whether it returns or raises."""

    def __init__(self, metric: Metric, **labels: str) -> None:
        self.metric, self.labels = metric, labels

    def __enter__(self) -> Timer:
        self.started = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        observe(self.metric, time.perf_counter() - self.started, **self.labels)


# --- the exposition (Prometheus text format 0.0.4) ---------------------------------------------------


def _escape(value: str) -> str:
    return value.replace("\\", r"\\").replace("\n", r"\n").replace('"', r"\"")


def _labels(names: Iterable[str], values: Iterable[str], extra: str = "") -> str:
    pairs = [f'{name}="{_escape(value)}"' for name, value in zip(names, values, strict=True)]
    if extra:
        pairs.append(extra)
    return "{" + ",".join(pairs) + "}" if pairs else ""


def _number(value: float) -> str:
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return repr(float(value)) if not float(value).is_integer() else str(int(value))


def _render_recorded(metric: Metric, fields: Mapping[str, str]) -> list[str]:
    lines = [f"# HELP {metric.name} {metric.help}", f"# TYPE {metric.name} {metric.kind}"]
    if metric.kind == "counter":
        for field, value in sorted(fields.items()):
            values = field.split(JOIN) if metric.labels else []
            lines.append(f"{metric.name}{_labels(metric.labels, values)} {_number(float(value))}")
        return lines
    series: dict[str, dict[str, float]] = {}
    for field, value in fields.items():
        label_part, _, part = field.rpartition(JOIN)
        series.setdefault(label_part, {})[part] = float(value)
    for label_part in sorted(series):
        values = label_part.split(JOIN) if metric.labels else []
        parts = series[label_part]
        running = 0.0
        for bound in (*BUCKETS, math.inf):
            running += parts.get("+Inf" if math.isinf(bound) else str(bound), 0.0)
            le = 'le="' + _number(bound) + '"'
            lines.append(f"{metric.name}_bucket{_labels(metric.labels, values, le)} {_number(running)}")
        lines.append(f"{metric.name}_sum{_labels(metric.labels, values)} {_number(parts.get('sum', 0.0))}")
        lines.append(f"{metric.name}_count{_labels(metric.labels, values)} {_number(parts.get('count', 0.0))}")
    return lines


@dataclass(frozen=True)
class Gauge:
    """A value read at scrape time (from the database or the broker), with its labels."""

    name: str
    help: str
    samples: list[tuple[dict[str, str], float]]


def exposition(gauges: Iterable[Gauge]) -> str:
    """Every recorded metric (one Redis round trip) and the gauges given, in Prometheus' text format.

    When Redis cannot be read, the recorded metrics are left out and the gauges still answer
    (among them, the caller's `memoryadmin_dependency_up`)."""
    lines: list[str] = []
    try:
        pipe = get_redis().pipeline(transaction=False)
        for metric in RECORDED:
            pipe.hgetall(metric.key)
        hashes = pipe.execute()
    except RedisError as error:
        logger.warning("metrics: recorded figures unreadable, Redis failed (%s)", error)
        hashes = None
    if hashes is not None:
        for metric, raw in zip(RECORDED, hashes, strict=True):
            fields = {k.decode() if isinstance(k, bytes) else k: v for k, v in raw.items()}
            lines.extend(_render_recorded(metric, fields))
    for gauge in gauges:
        lines.append(f"# HELP {gauge.name} {gauge.help}")
        lines.append(f"# TYPE {gauge.name} gauge")
        for labels, value in gauge.samples:
            lines.append(f"{gauge.name}{_labels(labels.keys(), labels.values())} {_number(value)}")
    return "\n".join(lines) + "\n"
