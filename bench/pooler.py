"""Figures 1 and 4 through PgBouncer (transaction pooling) against direct connections, in the same run.

    python bench/pooler.py [--database-url URL] [--runs 3] [--seconds 10]

Serves the app twice as `make bench` does (gunicorn, DEBUG off), one server connected to PostgreSQL
directly and one through a PgBouncer in transaction mode started here (bin/pgbouncer_pg.py, with
DATABASE_POOLER=transaction), on the 100,000-memory data set by default (generated first when its
manifest is missing). Figure 1 (search scoped to one user, 8 clients) and figure 4 (one-message
appends) run on each server in turn, and the pooled figure is divided by the direct one: search
throughput and the inverse of its p95, appends per second. Issue 26's goal is 0.9 or more.
Prints a table and a JSON line; writes bench/results-pooler.json.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import figures
from bench.common import DEFAULT_REDIS_URL, ROOT, database_name, django_setup, use_code
from bench.generate import migrate
from bench.run import SMALL_DATABASE_URL, SMALL_SIZES, ensure_data_set
from bench.server import AppServer


def _pgbouncer_module() -> Any:
    spec = importlib.util.spec_from_file_location("pgbouncer_pg", ROOT / "bin" / "pgbouncer_pg.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def log(message: str) -> None:
    print(message, flush=True)


def measure(bench: figures.Bench) -> dict[str, Any]:
    search = figures.figures_1_and_2(bench)[0]
    append = figures.append_figure(bench, batch=1)
    return {
        "search_p95_ms": search.value,
        "search_throughput_per_s": search.details["median_throughput_per_s"],
        "search_summary": search.summary,
        "appends_per_s": append.details["http_per_s"],
        "append_ratio_to_raw": append.details["ratio"],
        "append_summary": append.summary,
        "append_details": append.details,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=SMALL_DATABASE_URL)
    parser.add_argument("--redis-url", default=DEFAULT_REDIS_URL)
    parser.add_argument("--port", type=int, default=18771)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--pool-size", type=int, default=20, help="PgBouncer's server connections per database")
    parser.add_argument("--code", default="HEAD", help="the commit to serve, or worktree")
    args = parser.parse_args()

    code = use_code(args.code)
    manifest = ensure_data_set(args.database_url, SMALL_SIZES, args.redis_url, args.code)
    migrate(args.database_url, args.redis_url)
    django_setup(args.database_url, args.redis_url)
    from memoryadmin.core.redis_client import get_redis

    get_redis().flushdb()
    pgbouncer = _pgbouncer_module()
    started = time.monotonic()
    results: dict[str, Any] = {}
    with pgbouncer.pooler(pool_size=args.pool_size) as pooler_port:
        pooled_url = f"postgres://postgres@127.0.0.1:{pooler_port}/{database_name(args.database_url)}"
        modes = {
            "direct": {},
            "pgbouncer": {"DATABASE_URL": pooled_url, "DATABASE_POOLER": "transaction"},
        }
        for index, (mode, extra_env) in enumerate(modes.items()):
            server = AppServer(
                name=f"gunicorn-{mode}",
                database_url=args.database_url,
                redis_url=args.redis_url,
                port=args.port + index,
                workers=args.workers,
                threads=args.threads,
                extra_env=extra_env,
            )
            try:
                server.wait_ready()
                bench = figures.Bench(
                    database_url=args.database_url,
                    redis_url=args.redis_url,
                    manifest=manifest,
                    server=server,
                    clients=args.clients,
                    runs=args.runs,
                    seconds=args.seconds,
                    log=log,
                )
                log(f"{mode}:")
                results[mode] = measure(bench)
            finally:
                server.stop()
    direct, pooled = results["direct"], results["pgbouncer"]
    ratios = {
        "search_throughput": round(pooled["search_throughput_per_s"] / direct["search_throughput_per_s"], 3),
        "search_p95_inverse": round(direct["search_p95_ms"] / pooled["search_p95_ms"], 3),
        "appends_per_s": round(pooled["appends_per_s"] / direct["appends_per_s"], 3),
    }
    report = {
        "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "code": code,
        "database": database_name(args.database_url),
        "memories": manifest.get("counts", {}).get("memories"),
        "runs": args.runs,
        "seconds": args.seconds,
        "clients": args.clients,
        "pool_size": args.pool_size,
        "elapsed_s": round(time.monotonic() - started, 1),
        "results": results,
        "ratios": ratios,
    }
    (ROOT / "bench" / "results-pooler.json").write_text(json.dumps(report, indent=2) + "\n")
    log("| figure | direct | through PgBouncer | pooled ÷ direct |")
    log("| --- | --- | --- | --- |")
    log(
        f"| 1: scoped search, req/s | {direct['search_throughput_per_s']} | {pooled['search_throughput_per_s']} "
        f"| {ratios['search_throughput']} |"
    )
    log(
        f"| 1: scoped search, p95 ms | {direct['search_p95_ms']} | {pooled['search_p95_ms']} "
        f"| {ratios['search_p95_inverse']} (direct ÷ pooled) |"
    )
    log(f"| 4: appends/s | {direct['appends_per_s']} | {pooled['appends_per_s']} | {ratios['appends_per_s']} |")
    log(json.dumps({"ratios": ratios, "elapsed_s": report["elapsed_s"]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
