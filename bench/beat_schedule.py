"""Several beats, one schedule: is each periodic task sent once per period? (issue 26's goal)

    python bench/beat_schedule.py [--beats 2] [--hours 1] [--compress 60] [--redis-url URL]

Starts `--beats` real `celery beat` processes together with the production schedule compressed
`--compress` times (at 60: extraction recovery every second instead of every minute, lost erasures
every 10 s instead of 10 min, forgetting every minute instead of every hour), lets them run for
`--hours` of that schedule, stops them, and counts what reached the broker: every message a beat
sends carries its period (memoryadmin.beat). No worker consumes the queue, so every message sent
is counted. The broker is the benchmarks' Redis database (flushed first; --redis-url); the beats
read the database's settings at start (--database-url: DATABASE_URL, or the benchmarks'). Prints a
table and a JSON line; exits 1 when a period was sent twice or a whole period in the middle was
missed. `--scheduler celery.beat:PersistentScheduler` runs Celery's own scheduler, for comparison.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import redis

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import DEFAULT_DATABASE_URL, DEFAULT_REDIS_URL, ROOT

QUEUE = "celery"
STOP_SECONDS = 10.0
# The production periods (settings.CELERY_BEAT_SCHEDULE's defaults) and the variables that set them.
SCHEDULE = {
    "memoryadmin.extraction.tasks.recover_extraction": ("EXTRACTION_RECOVERY_SECONDS", 60),
    "memoryadmin.governance.tasks.requeue_lost_erasures": ("ERASURE_REQUEUE_SECONDS", 600),
    "memoryadmin.governance.tasks.run_due_forgetting_policies": ("FORGETTING_CHECK_SECONDS", 3600),
}


def compressed_periods(compress: int) -> dict[str, int]:
    """Each task's period in seconds with the schedule `compress` times faster."""
    return {task: max(1, seconds // compress) for task, (_, seconds) in SCHEDULE.items()}


def beat_environ(database_url: str, redis_url: str, periods: dict[str, int]) -> dict[str, str]:
    env = {**os.environ, "DATABASE_URL": database_url, "PYTHONPATH": str(ROOT)}
    env.update({"REDIS_URL": redis_url, "CELERY_BROKER_URL": redis_url})
    env.pop("AUDIT_CHECKPOINT_DIR", None)
    for task, period in periods.items():
        env[SCHEDULE[task][0]] = str(period)
    return env


@dataclass
class Beats:
    processes: list[subprocess.Popen[bytes]]
    logs: list[Path]

    def stop(self) -> list[str]:
        """Stop every beat; their logs."""
        for process in self.processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(STOP_SECONDS)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        return [log.read_text(errors="replace") for log in self.logs]


def beats_start(count: int, env: dict[str, str], folder: Path, scheduler: str | None = None) -> Beats:
    """`count` beats as the Procfile starts one, each with its own schedule file."""
    processes, logs = [], []
    for index in range(count):
        log = folder / f"beat-{index}.log"
        with log.open("wb") as output:
            processes.append(
                subprocess.Popen(
                    [
                        *(sys.executable, "-m", "celery", "-A", "memoryadmin", "beat", "--loglevel", "INFO"),
                        *("--schedule", str(folder / f"beat-{index}")),
                        *(("--scheduler", scheduler) if scheduler else ()),
                    ],
                    cwd=ROOT,
                    env={**env, "PYTHONUNBUFFERED": "1"},
                    stdout=output,
                    stderr=subprocess.STDOUT,
                )
            )
        logs.append(log)
    return Beats(processes, logs)


def sent_periods(client: redis.Redis) -> dict[str, list[int | None]]:
    """task name -> the period of every message sent for it (None from a scheduler that names none)."""
    sent: dict[str, list[int | None]] = {}
    # The Redis transport pushes on the left: the oldest message is last.
    for raw in reversed(client.lrange(QUEUE, 0, -1)):
        headers = json.loads(raw)["headers"]
        period = headers.get("beat_period")
        sent.setdefault(headers["task"], []).append(None if period is None else int(period))
    return sent


def schedule_problems(sent: dict[str, list[int | None]], expected: dict[str, int]) -> list[str]:
    """More messages than periods, a period sent twice, a task never sent, or a period missed between
    the first and the last."""
    problems = []
    for task, count in expected.items():
        messages = sent.get(task, [])
        if not messages:
            if count:
                problems.append(f"{task}: never sent")
            continue
        if len(messages) > count + 1:
            problems.append(f"{task}: sent {len(messages)} times in {count} periods")
        periods = [p for p in messages if p is not None]
        twice = sorted(p for p, n in Counter(periods).items() if n > 1)
        if twice:
            problems.append(f"{task}: periods sent more than once: {twice}")
        missed = sorted(set(range(min(periods), max(periods) + 1)) - set(periods)) if periods else []
        if missed:
            problems.append(f"{task}: periods missed: {missed}")
    return problems


def wait_until(predicate: Callable[[], bool], seconds: float, beats: Beats) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        if any(p.poll() is not None for p in beats.processes):
            raise RuntimeError("a beat exited:\n" + "\n".join(beats.stop()))
        if time.monotonic() > deadline:
            raise RuntimeError(f"not done within {seconds:.0f} s")
        time.sleep(0.2)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--beats", type=int, default=2)
    parser.add_argument("--hours", type=float, default=1.0)
    parser.add_argument("--compress", type=int, default=60)
    parser.add_argument("--scheduler", help="a beat scheduler other than the settings' (CELERY_BEAT_SCHEDULER)")
    parser.add_argument("--database-url", default=os.environ.get("DATABASE_URL", DEFAULT_DATABASE_URL))
    parser.add_argument("--redis-url", default=DEFAULT_REDIS_URL)
    args = parser.parse_args()
    periods = compressed_periods(args.compress)
    client = redis.Redis.from_url(args.redis_url)
    client.flushdb()
    run_seconds = args.hours * 3600 / args.compress
    with tempfile.TemporaryDirectory(prefix="memoryadmin-beats-") as folder:
        beats = beats_start(
            args.beats, beat_environ(args.database_url, args.redis_url, periods), Path(folder), args.scheduler
        )
        started = time.time()
        # Counted from the first message of the shortest period: the beats are up by then.
        wait_until(lambda: client.llen(QUEUE) > 0, 60, beats)
        first = time.time()
        time.sleep(run_seconds)
        beats.stop()
    sent = sent_periods(client)
    expected = {task: math.floor(run_seconds / period) for task, period in periods.items()}
    problems = schedule_problems(sent, expected)
    result = {
        "beats": args.beats,
        "schedule_hours": args.hours,
        "compress": args.compress,
        "start_seconds": round(first - started, 1),
        "tasks": {
            task: {
                "period_seconds": periods[task],
                "expected": expected[task],
                "sent": len(sent.get(task, [])),
                "distinct_periods": len({p for p in sent.get(task, []) if p is not None}),
            }
            for task in periods
        },
        "problems": problems,
    }
    print(f"{args.beats} beats, {args.hours:g} h of schedule in {run_seconds:.0f} s (x{args.compress})")
    print("| task | period (compressed) | periods in the run | messages sent | distinct periods |")
    print("| --- | --- | --- | --- | --- |")
    for task, row in result["tasks"].items():
        print(
            f"| {task.rsplit('.', 1)[1]} | {row['period_seconds']} s | {row['expected']} | {row['sent']} "
            f"| {row['distinct_periods']} |"
        )
    print(json.dumps(result))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
