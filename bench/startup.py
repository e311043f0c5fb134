"""How fast memoryadmin starts: seeding the demo data, and `make run` until it serves.

    python bench/startup.py [--port 8160] [--runs 3]

On a database of its own (DATABASE_URL's name with `_startup_bench` appended, dropped first):

- seed: a freshly migrated, empty database, then `manage.py seed_demo`, timed as a whole
  command (Django's start included);
- first `make run`: no database yet (the virtualenv exists), until `/login/` answers 200;
- second `make run`: the same again, now with the database migrated and seeded.

Each figure is the median of `--runs` runs. The results replace this script's section of
docs/benchmarks.md (between its markers; `bench/run.py` keeps the section when it rewrites the
rest of the report).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import signal
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
BEGIN, END = "<!-- startup: written by bench/startup.py -->", "<!-- /startup -->"
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/memoryadmin"
PYTHON = str(ROOT / ".venv" / "bin" / "python")


def database_env() -> dict[str, str]:
    parts = urlsplit(os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL)
    url = urlunsplit(parts._replace(path=parts.path + "_startup_bench"))
    return {**os.environ, "DATABASE_URL": url}


def drop_database(env: dict[str, str]) -> None:
    name = urlsplit(env["DATABASE_URL"]).path.lstrip("/")
    code = (
        "import psycopg, sys\n"
        "from psycopg import sql\n"
        "with psycopg.connect(sys.argv[1], autocommit=True) as c:\n"
        "    c.execute(sql.SQL('DROP DATABASE IF EXISTS {} WITH (FORCE)').format(sql.Identifier(sys.argv[2])))\n"
    )
    admin = urlunsplit(urlsplit(env["DATABASE_URL"])._replace(path="/postgres", scheme="postgresql"))
    subprocess.run([PYTHON, "-c", code, admin, name], check=True)


def manage(env: dict[str, str], *args: str) -> None:
    subprocess.run([PYTHON, "manage.py", *args], cwd=ROOT, env=env, check=True, capture_output=True)


def seed_seconds(env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of the command (the CPU is its own, not PostgreSQL's, and moves less with load)."""
    drop_database(env)
    manage(env, "ensure_database")
    manage(env, "migrate", "--no-input", "-v0")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    manage(env, "seed_demo")
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def make_run_seconds(env: dict[str, str], port: int) -> float:
    """From `make run` to the first 200 of /login/, then Ctrl-C (SIGINT to make and the supervisor)."""
    started = time.monotonic()
    make = subprocess.Popen(
        ["make", "run", f"PORT={port}"],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        while True:
            if make.poll() is not None:
                raise SystemExit(f"make run exited with {make.returncode} before serving")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/login/", timeout=2) as response:
                    if response.status == 200:
                        return time.monotonic() - started
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() - started > 300:
                raise SystemExit("make run did not serve within 300 s")
            time.sleep(0.05)
    finally:
        os.killpg(make.pid, signal.SIGINT)
        make.wait(timeout=60)


def write_section(text: str) -> None:
    docs = ROOT / "docs" / "benchmarks.md"
    report = docs.read_text()
    section = f"{BEGIN}\n{text.strip()}\n{END}"
    if BEGIN in report:
        report = re.sub(re.escape(BEGIN) + r".*?" + re.escape(END), lambda _: section, report, flags=re.S)
    else:
        report = report.rstrip("\n") + "\n\n" + section + "\n"
    docs.write_text(report)


def commit() -> str:
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    return done.stdout.strip() or "?"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=8160)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    env = database_env()
    load_start = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    seeds, cpus, firsts, seconds = [], [], [], []
    for run in range(args.runs):
        wall, cpu = seed_seconds(env)
        seeds.append(wall)
        cpus.append(cpu)
        drop_database(env)
        firsts.append(make_run_seconds(env, args.port))
        seconds.append(make_run_seconds(env, args.port))
        print(f"run {run + 1}: seed {seeds[-1]:.1f} s, first make run {firsts[-1]:.1f} s, second {seconds[-1]:.1f} s")
    drop_database(env)

    def figure(values: list[float]) -> str:
        return f"{statistics.median(values):.1f} s (runs: {', '.join(f'{v:.1f}' for v in values)})"

    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    write_section(
        f"""
## Starting memoryadmin

Measured {datetime.now(UTC).isoformat(timespec="seconds")} on {commit()} by `python bench/startup.py --runs {args.runs}`
(medians; load average at the start {load_start}, at the end {load}, on 2 cores shared with other work).
Seeding writes the demo's 500 sessions and 10,000 messages through the conversations app's bulk writes
and its 3,000 memories through `memory_create_many`, in one transaction; the CPU figure is the
command's own, which moves less with the machine's load than its wall time.

| figure | goal | result |
| --- | --- | --- |
| `manage.py seed_demo`, empty migrated database, whole command | ≤ 10 s | {figure(seeds)}; CPU {figure(cpus)} |
| first `make run` with the virtualenv in place: creates, migrates, seeds, serves | | {figure(firsts)} |
| second `make run` to serving | ≤ 15 s | {figure(seconds)} |
"""
    )
    print(f"seed {figure(seeds)}; first make run {figure(firsts)}; second make run {figure(seconds)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
