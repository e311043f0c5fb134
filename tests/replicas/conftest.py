"""Tests against a real streaming replica of the test server: `make test-replica` starts it.

bin/replica_pg.py copies the primary with pg_basebackup, starts the copy as a hot standby on a
free port and runs pytest with DATABASE_REPLICA_URLS pointing at it, so the settings make the
`replica1` alias, the router and the read-your-writes middleware exactly as in production. The
alias is a test mirror of `default`: it keeps the replica's port and takes the test database's
name, which replication brings over.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator

import psycopg
import pytest
from django.db import connections

from bin.replica_pg import Replica
from memoryadmin.core import replicas

REPLICA = "replica1"
DEADLINE = 30.0


def primary_lsn() -> int:
    with connections["default"].cursor() as cursor:
        cursor.execute("SELECT (pg_current_wal_lsn() - '0/0')::bigint")
        return int(cursor.fetchone()[0])


def eventually(check: Callable[[], object], what: str, deadline: float = DEADLINE) -> object:
    """The first truthy answer of `check`, polled until the deadline."""
    end = time.monotonic() + deadline
    while True:
        answer = check()
        if answer:
            return answer
        if time.monotonic() > end:
            raise AssertionError(f"not after {deadline} s: {what}")
        time.sleep(0.05)


class ReplicaControl:
    """The replica the tests run beside: stopped, started, paused, resumed, waited for."""

    def __init__(self, replica: Replica) -> None:
        self.replica = replica

    def caught_up(self) -> None:
        target = primary_lsn()
        eventually(lambda: self.replica.replay_lsn() >= target, "the replica replays the primary's last write")

    def pause(self) -> None:
        self.caught_up()
        self.replica.pause_replay()

    def resume(self) -> None:
        self.replica.resume_replay()

    def stop(self) -> None:
        self.replica.stop("fast")

    def start(self) -> None:
        self.replica.start()

    def ensure_replaying(self) -> None:
        if not self.replica.running():
            self.replica.start()
        try:
            self.replica.resume_replay()
        except psycopg.Error:
            self.replica.wait_streaming()
            self.replica.resume_replay()


@pytest.fixture(scope="session")
def replica_control() -> ReplicaControl:
    if "REPLICA_PGDATA" not in os.environ:
        pytest.fail("tests/replicas run beside a streaming replica: run them with `make test-replica`")
    return ReplicaControl(Replica.from_environ())


@pytest.fixture
def replica(replica_control, settings) -> Iterator[ReplicaControl]:
    """The replica, replaying and known to no process state left by another test."""
    assert settings.DATABASE_REPLICAS == [REPLICA]
    replica_control.ensure_replaying()
    replicas._statuses.clear()
    replicas._unmarked.clear()
    yield replica_control
    replica_control.ensure_replaying()
    replicas._statuses.clear()
