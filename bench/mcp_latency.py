"""Latency of an MCP tool call (search_memory) against the REST search, in the same run.

    .venv/bin/python bench/mcp_latency.py [--users 200] [--memories-per-user 100] [--clients 4] [--runs 5]

Serves the production ASGI app (memoryadmin.asgi:application: gunicorn with uvicorn
workers, DEBUG off) on the loopback, and drives the same scoped searches (one
person's memories, top 10, one or two words) through both transports with the same
bounded load: concurrent clients with keep-alive connections sending back to back.
Runs alternate (REST, then MCP, REST, MCP...) so both see the same machine; the
figure is the median over runs of each transport's p95, and their ratio. Both are
timed at the client, on the same raw HTTP client, from the first byte sent to the
last byte read: the MCP call is one POST /mcp of a JSON-RPC `tools/call` at protocol
2026-07-28 (what the SDK's client sends once connected).

It then times a few hundred calls one after another through each transport's own
client library (the MCP SDK's client, and memoryadmin's Python client), for the
latency an application sees.

The data lives in its own database (memoryadmin_bench_mcp, created when missing) and
the results go to bench/results-mcp.json, which docs/benchmarks.md is rendered from.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "clients" / "python" / "src"))

from bench.common import ROOT, bench_environ, database_exists, database_recreate, django_setup
from bench.generate import migrate
from bench.load import LoadResult, Request, Response, drive_http, percentile
from bench.server import VENV_BIN, Process

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/memoryadmin_bench_mcp"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/12"
RESULTS = ROOT / "bench" / "results-mcp.json"
PROTOCOL = "2026-07-28"
GOAL_RATIO = 1.5
WORDS = (  # noqa: SIM905 - a paragraph of words reads better than a list of 90 strings
    "jazz hiking coffee tea cycling chess sailing piano violin cooking baking running swimming garden "
    "travel novels poetry cinema theatre football tennis climbing skiing yoga painting pottery "
    "photography birds cats dogs horses wine cheese bread pasta sushi curry spicy vegan vegetarian "
    "peanuts gluten lactose allergy doctor nurse teacher engineer pilot chef lawyer architect farmer "
    "writer Lyon Berlin Lisbon Toronto Osaka Nairobi Lima Oslo Porto Austin Hanoi morning evening "
    "weekend summer winter spring autumn mountains beach river lake forest city village train plane boat "
    "car bicycle museum concert festival market library "
).split()


# How Django's requests can be served (--handlers): the web process as shipped, Django's own ASGI
# handler under the same uvicorn workers, and the threaded WSGI server the app was served by before.
HANDLERS = {
    "asgi": ("memoryadmin.asgi:application", ["--worker-class", "uvicorn_worker.UvicornWorker"]),
    "django-asgi": ("django.core.asgi:get_asgi_application()", ["--worker-class", "uvicorn_worker.UvicornWorker"]),
    "wsgi-gthread": ("memoryadmin.wsgi:application", ["--worker-class", "gthread", "--threads", "2"]),
}


class AsgiServer(Process):
    def __init__(self, *, database_url: str, redis_url: str, port: int, workers: int, handler: str = "asgi") -> None:
        self.port = port
        app, options = HANDLERS[handler]
        super().__init__(
            f"web-{handler}",
            [
                str(VENV_BIN / "gunicorn"),
                app,
                *options,
                "--bind",
                f"127.0.0.1:{port}",
                "--workers",
                str(workers),
                "--keep-alive",
                "30",
                "--log-level",
                "warning",
            ],
            bench_environ(database_url, redis_url) | {"DJANGO_SETTINGS_MODULE": "memoryadmin.settings"},
        )

    def wait_ready(self, timeout: float = 60.0) -> None:
        import httpx

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.popen.poll() is not None:
                raise RuntimeError(f"the ASGI server exited; see {self.log_path}")
            try:
                if httpx.get(f"http://127.0.0.1:{self.port}/api/v1/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        raise RuntimeError(f"the ASGI server was not ready after {timeout}s; see {self.log_path}")


def log(message: str) -> None:
    print(message, flush=True)


def prepare(database_url: str, redis_url: str, users: int, per_user: int, seed: int) -> tuple[str, list[str]]:
    """The data set (generated when missing or of another size) and a fresh read-only key."""
    marker = {"users": users, "memories_per_user": per_user, "seed": seed}
    marker_path = ROOT / "bench" / "data" / "memoryadmin_bench_mcp.json"
    fresh = not database_exists(database_url) or not marker_path.exists()
    if not fresh and json.loads(marker_path.read_text()) != marker:
        fresh = True
    if fresh:
        log(f"generating {users} people x {per_user} memories in {database_url}")
        database_recreate(database_url)
        migrate(database_url, redis_url)
    django_setup(database_url, redis_url)
    from memoryadmin.audit.services import Actor
    from memoryadmin.memories.services import NewMemory, memory_create_many
    from memoryadmin.tenancy.models import Namespace
    from memoryadmin.tenancy.services import api_key_create, namespace_create

    actor = Actor.system("bench")
    people = [f"person-{n:05d}" for n in range(users)]
    if fresh:
        namespace = namespace_create(slug="bench-mcp", actor=actor)
        rng = random.Random(seed)
        started = time.monotonic()
        for person in people:
            texts = {f"{person} {' '.join(rng.sample(WORDS, 6))}" for _ in range(per_user)}
            memory_create_many(
                namespace=namespace, actor=actor, items=[NewMemory(user_id=person, text=t) for t in sorted(texts)]
            )
        marker_path.parent.mkdir(parents=True, exist_ok=True)
        marker_path.write_text(json.dumps(marker))
        log(f"generated in {time.monotonic() - started:.1f}s")
    namespace = Namespace.objects.get(slug="bench-mcp")
    _, key = api_key_create(namespace=namespace, name="bench-mcp", scopes=["read"], actor=actor)
    return key, people


def searches(people: list[str], count: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    return [
        {"query": " ".join(rng.sample(WORDS, rng.choice((1, 1, 2)))), "user_id": rng.choice(people), "limit": 10}
        for _ in range(count)
    ]


def rest_request(arguments: dict[str, Any]) -> Request:
    return Request("POST", "/api/v1/memories/search", arguments, expect=(200,))


def mcp_request(arguments: dict[str, Any], call_id: int) -> Request:
    body = {
        "jsonrpc": "2.0",
        "id": call_id,
        "method": "tools/call",
        "params": {
            "name": "search_memory",
            "arguments": arguments,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": PROTOCOL,
                "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    }
    headers = {
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": PROTOCOL,
        "Mcp-Method": "tools/call",
        "Mcp-Name": "search_memory",
    }
    return Request("POST", "/mcp", body, headers=headers, expect=(200,))


def mcp_answered(request: Request, response: Response) -> str | None:
    result = response.json().get("result") or {}
    if result.get("isError") or "structuredContent" not in result:
        return f"tool call failed: {response.body[:200]!r}"
    return None


def drive(port: int, key: str, make: Any, *, clients: int, seconds: float, check: Any = None) -> LoadResult:
    return drive_http(
        port=port,
        api_key=key,
        clients=clients,
        make_request=make,
        max_requests=100_000,
        max_seconds=seconds,
        check=check,
    )


def through_clients(port: int, key: str, calls: list[dict[str, Any]]) -> dict[str, Any]:
    """One call after another through each transport's own client library."""
    import anyio
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from memoryadmin_client import MemoryAdmin

    url = f"http://127.0.0.1:{port}"
    rest: list[float] = []
    with MemoryAdmin(url, key) as client:
        client.health()
        for arguments in calls:
            started = time.perf_counter()
            client.memories.search(**arguments)
            rest.append(time.perf_counter() - started)

    async def mcp_calls() -> list[float]:
        seconds = []
        async with (
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=60) as http,
            Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client,
        ):
            await client.list_tools()
            for arguments in calls:
                started = time.perf_counter()
                result = await client.call_tool("search_memory", arguments)
                seconds.append(time.perf_counter() - started)
                if result.is_error:
                    raise RuntimeError(result.structured_content)
        return seconds

    mcp = anyio.run(mcp_calls)
    return {"rest_client": _summary(rest), "mcp_sdk_client": _summary(mcp)}


def _summary(latencies: list[float]) -> dict[str, float]:
    return {
        "calls": len(latencies),
        "p50_ms": round(percentile(latencies, 50) * 1000, 2),
        "p95_ms": round(percentile(latencies, 95) * 1000, 2),
        "p99_ms": round(percentile(latencies, 99) * 1000, 2),
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    parser.add_argument("--redis-url", default=DEFAULT_REDIS_URL)
    parser.add_argument("--users", type=int, default=200)
    parser.add_argument("--memories-per-user", type=int, default=100)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--workers", type=int, default=4, help="uvicorn worker processes under gunicorn")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=6.0, help="length of each run of each transport")
    parser.add_argument("--sequential-calls", type=int, default=300)
    parser.add_argument("--port", type=int, default=8471)
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument(
        "--handlers",
        action="store_true",
        help="instead: the REST search alone through each way of serving Django (see HANDLERS)",
    )
    args = parser.parse_args(argv)
    if args.handlers:
        return compare_handlers(args)

    key, people = prepare(args.database_url, args.redis_url, args.users, args.memories_per_user, args.seed)
    pool = searches(people, 5000, args.seed)
    server = AsgiServer(database_url=args.database_url, redis_url=args.redis_url, port=args.port, workers=args.workers)
    runs: list[dict[str, Any]] = []
    load_before = os.getloadavg()
    try:
        server.wait_ready()
        # Warm both paths (connections, caches) before anything is timed.
        drive(args.port, key, lambda c, s: rest_request(pool[s % len(pool)]), clients=args.clients, seconds=2)
        drive(args.port, key, lambda c, s: mcp_request(pool[s % len(pool)], s), clients=args.clients, seconds=2)
        for run in range(args.runs):
            offset = run * 997

            def rest(client: int, seq: int, offset: int = offset) -> Request:
                return rest_request(pool[(offset + client * 131 + seq) % len(pool)])

            def mcp(client: int, seq: int, offset: int = offset) -> Request:
                return mcp_request(pool[(offset + client * 131 + seq) % len(pool)], seq)

            measured_rest = drive(args.port, key, rest, clients=args.clients, seconds=args.seconds)
            measured_mcp = drive(args.port, key, mcp, clients=args.clients, seconds=args.seconds, check=mcp_answered)
            runs.append({"rest": measured_rest.summary(), "mcp": measured_mcp.summary()})
            log(
                f"run {run + 1}: REST p95 {runs[-1]['rest']['p95_ms']} ms ({runs[-1]['rest']['throughput_per_s']}/s), "
                f"MCP p95 {runs[-1]['mcp']['p95_ms']} ms ({runs[-1]['mcp']['throughput_per_s']}/s)"
            )
        sequential = through_clients(args.port, key, pool[: args.sequential_calls])
    finally:
        server.stop()

    def median_of(transport: str, field: str) -> float:
        return round(statistics.median(r[transport][field] for r in runs), 2)

    rest_p95, mcp_p95 = median_of("rest", "p95_ms"), median_of("mcp", "p95_ms")
    ratio = round(mcp_p95 / rest_p95, 3) if rest_p95 else None
    errors = sum(r["rest"]["errors"] + r["mcp"]["errors"] for r in runs)
    results = {
        "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": "python bench/mcp_latency.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "settings": {
            "users": args.users,
            "memories_per_user": args.memories_per_user,
            "clients": args.clients,
            "workers": args.workers,
            "runs": args.runs,
            "seconds_per_run": args.seconds,
        },
        "rest": {f: median_of("rest", f) for f in ("p50_ms", "p95_ms", "p99_ms", "throughput_per_s")},
        "mcp": {f: median_of("mcp", f) for f in ("p50_ms", "p95_ms", "p99_ms", "throughput_per_s")},
        "ratio_p95": ratio,
        "goal_ratio": GOAL_RATIO,
        "verdict": "pass" if ratio is not None and ratio <= GOAL_RATIO and errors == 0 else "miss",
        "errors": errors,
        "runs": runs,
        "sequential": sequential,
        "load_average": {"start": load_before, "end": os.getloadavg()},
    }
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    log(f"REST p95 {rest_p95} ms, MCP p95 {mcp_p95} ms: ratio {ratio} (goal <= {GOAL_RATIO}); wrote {RESULTS}")
    return results


def compare_handlers(args: argparse.Namespace) -> dict[str, Any]:
    """The same REST searches through each way of serving Django, one server at a time, runs interleaved."""
    key, people = prepare(args.database_url, args.redis_url, args.users, args.memories_per_user, args.seed)
    pool = searches(people, 5000, args.seed)
    measured: dict[str, list[dict[str, Any]]] = {name: [] for name in HANDLERS}
    for run in range(args.runs):
        for name in HANDLERS:
            server = AsgiServer(
                database_url=args.database_url,
                redis_url=args.redis_url,
                port=args.port,
                workers=args.workers,
                handler=name,
            )
            try:
                server.wait_ready()
                drive(args.port, key, lambda c, s: rest_request(pool[s % len(pool)]), clients=args.clients, seconds=2)
                offset = run * 997
                result = drive(
                    args.port,
                    key,
                    lambda c, s, offset=offset: rest_request(pool[(offset + c * 131 + s) % len(pool)]),
                    clients=args.clients,
                    seconds=args.seconds,
                )
            finally:
                server.stop()
            measured[name].append(result.summary())
            log(f"run {run + 1} {name}: p95 {result.summary()['p95_ms']} ms, {result.summary()['throughput_per_s']}/s")
    results = {
        "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": "python bench/mcp_latency.py " + " ".join(sys.argv[1:]),
        "handlers": {
            name: {f: round(statistics.median(r[f] for r in runs), 2) for f in ("p50_ms", "p95_ms", "throughput_per_s")}
            | {"errors": sum(r["errors"] for r in runs)}
            for name, runs in measured.items()
        },
        "settings": {"clients": args.clients, "workers": args.workers, "runs": args.runs},
        "load_average_end": os.getloadavg(),
    }
    path = ROOT / "bench" / "results-handlers.json"
    path.write_text(json.dumps(results, indent=2) + "\n")
    log(json.dumps(results["handlers"], indent=2))
    return results


def section(results: dict[str, Any]) -> list[str]:
    """The section of docs/benchmarks.md for these results."""
    s = results["settings"]
    seq = results["sequential"]
    return [
        "## MCP tool call against the REST search",
        "",
        f"Measured {results['measured_at']} by `{results['command'].strip()}` (`bench/mcp_latency.py`); the raw "
        "figures are in `bench/results-mcp.json`.",
        "",
        "| figure | goal | result | verdict |",
        "| --- | --- | --- | --- |",
        f"| `search_memory` over MCP (POST /mcp, JSON-RPC `tools/call`) vs POST /api/v1/memories/search, p95, "
        f"{s['clients']} clients | MCP p95 ≤ {results['goal_ratio']}× REST p95 | MCP p95 {results['mcp']['p95_ms']} ms "
        f"(p50 {results['mcp']['p50_ms']} ms, {results['mcp']['throughput_per_s']}/s) vs REST p95 "
        f"{results['rest']['p95_ms']} ms (p50 {results['rest']['p50_ms']} ms, {results['rest']['throughput_per_s']}/s):"
        f" ratio {results['ratio_p95']} (medians of {s['runs']} alternating runs; per run {_ratio_range(results)}),"
        f" {results['errors']} errors | "
        f"{results['verdict']} |",
        "",
        f"- Server: `memoryadmin.asgi:application` under gunicorn with {s['workers']} uvicorn workers, `DEBUG=false`, "
        "on 127.0.0.1; the REST API and MCP answer from the same processes.",
        f"- Data: {s['users']} people with {s['memories_per_user']} memories each; every search is scoped to one "
        "person, top 10, one or two words; the same searches go through both transports.",
        f"- Load: {s['clients']} client threads with keep-alive connections, {s['seconds_per_run']} s per run and "
        "transport, REST and MCP alternating; timed at the client by the same raw HTTP client.",
        f"- Through each transport's own client library, one call after another ({seq['rest_client']['calls']} "
        f"calls): memoryadmin's Python client p50 {seq['rest_client']['p50_ms']} ms, p95 "
        f"{seq['rest_client']['p95_ms']} ms; the MCP SDK's client p50 {seq['mcp_sdk_client']['p50_ms']} ms, p95 "
        f"{seq['mcp_sdk_client']['p95_ms']} ms (its own JSON-RPC, validation and output-schema checks included).",
        "- Load average (1, 5, 15 min) at the start "
        + ", ".join(f"{x:.2f}" for x in results["load_average"]["start"])
        + " and at the end "
        + ", ".join(f"{x:.2f}" for x in results["load_average"]["end"])
        + ": the machine was shared with other work.",
        "",
        *handlers_section(),
    ]


def _ratio_range(results: dict[str, Any]) -> str:
    ratios = [r["mcp"]["p95_ms"] / r["rest"]["p95_ms"] for r in results["runs"] if r["rest"]["p95_ms"]]
    return f"{min(ratios):.2f} to {max(ratios):.2f}" if ratios else "n/a"


def handlers_section() -> list[str]:
    path = ROOT / "bench" / "results-handlers.json"
    if not path.exists():
        return []
    results = json.loads(path.read_text())
    rows = [
        f"| {name} | {r['p50_ms']} ms | {r['p95_ms']} ms | {r['throughput_per_s']}/s | {r['errors']} |"
        for name, r in results["handlers"].items()
    ]
    return [
        "### How the web process serves Django",
        "",
        f"The same scoped REST searches through each way of serving Django (gunicorn, {results['settings']['workers']}"
        f" workers, {results['settings']['clients']} clients, medians of {results['settings']['runs']} interleaved"
        f" runs), measured {results['measured_at']} by `{results['command'].strip()}`: `asgi` is"
        " `memoryadmin.asgi:application` as shipped (Django's WSGI handler in a thread pool, MCP beside it),"
        " `django-asgi` Django's own ASGI handler, `wsgi-gthread` the threaded WSGI server.",
        "",
        "| served by | p50 | p95 | throughput | errors |",
        "| --- | --- | --- | --- | --- |",
        *rows,
        "",
    ]


if __name__ == "__main__":
    main()
