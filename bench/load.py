"""Bounded load drivers: concurrent HTTP clients against the served app, and the same
work as raw SQL through psycopg, with latency percentiles and throughput."""

from __future__ import annotations

import http.client
import statistics
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson
import psycopg

HOST = "127.0.0.1"


@dataclass
class Request:
    method: str
    path: str
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    expect: tuple[int, ...] = (200, 201)


@dataclass
class Response:
    status: int
    body: bytes
    headers: dict[str, str]
    seconds: float

    def json(self) -> Any:
        return orjson.loads(self.body)


@dataclass
class LoadResult:
    latencies: list[float]
    elapsed: float
    statuses: Counter
    failures: list[str]
    units: int  # work items done (requests, or messages for batch appends)

    @property
    def count(self) -> int:
        return len(self.latencies)

    @property
    def throughput(self) -> float:
        return self.units / self.elapsed if self.elapsed else 0.0

    def percentile(self, q: float) -> float:
        return percentile(self.latencies, q)

    def summary(self) -> dict[str, Any]:
        return {
            "requests": self.count,
            "units": self.units,
            "elapsed_s": round(self.elapsed, 3),
            "throughput_per_s": round(self.throughput, 1),
            "p50_ms": round(self.percentile(50) * 1000, 2),
            "p95_ms": round(self.percentile(95) * 1000, 2),
            "p99_ms": round(self.percentile(99) * 1000, 2),
            "errors": len(self.failures),
            "statuses": {str(k): v for k, v in sorted(self.statuses.items())},
            "first_errors": self.failures[:3],
        }


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile (q in 0..100); 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    rank = (len(ordered) - 1) * q / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else 0.0


class HttpClient:
    """One keep-alive connection, as a well-behaved API client keeps."""

    def __init__(self, port: int, api_key: str | None = None, timeout: float = 300.0) -> None:
        self.port = port
        self.api_key = api_key
        self.timeout = timeout
        self.conn = http.client.HTTPConnection(HOST, port, timeout=timeout)

    def send(self, request: Request) -> Response:
        headers = {"Host": f"{HOST}:{self.port}", **request.headers}
        if self.api_key and "Authorization" not in headers:
            headers["Authorization"] = f"Bearer {self.api_key}"
        body = request.body
        if body is not None and not isinstance(body, bytes | str) and not hasattr(body, "read"):
            body = orjson.dumps(body)
            headers.setdefault("Content-Type", "application/json")
        started = time.perf_counter()
        try:
            self.conn.request(request.method, request.path, body=body, headers=headers)
            raw = self.conn.getresponse()
            data = raw.read()
        except (http.client.HTTPException, OSError):
            # The server closed an idle keep-alive connection: reconnect once.
            self.conn.close()
            self.conn = http.client.HTTPConnection(HOST, self.port, timeout=self.timeout)
            started = time.perf_counter()
            self.conn.request(request.method, request.path, body=body, headers=headers)
            raw = self.conn.getresponse()
            data = raw.read()
        seconds = time.perf_counter() - started
        return Response(raw.status, data, {k.lower(): v for k, v in raw.getheaders()}, seconds)

    def close(self) -> None:
        self.conn.close()


def run_threads(clients: int, body: Callable[[int], None]) -> float:
    """Start `clients` threads together; return the wall time until the last one ends."""
    barrier = threading.Barrier(clients + 1)
    errors: list[BaseException] = []

    def target(index: int) -> None:
        try:
            barrier.wait()
            body(index)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=target, args=(i,), daemon=True) for i in range(clients)]
    for thread in threads:
        thread.start()
    barrier.wait()
    started = time.perf_counter()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    if errors:
        raise errors[0]
    return elapsed


def drive_http(
    *,
    port: int,
    api_key: str | None,
    clients: int,
    make_request: Callable[[int, int], Request],
    max_requests: int,
    max_seconds: float,
    check: Callable[[Request, Response], str | None] | None = None,
    units_per_request: int = 1,
) -> LoadResult:
    """Each client sends requests back to back until the shared count or the time runs out."""
    latencies: list[float] = []
    statuses: Counter = Counter()
    failures: list[str] = []
    lock = threading.Lock()
    issued = [0]
    deadline = time.perf_counter() + max_seconds
    done_units = [0]

    def client(index: int) -> None:
        http_client = HttpClient(port, api_key)
        sequence = 0
        try:
            while time.perf_counter() < deadline:
                with lock:
                    if issued[0] >= max_requests:
                        return
                    issued[0] += 1
                request = make_request(index, sequence)
                sequence += 1
                response = http_client.send(request)
                problem = None
                if response.status not in request.expect:
                    problem = f"{request.method} {request.path} -> {response.status} {response.body[:200]!r}"
                elif check is not None:
                    problem = check(request, response)
                with lock:
                    latencies.append(response.seconds)
                    statuses[response.status] += 1
                    if problem:
                        failures.append(problem)
                    else:
                        done_units[0] += units_per_request
        finally:
            http_client.close()

    elapsed = run_threads(clients, client)
    return LoadResult(latencies, elapsed, statuses, failures, done_units[0])


def drive_sql(
    *,
    database_url: str,
    clients: int,
    make_work: Callable[[int, int], Callable[[psycopg.Connection], int]],
    max_requests: int,
    max_seconds: float,
    autocommit: bool = True,
) -> LoadResult:
    """The raw limit: the same work as plain SQL on one psycopg connection per client.

    A work item runs against the connection and returns how many units it did.
    """
    latencies: list[float] = []
    lock = threading.Lock()
    issued = [0]
    units = [0]
    deadline = time.perf_counter() + max_seconds

    def client(index: int) -> None:
        with psycopg.connect(database_url, autocommit=autocommit) as conn:
            sequence = 0
            while time.perf_counter() < deadline:
                with lock:
                    if issued[0] >= max_requests:
                        return
                    issued[0] += 1
                work = make_work(index, sequence)
                sequence += 1
                started = time.perf_counter()
                done = work(conn)
                seconds = time.perf_counter() - started
                with lock:
                    latencies.append(seconds)
                    units[0] += done

    elapsed = run_threads(clients, client)
    return LoadResult(latencies, elapsed, Counter(), [], units[0])


def replay(statements: Sequence[str]) -> Callable[[psycopg.Connection], int]:
    """Run captured statements in order and read every row, as the app would."""

    def work(conn: psycopg.Connection) -> int:
        with conn.cursor() as cursor:
            for statement in statements:
                cursor.execute(statement.encode())
                if cursor.description is not None:
                    cursor.fetchall()
        return 1

    return work
