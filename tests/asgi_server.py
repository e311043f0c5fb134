"""The production ASGI app (memoryadmin.asgi:application) served by uvicorn in its own process, on a free
loopback port, against this test run's database and Redis.

Tests that use it need `transactional_db`: what they create must be committed for the server to see it.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from django.conf import settings
from django.db import connection

from memoryadmin.web_worker import MAX_HEAD_BYTES
from tests.conftest import redis_test_url

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def database_url() -> str:
    db = connection.settings_dict
    user = db.get("USER") or "postgres"
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{user}{password}@{db.get('HOST') or '127.0.0.1'}:{db.get('PORT') or 5432}/{db['NAME']}"


def server_environ(**extra: str) -> dict[str, str]:
    """The environment of a process that shares this test run's database, Redis, broker and secrets."""
    env = dict(os.environ)
    env.update(
        {
            "DATABASE_URL": database_url(),
            "REDIS_URL": redis_test_url(),
            "CELERY_BROKER_URL": redis_test_url(),
            "SECRET_KEY": settings.SECRET_KEY,
            "TOMBSTONE_KEY": settings.TOMBSTONE_KEY,
            "DEBUG": "false",
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "SECURE_SSL_REDIRECT": "false",
            "SECURE_HSTS_SECONDS": "0",
            "EXTRACTION_DEBOUNCE_SECONDS": "0.3",
            "LOG_LEVEL": "WARNING",
            "PYTHONPATH": str(ROOT),
        }
    )
    env.update(extra)
    return env


class AsgiServer:
    def __init__(self, **env: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = tempfile.NamedTemporaryFile(prefix="asgi-server-", suffix=".log", delete=False)  # noqa: SIM115
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "memoryadmin.asgi:application",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--lifespan",
                "on",
                "--log-level",
                "warning",
                "--no-access-log",
                # As the web worker (memoryadmin.web_worker.MAX_HEAD_BYTES): a head under 64 KiB reaches Django,
                # however the kernel splits it. With h11's default of 16 KiB, a 40 KiB request target arriving in
                # two reads was refused by the server, and the connection reset, instead of answered 414.
                "--h11-max-incomplete-event-size",
                str(MAX_HEAD_BYTES),
            ],
            cwd=ROOT,
            env=server_environ(**env),
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def wait_ready(self, timeout: float = 60.0) -> AsgiServer:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the ASGI server exited:\n{self.output()}")
            try:
                if httpx.get(f"{self.url}/api/v1/health", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"the ASGI server was not ready after {timeout} s:\n{self.output()}")

    def output(self) -> str:
        return Path(self.log.name).read_text(errors="replace")[-5000:]

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=15)
        self.log.close()
        Path(self.log.name).unlink(missing_ok=True)
