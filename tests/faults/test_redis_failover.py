"""Redis with failover: a master, its replica and a sentinel, real redis-server processes on loopback.

The app finds the master through the sentinel (REDIS_SENTINELS), and finds the new one after a
failover; the Celery broker settings derived from the same variables reach it through kombu's
sentinel transport.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis

from memoryadmin.core.redis_client import get_redis
from tests.conftest import ApiClient
from tests.faults.conftest import _free_port

ROOT = Path(__file__).resolve().parents[2]
MASTER_NAME = "memoryadmin-test"

pytestmark = pytest.mark.django_db


def _until(predicate: Callable[[], object], timeout: float = 60.0, what: str = "") -> object:
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = predicate()
        except redis.exceptions.RedisError:
            value = None
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what or predicate}"
        time.sleep(0.1)


@dataclass
class Servers:
    master: int
    replica: int
    sentinel: int
    processes: list[subprocess.Popen[bytes]]

    def client(self, port: int, db: int = 0) -> redis.Redis:
        return redis.Redis(port=port, db=db, socket_timeout=2, decode_responses=True)

    def named_master(self) -> int:
        host_port = self.client(self.sentinel).execute_command("SENTINEL", "get-master-addr-by-name", MASTER_NAME)
        return int(host_port[1])


def _start(binary: str, args: list[str], workdir: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([binary, *args], cwd=workdir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


@pytest.fixture
def sentinel_cluster(tmp_path) -> Iterator[Servers]:
    binary = shutil.which("redis-server")
    assert binary, "redis-server is needed for the failover tests"
    master, replica, sentinel = _free_port(), _free_port(), _free_port()
    plain = ["--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    processes = [_start(binary, ["--port", str(master), *plain], tmp_path)]
    processes.append(
        _start(binary, ["--port", str(replica), *plain, "--replicaof", "127.0.0.1", str(master)], tmp_path)
    )
    config = tmp_path / "sentinel.conf"
    config.write_text(
        f"port {sentinel}\nbind 127.0.0.1\ndir {tmp_path}\n"
        f"sentinel monitor {MASTER_NAME} 127.0.0.1 {master} 1\n"
        f"sentinel down-after-milliseconds {MASTER_NAME} 1000\n"
        f"sentinel failover-timeout {MASTER_NAME} 10000\n"
    )
    processes.append(_start(binary, [str(config), "--sentinel"], tmp_path))
    servers = Servers(master, replica, sentinel, processes)
    try:
        _until(
            lambda: servers.client(replica).info("replication").get("master_link_status") == "up",
            what="the replica to follow the master",
        )
        _until(lambda: servers.named_master() == master, what="the sentinel to name the master")
        # The sentinel has found the replica too, so a failover has somewhere to go.
        _until(
            lambda: servers.client(sentinel).execute_command("SENTINEL", "replicas", MASTER_NAME),
            what="the sentinel to see the replica",
        )
        yield servers
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(timeout=10)


def test_the_app_follows_the_master_through_a_failover(sentinel_cluster, settings, namespace, make_key) -> None:
    servers = sentinel_cluster
    settings.REDIS_SENTINELS = [("127.0.0.1", servers.sentinel)]
    settings.REDIS_SENTINEL_MASTER = MASTER_NAME
    # Only the database number counts: the host is whatever the sentinel names.
    settings.REDIS_URL = "redis://nowhere.invalid:1/3"
    api = ApiClient(make_key(namespace)[1])
    said = {"user_id": "alice", "messages": [{"role": "user", "content": "Hi"}]}
    assert api.post("/api/v1/sessions/s1/messages", said).status_code == 201
    state = {"state": {"step": "checkout"}, "ttl_seconds": 3600}
    assert api.put("/api/v1/sessions/s1/state", state).status_code == 200
    assert servers.client(servers.master, db=3).dbsize() >= 1

    _until(lambda: servers.client(servers.replica, db=3).dbsize() >= 1, what="the write to reach the replica")
    # Until the sentinel has heard from the replica (its INFO, a few seconds on a busy machine), it answers
    # NOGOODSLAVE: asked again until it starts the failover.
    _until(
        lambda: servers.client(servers.sentinel).execute_command("SENTINEL", "FAILOVER", MASTER_NAME),
        what="the sentinel to start the failover",
    )
    _until(lambda: servers.named_master() == servers.replica, what="the failover")
    assert get_redis().ping()

    # The command that meets the old master fails (503, said so); the next goes to the new one.
    answered = _until(
        lambda: (
            (r := api.put("/api/v1/sessions/s1/state", {**state, "state": {"step": "paid"}})).status_code == 200 and r
        ),
        what="a write on the new master",
    )
    assert answered.json()["state"] == {"step": "paid"}
    assert api.get("/api/v1/sessions/s1/state").json()["state"] == {"step": "paid"}
    assert servers.client(servers.replica, db=3).dbsize() >= 1  # the promoted replica holds it


def test_the_broker_settings_reach_the_master_through_kombu_s_sentinel_transport(sentinel_cluster) -> None:
    servers = sentinel_cluster
    script = (
        "import django; django.setup()\n"
        "from django.conf import settings\n"
        "from memoryadmin.celery import app\n"
        "print(settings.CELERY_BROKER_URL)\n"
        "with app.connection_for_write() as conn:\n"
        "    queue = conn.SimpleQueue('sentinel-probe')\n"
        "    queue.put({'hello': 'world'})\n"
        "    message = queue.get(timeout=10)\n"
        "    message.ack()\n"
        "    print(message.payload)\n"
        "    queue.close()\n"
    )
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "memoryadmin.settings",
        "REDIS_URL": "redis://nowhere.invalid:1/4",
        "REDIS_SENTINELS": f"127.0.0.1:{servers.sentinel}",
        "REDIS_SENTINEL_MASTER": MASTER_NAME,
    }
    env.pop("CELERY_BROKER_URL", None)
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-3000:]
    url, payload = done.stdout.strip().splitlines()[-2:]
    assert url == f"sentinel://127.0.0.1:{servers.sentinel}/4"
    assert payload == "{'hello': 'world'}"


def test_sentinels_without_a_master_name_are_refused_at_start() -> None:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "memoryadmin.settings", "REDIS_SENTINELS": "127.0.0.1:26379"}
    env.pop("REDIS_SENTINEL_MASTER", None)
    done = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode != 0
    assert "REDIS_SENTINELS needs REDIS_SENTINEL_MASTER" in done.stderr
