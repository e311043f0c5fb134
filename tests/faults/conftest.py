"""Fault injection: a Redis server of the test's own that it can stop and start, and a live server."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from memoryadmin.celery import app as celery_app


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class OwnRedis:
    """A redis-server on a port of its own, without persistence, that a test may stop and restart."""

    def __init__(self, workdir: Path) -> None:
        self.port = _free_port()
        self.workdir = workdir
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        binary = shutil.which("redis-server")
        assert binary, "redis-server is needed for the fault tests"
        self.process = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            cwd=self.workdir,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        probe = redis.Redis(port=self.port, socket_connect_timeout=0.2)
        deadline = time.monotonic() + 10
        while True:
            try:
                if probe.ping():
                    return
            except redis.exceptions.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None


def _forget_broker_connections() -> None:
    # Celery builds its connection and producer pools for one broker URL, on first use.
    celery_app._pool = None
    celery_app.amqp._producer_pool = None


@pytest.fixture
def own_redis(settings, tmp_path) -> Iterator[OwnRedis]:
    """The app's Redis and its Celery broker both on a server this test controls, as in production."""
    server = OwnRedis(tmp_path)
    server.start()
    settings.REDIS_URL = server.url
    previous_broker = celery_app.conf.broker_url
    celery_app.conf.broker_url = server.url
    _forget_broker_connections()
    # Publishing to a broker that is down fails after one quick retry rather than the default backoff.
    previous_retry = celery_app.conf.broker_connection_timeout
    celery_app.conf.broker_connection_timeout = 1
    try:
        yield server
    finally:
        server.stop()
        celery_app.conf.broker_url = previous_broker
        celery_app.conf.broker_connection_timeout = previous_retry
        _forget_broker_connections()
