"""The app served as in production (gunicorn, DEBUG off), and a Celery worker when a figure needs one.

Every process started here is stopped by the same object, also on errors.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import httpx

from bench.common import CODE_DIR, ROOT, bench_environ

VENV_BIN = ROOT / ".venv" / "bin"
LOG_DIR = ROOT / "var" / "bench"


class Process:
    def __init__(self, name: str, argv: list[str], env: dict[str, str]) -> None:
        LOG_DIR.mkdir(parents=True, exist_ok=True)
        self.name = name
        self.log_path = LOG_DIR / f"{name}.log"
        self.log = self.log_path.open("ab")
        # A process group of its own, so stopping it also stops its workers.
        self.popen = subprocess.Popen(
            argv, env=env, cwd=CODE_DIR[0], stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True
        )

    @property
    def pid(self) -> int:
        return self.popen.pid

    def children(self) -> list[int]:
        path = Path(f"/proc/{self.pid}/task/{self.pid}/children")
        try:
            return [int(p) for p in path.read_text().split()]
        except (FileNotFoundError, ProcessLookupError, ValueError):
            return []

    def stop(self, timeout: float = 20.0) -> None:
        if self.popen.poll() is None:
            os.killpg(self.pid, signal.SIGTERM)
            try:
                self.popen.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.pid, signal.SIGKILL)
                self.popen.wait(timeout=timeout)
        self.log.close()


class AppServer(Process):
    def __init__(
        self,
        *,
        name: str,
        database_url: str,
        redis_url: str,
        port: int,
        workers: int,
        threads: int,
        extra_env: dict[str, str] | None = None,
    ) -> None:
        self.port = port
        self.workers = workers
        self.threads = threads
        env = bench_environ(database_url, redis_url) | (extra_env or {})
        # As wherever a production server starts: with DEBUG off, pages link the collected files.
        subprocess.run(
            [str(VENV_BIN / "python"), "manage.py", "collectstatic", "--no-input", "-v0"],
            env=env,
            cwd=CODE_DIR[0],
            check=True,
        )
        super().__init__(
            name,
            [
                str(VENV_BIN / "gunicorn"),
                "memoryadmin.wsgi:application",
                "--bind",
                f"127.0.0.1:{port}",
                "--workers",
                str(workers),
                "--threads",
                str(threads),
                "--worker-class",
                "gthread",
                "--keep-alive",
                "30",
                "--timeout",
                "600",
                "--log-level",
                "warning",
            ],
            env,
        )

    def wait_ready(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.popen.poll() is not None:
                raise RuntimeError(f"{self.name} exited; see {self.log_path}")
            try:
                if httpx.get(f"http://127.0.0.1:{self.port}/api/v1/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        raise RuntimeError(f"{self.name} not ready after {timeout}s; see {self.log_path}")


class CeleryWorker(Process):
    def __init__(
        self, *, database_url: str, redis_url: str, concurrency: int = 1, extra_env: dict[str, str] | None = None
    ) -> None:
        super().__init__(
            "celery-worker",
            [
                str(VENV_BIN / "celery"),
                "-A",
                "memoryadmin",
                "worker",
                "--concurrency",
                str(concurrency),
                "--loglevel",
                "warning",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
            ],
            bench_environ(database_url, redis_url) | (extra_env or {}),
        )

    def wait_ready(self, timeout: float = 30.0) -> None:
        # The worker logs nothing at warning level when it starts; give it a moment and check it lives.
        deadline = time.monotonic() + min(timeout, 4.0)
        while time.monotonic() < deadline:
            if self.popen.poll() is not None:
                raise RuntimeError(f"celery worker exited; see {self.log_path}")
            time.sleep(0.2)


def rss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError):
        pass
    return 0
