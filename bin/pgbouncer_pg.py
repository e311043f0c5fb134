"""PgBouncer in transaction mode in front of a PostgreSQL server (Debian's `pgbouncer`).

    python bin/pgbouncer_pg.py run [--upstream HOST:PORT] [--database NAME] -- COMMAND...

starts `pgbouncer` on a free loopback port, from a configuration in a temporary folder
(`pool_mode = transaction`, trust authentication, every database name routed to the upstream
server, which defaults to 127.0.0.1:5432), runs COMMAND with `DATABASE_URL` pointing at the
pooler (the database of the current DATABASE_URL, or --database) and `DATABASE_POOLER=transaction`,
and stops the pooler when the command ends, with the command's exit code. `make test-pgbouncer`
runs the API, governance and extraction tests this way; bench/ starts it with `pooler()`.

pytest-django creates its test databases through the pooler (any name is routed), but its drop at
the end would meet the pooler's idle server connections to them: the tests run with `--reuse-db`,
and the test databases of the database (`test_<name>`, `test_<name>_gw0`, ...) are dropped on the
upstream server before the pooler starts and after it stops.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

READY_SECONDS = 15.0
STOP_SECONDS = 10.0
CONFIG = """\
[databases]
* = host={host} port={port}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {listen}
unix_socket_dir =
auth_type = trust
auth_file = {folder}/users.txt
admin_users = {user}
stats_users = {user}
pool_mode = transaction
max_client_conn = 1000
default_pool_size = {pool_size}
server_idle_timeout = 30
{run_as}
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _upstream(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    return host or "127.0.0.1", int(port or 5432)


def drop_test_databases(host: str, port: int, user: str, database: str) -> list[str]:
    """Drop the test databases of `database` (pytest-django's names) on the server itself."""
    import psycopg

    with psycopg.connect(host=host, port=port, user=user, dbname="postgres", autocommit=True) as connection:
        names = [
            name
            for (name,) in connection.execute("SELECT datname FROM pg_database").fetchall()
            if name == f"test_{database}" or name.startswith(f"test_{database}_gw")
        ]
        for name in names:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    return names


def _wait_ready(port: int, process: subprocess.Popen[bytes], log: Path, user: str) -> None:
    import psycopg

    deadline = time.monotonic() + READY_SECONDS
    while True:
        if process.poll() is not None:
            raise SystemExit(f"pgbouncer exited with {process.returncode}:\n{log.read_text()}")
        try:
            with psycopg.connect(host="127.0.0.1", port=port, user=user, dbname="postgres", connect_timeout=2) as conn:
                conn.execute("SELECT 1")
            return
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise SystemExit(f"pgbouncer did not answer within {READY_SECONDS:.0f} s:\n{log.read_text()}") from None
            time.sleep(0.1)


@contextlib.contextmanager
def pooler(
    upstream: tuple[str, int] = ("127.0.0.1", 5432), user: str = "postgres", pool_size: int = 20
) -> Iterator[int]:
    """A running PgBouncer in transaction mode in front of `upstream`; yields the port it listens on."""
    binary = os.environ.get("PGBOUNCER") or shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"
    if not Path(binary).exists():
        raise SystemExit("pgbouncer is not installed (Debian: apt-get install pgbouncer)")
    folder = Path(tempfile.mkdtemp(prefix="memoryadmin-pgbouncer-"))
    port = free_port()
    # PgBouncer refuses to run as root; as root it is told to become the postgres user, who must
    # be able to read its configuration.
    as_root = os.geteuid() == 0
    folder.chmod(0o755)
    (folder / "users.txt").write_text(f'"{user}" ""\n')
    (folder / "pgbouncer.ini").write_text(
        CONFIG.format(
            host=upstream[0],
            port=upstream[1],
            listen=port,
            folder=folder,
            user=user,
            pool_size=pool_size,
            run_as="user = postgres" if as_root else "",
        )
    )
    for path in folder.iterdir():
        path.chmod(0o644)
    log = folder / "pgbouncer.log"
    with log.open("wb") as output:
        process = subprocess.Popen([binary, str(folder / "pgbouncer.ini")], stdout=output, stderr=subprocess.STDOUT)
    try:
        _wait_ready(port, process, log, user)
        yield port
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(STOP_SECONDS)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        shutil.rmtree(folder, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="action", required=True)
    run = sub.add_parser("run", help="run a command through the pooler")
    run.add_argument("--upstream", default="127.0.0.1:5432", help="the PostgreSQL server (default 127.0.0.1:5432)")
    run.add_argument("--database", help="the database (default: the current DATABASE_URL's, else memoryadmin)")
    run.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("a command to run is required")
    current = urlsplit(os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/memoryadmin"))
    database = args.database or current.path.lstrip("/") or "memoryadmin"
    user = current.username or "postgres"
    host, port = _upstream(args.upstream)
    drop_test_databases(host, port, user, database)
    try:
        with pooler((host, port), user) as listen:
            url = f"postgres://{user}@127.0.0.1:{listen}/{database}"
            print(f"PgBouncer (transaction pooling) at {url}, in front of {host}:{port}", flush=True)
            env = {**os.environ, "DATABASE_URL": url, "DATABASE_POOLER": "transaction"}
            return subprocess.run(command, env=env, check=False).returncode
    finally:
        drop_test_databases(host, port, user, database)


if __name__ == "__main__":
    sys.exit(main())
