"""Figures 1 and 4 through PgBouncer (transaction pooling) against direct connections, in the same run.

    python bench/pooler.py [--database-url URL] [--rounds 3] [--seconds 10]

Serves the app twice as `make bench` does (gunicorn, DEBUG off), one server connected to PostgreSQL
directly and one through a PgBouncer in transaction mode started here (bin/pgbouncer_pg.py, with
DATABASE_POOLER=transaction), on the 100,000-memory data set by default (generated first when its
manifest is missing). Each round runs figure 1 (search scoped to one user, 8 clients) and figure 4
(one-message appends) once on each server, in turns; the pooled figure is divided by the direct
one of the same round (search throughput and the inverse of its p95, appends per second) and the
median of the rounds reported. Issue 26's goal is 0.9 or more.
Prints a table and a JSON line; writes bench/results-pooler.json.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from statistics import median
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
    """One run of figure 1 and one of figure 4 on `bench.server`."""
    search = figures.figures_1_and_2(bench)[0]
    append = figures.append_figure(bench, batch=1)
    return {
        "search_p95_ms": search.value,
        "search_throughput_per_s": search.details["median_throughput_per_s"],
        "appends_per_s": append.details["http_per_s"],
        "append_ratio_to_raw": append.details["ratio"],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=SMALL_DATABASE_URL)
    parser.add_argument("--redis-url", default=DEFAULT_REDIS_URL)
    parser.add_argument("--port", type=int, default=18771)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3, help="rounds of both figures on both servers")
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
    load_at_start = os.getloadavg()
    rounds: list[dict[str, dict[str, Any]]] = []
    with pgbouncer.pooler(pool_size=args.pool_size) as pooler_port:
        pooled_url = f"postgres://postgres@127.0.0.1:{pooler_port}/{database_name(args.database_url)}"
        environments = {
            "direct": {},
            "pgbouncer": {"DATABASE_URL": pooled_url, "DATABASE_POOLER": "transaction"},
        }
        servers = {
            mode: AppServer(
                name=f"gunicorn-{mode}",
                database_url=args.database_url,
                redis_url=args.redis_url,
                port=args.port + index,
                workers=args.workers,
                threads=args.threads,
                extra_env=extra_env,
            )
            for index, (mode, extra_env) in enumerate(environments.items())
        }
        try:
            for server in servers.values():
                server.wait_ready()
            # Both servers stay up; each round runs both figures on one, then on the other, in turns,
            # so the load other work puts on the shared machine falls on both alike.
            for number in range(args.rounds):
                order = list(servers) if number % 2 == 0 else list(reversed(servers))
                results = {}
                for mode in order:
                    log(f"round {number + 1}, {mode}:")
                    bench = figures.Bench(
                        database_url=args.database_url,
                        redis_url=args.redis_url,
                        manifest=manifest,
                        server=servers[mode],
                        clients=args.clients,
                        runs=1,
                        seconds=args.seconds,
                        log=log,
                    )
                    results[mode] = measure(bench)
                rounds.append(results)
        finally:
            for server in servers.values():
                server.stop()

    def ratio(key: str, inverse: bool = False) -> float:
        per_round = [
            (r["direct"][key] / r["pgbouncer"][key]) if inverse else (r["pgbouncer"][key] / r["direct"][key])
            for r in rounds
        ]
        return round(median(per_round), 3)

    def direct_and_pooled(key: str) -> tuple[float, float]:
        return (
            round(median([r["direct"][key] for r in rounds]), 1),
            round(median([r["pgbouncer"][key] for r in rounds]), 1),
        )

    ratios = {
        "search_throughput": ratio("search_throughput_per_s"),
        "search_p95_inverse": ratio("search_p95_ms", inverse=True),
        "appends_per_s": ratio("appends_per_s"),
    }
    report = {
        "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "code": code,
        "database": database_name(args.database_url),
        "rounds": args.rounds,
        "seconds": args.seconds,
        "clients": args.clients,
        "pool_size": args.pool_size,
        "load_average_at_start": load_at_start,
        "load_average_at_end": os.getloadavg(),
        "elapsed_s": round(time.monotonic() - started, 1),
        "per_round": rounds,
        "ratios": ratios,
    }
    (ROOT / "bench" / "results-pooler.json").write_text(json.dumps(report, indent=2) + "\n")
    search_rate, search_p95, appends = (
        direct_and_pooled("search_throughput_per_s"),
        direct_and_pooled("search_p95_ms"),
        direct_and_pooled("appends_per_s"),
    )
    log(f"medians of {args.rounds} rounds; ratios are medians of the per-round ratios")
    log("| figure | direct | through PgBouncer | pooled ÷ direct |")
    log("| --- | --- | --- | --- |")
    log(f"| 1: scoped search, req/s | {search_rate[0]} | {search_rate[1]} | {ratios['search_throughput']} |")
    log(
        f"| 1: scoped search, p95 ms | {search_p95[0]} | {search_p95[1]} "
        f"| {ratios['search_p95_inverse']} (p95 direct ÷ pooled) |"
    )
    log(f"| 4: appends/s | {appends[0]} | {appends[1]} | {ratios['appends_per_s']} |")
    log(json.dumps({"ratios": ratios, "elapsed_s": report["elapsed_s"], "load_average_at_start": load_at_start}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
