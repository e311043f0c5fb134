"""The Procfile's processes, run by bin/procfile.py against the test database and Redis."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from django.conf import global_settings, settings
from django.db import connection

from tests.conftest import redis_test_url

ROOT = Path(__file__).resolve().parents[2]
PROCFILE = ROOT / "bin" / "procfile.py"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def app_env(**overrides: str) -> dict[str, str]:
    """The environment of a process of ours: the test database and this worker's Redis database."""
    database = connection.settings_dict
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/{database['NAME']}",
        "REDIS_URL": redis_test_url(),
        "CELERY_BROKER_URL": redis_test_url(),
        "SECRET_KEY": settings.SECRET_KEY,
        "TOMBSTONE_KEY": settings.TOMBSTONE_KEY,
        "HOST": "127.0.0.1",
        "PORT": str(free_port()),
        "WEB_CONCURRENCY": "1",
        "WORKER_CONCURRENCY": "1",
    }
    env.update(overrides)
    return env


class Supervised:
    """`bin/procfile.py start ...` in the background, its output collected line by line."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.env = env
        self.lines: list[str] = []
        self.popen = subprocess.Popen(
            [sys.executable, str(PROCFILE), *args],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.popen.stdout is not None
        for line in self.popen.stdout:
            self.lines.append(line.rstrip("\n"))

    @property
    def output(self) -> str:
        return "\n".join(self.lines)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.env['PORT']}"

    def wait_for_line(self, pattern: str, timeout: float = 60) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in list(self.lines):
                if match := re.search(pattern, line):
                    return match
            if self.popen.poll() is not None:
                self._reader.join(timeout=5)
                raise AssertionError(f"the supervisor exited ({self.popen.returncode}):\n{self.output}")
            time.sleep(0.05)
        raise AssertionError(f"no line matching {pattern!r} within {timeout}s:\n{self.output}")

    def pid_of(self, name: str) -> int:
        return int(self.wait_for_line(rf"^procfile \| started {name} \(pid (\d+)\)").group(1))

    def wait_until_serving(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.popen.poll() is not None:
                raise AssertionError(f"the supervisor exited ({self.popen.returncode}):\n{self.output}")
            try:
                if httpx.get(self.url + "/api/v1/health", timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        raise AssertionError(f"the web process did not answer within {timeout}s:\n{self.output}")

    def wait(self, timeout: float = 30) -> int:
        code = self.popen.wait(timeout=timeout)
        self._reader.join(timeout=5)
        return code

    def stop(self) -> None:
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGTERM)
            try:
                self.popen.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.popen.pid, signal.SIGKILL)
                self.popen.wait()
        self._reader.join(timeout=5)


def gone(pid: int) -> bool:
    """True once the process and every process of its group have exited (and been reaped)."""
    try:
        os.killpg(pid, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.fixture
def supervise() -> Iterator[Callable[..., Supervised]]:
    started: list[Supervised] = []

    def supervise(args: list[str], env: dict[str, str]) -> Supervised:
        process = Supervised(args, env)
        started.append(process)
        return process

    yield supervise
    for process in started:
        process.stop()


@pytest.fixture(autouse=True)
def _production_password_hashing(settings) -> None:
    # The servers these tests start check passwords with the production hashers: a password set here
    # (for a sign-in through them) must be hashed by one of those, not the suite's fast one.
    settings.PASSWORD_HASHERS = global_settings.PASSWORD_HASHERS
