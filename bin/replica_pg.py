"""A streaming replica of the PostgreSQL server DATABASE_URL names, in a temporary folder on a free port.

    python bin/replica_pg.py run -- COMMAND...

copies the primary with `pg_basebackup -R` (with a replication slot of its own, so the primary keeps
the WAL the replica has not received while it is stopped), starts the copy as a hot standby on a free
loopback port, runs COMMAND with `DATABASE_REPLICA_URLS` pointing at the same database on it and
`REPLICA_PGDATA` / `REPLICA_PORT` / `REPLICA_BINDIR` naming it, and stops and removes it (and drops
its slot) when the command ends, with the command's exit code. `make test-replica` and
bench/replica_probe.py run this way; `Replica.from_environ()` gives a command the replica to stop,
start, pause and resume.

The primary must allow replication: `wal_level` replica or logical and `max_wal_senders` above 0
(PostgreSQL's defaults). When its pg_hba.conf has no replication entry for 127.0.0.1 and the file is
on this machine and writable, one line (`host replication all 127.0.0.1/32 trust`) is added and the
configuration reloaded; otherwise it stops with a message naming what to add. The copy is of the
whole cluster, so it takes as long as copying every database on the server.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

import psycopg

SLOT_PREFIX = "memoryadmin_replica_"
HBA_LINE = "host replication all 127.0.0.1/32 trust"


@dataclass
class Primary:
    host: str
    port: int
    user: str
    database: str

    @classmethod
    def from_url(cls, url: str) -> Primary:
        parsed = urlparse(url)
        return cls(
            host=unquote(parsed.hostname or "127.0.0.1"),
            port=parsed.port or 5432,
            user=unquote(parsed.username or "postgres"),
            database=unquote(parsed.path.lstrip("/")) or "postgres",
        )

    def connect(self) -> psycopg.Connection:
        return psycopg.connect(host=self.host, port=self.port, user=self.user, dbname="postgres", autocommit=True)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _as_postgres(argv: list[str]) -> list[str]:
    """PostgreSQL's programs refuse to run as root: as root, they run as the `postgres` user."""
    return ["runuser", "-u", "postgres", "--", *argv] if os.geteuid() == 0 else argv


def _owner_is_postgres(path: Path) -> None:
    if os.geteuid() == 0:
        entry = pwd.getpwnam("postgres")
        os.chown(path, entry.pw_uid, entry.pw_gid)


@dataclass
class Replica:
    data: Path
    port: int
    bindir: Path
    slot: str = ""

    @classmethod
    def from_environ(cls) -> Replica:
        """The replica `run` started for this process."""
        return cls(
            Path(os.environ["REPLICA_PGDATA"]), int(os.environ["REPLICA_PORT"]), Path(os.environ["REPLICA_BINDIR"])
        )

    def url(self, database: str, user: str = "postgres") -> str:
        return f"postgres://{user}@127.0.0.1:{self.port}/{database}"

    def connect(self, database: str = "postgres") -> psycopg.Connection:
        return psycopg.connect(host="127.0.0.1", port=self.port, user="postgres", dbname=database, autocommit=True)

    def _pg_ctl(self, *args: str) -> None:
        subprocess.run(
            _as_postgres([str(self.bindir / "pg_ctl"), "-D", str(self.data), *args]),
            check=True,
            stdout=subprocess.DEVNULL,
            timeout=120,
        )

    def start(self, timeout: float = 60.0) -> None:
        options = (
            f"-p {self.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={self.data.parent} "
            "-c hot_standby=on -c hot_standby_feedback=on -c shared_buffers=32MB -c logging_collector=off -c ssl=off"
        )
        log = self.data.parent / "replica.log"
        try:
            self._pg_ctl("-o", options, "-l", str(log), "-w", "-t", "60", "start")
        except subprocess.CalledProcessError:
            raise RuntimeError(f"the replica did not start:\n{log.read_text(errors='replace')[-3000:]}") from None
        self.wait_streaming(timeout)

    def stop(self, mode: str = "fast") -> None:
        self._pg_ctl("-m", mode, "-w", "stop")

    def running(self) -> bool:
        return (self.data / "postmaster.pid").exists()

    def wait_streaming(self, timeout: float = 60.0) -> None:
        """Until the replica accepts connections and its WAL receiver streams from the primary."""
        deadline = time.monotonic() + timeout
        last = "not started"
        while time.monotonic() < deadline:
            try:
                with self.connect() as connection:
                    row = connection.execute("SELECT status FROM pg_stat_wal_receiver").fetchone()
                    if row is not None and row[0] == "streaming":
                        return
                    last = f"WAL receiver {row[0] if row else 'absent'}"
            except psycopg.OperationalError as exc:
                last = str(exc).strip()
            time.sleep(0.1)
        raise RuntimeError(f"the replica on port {self.port} is not streaming after {timeout} s ({last})")

    def configure(self, **values: str) -> None:
        """Set these (reloadable) settings, such as recovery_min_apply_delay, and reload."""
        conf = self.data / "postgresql.conf"
        conf.write_text(conf.read_text() + "".join(f"{name} = '{value}'\n" for name, value in values.items()))
        self._pg_ctl("reload")

    def pause_replay(self) -> None:
        with self.connect() as connection:
            connection.execute("SELECT pg_wal_replay_pause()")

    def resume_replay(self) -> None:
        with self.connect() as connection:
            connection.execute("SELECT pg_wal_replay_resume()")

    def replay_lsn(self) -> int:
        with self.connect() as connection:
            return int(connection.execute("SELECT (pg_last_wal_replay_lsn() - '0/0')::bigint").fetchone()[0])


def _bindir(primary: Primary) -> Path:
    with primary.connect() as connection:
        version = int(connection.execute("SHOW server_version_num").fetchone()[0])
    debian = Path(f"/usr/lib/postgresql/{version // 10000}/bin")
    if (debian / "pg_basebackup").exists():
        return debian
    found = shutil.which("pg_basebackup")
    if found is None:
        raise SystemExit(f"pg_basebackup for PostgreSQL {version // 10000} was not found (install its server package)")
    return Path(found).parent


def _check_primary(primary: Primary) -> None:
    with primary.connect() as connection:
        wal_level = connection.execute("SHOW wal_level").fetchone()[0]
        senders = int(connection.execute("SHOW max_wal_senders").fetchone()[0])
        if wal_level not in ("replica", "logical") or senders < 2:
            raise SystemExit(
                f"the primary cannot stream to a replica (wal_level={wal_level}, max_wal_senders={senders}): "
                "set wal_level = replica and max_wal_senders >= 2, then restart it"
            )
        # Slots of earlier runs whose process is gone would keep WAL on the primary for ever.
        for (slot,) in connection.execute(
            "SELECT slot_name FROM pg_replication_slots WHERE slot_name LIKE %s AND NOT active", [SLOT_PREFIX + "%"]
        ).fetchall():
            owner = slot.removeprefix(SLOT_PREFIX)
            if owner.isdigit() and not Path(f"/proc/{owner}").exists():
                connection.execute("SELECT pg_drop_replication_slot(%s)", [slot])


# A hot standby refuses to start with any of these below the primary's.
STANDBY_LIMITS = (
    "max_connections",
    "max_worker_processes",
    "max_wal_senders",
    "max_prepared_transactions",
    "max_locks_per_transaction",
)


def _standby_limits(primary: Primary) -> dict[str, str]:
    with primary.connect() as connection:
        return {name: connection.execute(f"SHOW {name}").fetchone()[0] for name in STANDBY_LIMITS}


def _allow_replication(primary: Primary, error: str) -> bool:
    """Add the replication line to a local, writable pg_hba.conf; whether it was added."""
    if "pg_hba.conf" not in error or primary.host not in ("127.0.0.1", "localhost"):
        return False
    with primary.connect() as connection:
        hba = Path(connection.execute("SHOW hba_file").fetchone()[0])
        if not os.access(hba, os.W_OK):
            return False
        text = hba.read_text()
        if HBA_LINE not in text:
            hba.write_text(
                text.rstrip("\n") + f"\n# Streaming replicas on this machine (bin/replica_pg.py).\n{HBA_LINE}\n"
            )
        connection.execute("SELECT pg_reload_conf()")
    print(f"added `{HBA_LINE}` to {hba} and reloaded the primary", file=sys.stderr, flush=True)
    time.sleep(0.5)
    return True


def _base_backup(primary: Primary, bindir: Path, data: Path, slot: str) -> None:
    argv = _as_postgres(
        [
            str(bindir / "pg_basebackup"),
            "-h",
            primary.host,
            "-p",
            str(primary.port),
            "-U",
            primary.user,
            "-D",
            str(data),
            "-R",
            "-X",
            "stream",
            "-c",
            "fast",
            "-C",
            "-S",
            slot,
            "--no-password",
        ]
    )
    for attempt in range(2):
        completed = subprocess.run(argv, capture_output=True, text=True, timeout=900, check=False)
        if completed.returncode == 0:
            return
        if attempt == 0 and _allow_replication(primary, completed.stderr):
            shutil.rmtree(data, ignore_errors=True)
            continue
        raise SystemExit(
            f"pg_basebackup failed:\n{completed.stderr.strip()}\n"
            f"(the primary's pg_hba.conf needs a line such as `{HBA_LINE}`)"
        )


def _drop_slot(primary: Primary, slot: str) -> None:
    deadline = time.monotonic() + 30
    with primary.connect() as connection:
        while time.monotonic() < deadline:
            row = connection.execute("SELECT active FROM pg_replication_slots WHERE slot_name = %s", [slot]).fetchone()
            if row is None:
                return
            if not row[0]:
                connection.execute("SELECT pg_drop_replication_slot(%s)", [slot])
                return
            time.sleep(0.1)


@contextlib.contextmanager
def replica(primary_url: str) -> Iterator[Replica]:
    """A running streaming replica of the primary at `primary_url`; stopped, removed and its slot dropped after."""
    primary = Primary.from_url(primary_url)
    _check_primary(primary)
    limits = _standby_limits(primary)
    bindir = _bindir(primary)
    folder = Path(tempfile.mkdtemp(prefix="memoryadmin-replica-"))
    _owner_is_postgres(folder)
    data = folder / "data"
    slot = f"{SLOT_PREFIX}{os.getpid()}"
    made = Replica(data, _free_port(), bindir, slot)
    try:
        _base_backup(primary, bindir, data, slot)
        # A Debian cluster keeps its configuration outside the data folder: the copy gets its own.
        (data / "postgresql.conf").write_text(
            "# A streaming replica made by bin/replica_pg.py\n" + "".join(f"{k} = {v}\n" for k, v in limits.items())
        )
        (data / "pg_hba.conf").write_text("local all all trust\nhost all all 127.0.0.1/32 trust\n")
        (data / "pg_ident.conf").write_text("")
        for name in ("postgresql.conf", "pg_hba.conf", "pg_ident.conf"):
            _owner_is_postgres(data / name)
        made.start()
        yield made
    finally:
        if made.running():
            with contextlib.suppress(subprocess.SubprocessError):
                made.stop("immediate")
        with contextlib.suppress(psycopg.Error):
            _drop_slot(primary, slot)
        shutil.rmtree(folder, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="action", required=True)
    run = sub.add_parser("run", help="run a command with a streaming replica")
    run.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("a command to run is required")
    primary_url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/memoryadmin")
    started = time.monotonic()
    with replica(primary_url) as made:
        database = Primary.from_url(primary_url).database
        print(
            f"streaming replica on port {made.port} ({made.data}), ready in {time.monotonic() - started:.1f} s",
            flush=True,
        )
        env = {
            **os.environ,
            "DATABASE_REPLICA_URLS": made.url(database),
            "REPLICA_PGDATA": str(made.data),
            "REPLICA_PORT": str(made.port),
            "REPLICA_BINDIR": str(made.bindir),
        }
        child = subprocess.Popen(command, env=env)
        try:
            return child.wait()
        except KeyboardInterrupt:
            child.send_signal(signal.SIGINT)
            return child.wait()


if __name__ == "__main__":
    sys.exit(main())
