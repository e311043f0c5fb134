"""What the generator and the runner share: the bench environment and the data-set manifest."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql

ROOT = Path(__file__).resolve().parent.parent
# The code that is served and measured: the checkout itself, or an export of a commit
# (so work in progress in the checkout never ends up in a figure).
CODE_DIR = [ROOT]
DATA_DIR = ROOT / "bench" / "data"
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/memoryadmin_bench"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/11"
# Fingerprints are HMACs under a key derived from SECRET_KEY: the generator and the
# served app must share it, or generated tombstones and duplicates would not match.
BENCH_SECRET_KEY = "bench-only-secret-key-0f9c2d7e4b1a8c3d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b"


def bench_environ(database_url: str, redis_url: str) -> dict[str, str]:
    """The environment of a production-like process pointed at the bench database."""
    env = dict(os.environ)
    env.update(
        {
            "DATABASE_URL": database_url,
            "REDIS_URL": redis_url,
            "DEBUG": "false",
            "SECRET_KEY": BENCH_SECRET_KEY,
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            # Plain HTTP on the loopback: in production TLS ends at a proxy in front.
            "SECURE_SSL_REDIRECT": "false",
            "SECURE_HSTS_SECONDS": "0",
            "LOG_LEVEL": "WARNING",
            "API_RATE_LIMIT_PER_MINUTE": "100000000",
            "PYTHONPATH": str(CODE_DIR[0]),
        }
    )
    env.pop("TOMBSTONE_KEY", None)
    return env


def django_setup(database_url: str, redis_url: str) -> None:
    """Configure Django in this process exactly as the served app is configured."""
    os.environ.update({k: v for k, v in bench_environ(database_url, redis_url).items() if k not in ("PYTHONPATH",)})
    os.environ.pop("TOMBSTONE_KEY", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryadmin.settings")
    sys.path.insert(0, str(CODE_DIR[0]))
    import django

    django.setup()


def use_code(ref: str) -> str:
    """Serve `ref` ("worktree", or a commit such as HEAD) and return what it resolved to."""
    if ref == "worktree":
        CODE_DIR[0] = ROOT
        return "worktree"
    commit = subprocess.run(
        ["git", "rev-parse", "--short", ref], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    target = ROOT / "var" / "bench" / f"code-{commit}"
    if not (target / "manage.py").exists():
        target.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "archive", "--format=tar", commit], cwd=ROOT, capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True)
    CODE_DIR[0] = target
    return commit


def database_name(database_url: str) -> str:
    return psycopg.conninfo.conninfo_to_dict(database_url)["dbname"]


def admin_conninfo(database_url: str) -> str:
    params = psycopg.conninfo.conninfo_to_dict(database_url)
    params["dbname"] = "postgres"
    return psycopg.conninfo.make_conninfo(**params)


def database_exists(database_url: str) -> bool:
    with psycopg.connect(admin_conninfo(database_url), autocommit=True) as conn:
        row = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [database_name(database_url)]).fetchone()
        return row is not None


def database_recreate(database_url: str) -> None:
    name = database_name(database_url)
    if not name.startswith("memoryadmin_bench"):
        raise SystemExit(f"refusing to drop {name!r}: bench databases are named memoryadmin_bench*")
    with psycopg.connect(admin_conninfo(database_url), autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def manifest_path(database_url: str) -> Path:
    return DATA_DIR / f"{database_name(database_url)}.json"


def manifest_write(database_url: str, manifest: dict[str, Any]) -> Path:
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    path = manifest_path(database_url)
    path.write_text(json.dumps(manifest, indent=2, sort_keys=True))
    return path


def manifest_read(database_url: str) -> dict[str, Any]:
    path = manifest_path(database_url)
    if not path.exists():
        raise SystemExit(f"no data set manifest at {path}: run bench/generate.py --database-url {database_url} first")
    return json.loads(path.read_text())
