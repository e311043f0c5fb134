from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_check(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "SECRET_KEY"}} | env
    return subprocess.run(
        [sys.executable, "manage.py", "check", *args],
        cwd=ROOT,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_check_deploy_passes_with_production_like_settings() -> None:
    result = run_check(
        {"DEBUG": "false", "SECRET_KEY": "k" * 60 + "-Zq8!x", "ALLOWED_HOSTS": "memory.example.com"},
        "--deploy",
        "--fail-level",
        "ERROR",
    )
    assert result.returncode == 0, result.stderr


def test_missing_secret_key_without_debug_fails_loudly() -> None:
    result = run_check({"DEBUG": "false"})
    assert result.returncode != 0
    assert "SECRET_KEY is required" in result.stderr


def test_a_bad_value_names_the_variable() -> None:
    result = run_check({"EXTRACTION_DEBOUNCE_SECONDS": "soon"})
    assert result.returncode != 0
    assert "EXTRACTION_DEBOUNCE_SECONDS must be a number" in result.stderr


def test_a_public_base_url_without_its_scheme_fails_loudly() -> None:
    result = run_check({"PUBLIC_BASE_URL": "memory.example.com"})
    assert result.returncode != 0
    assert "PUBLIC_BASE_URL must start with https:// or http://" in result.stderr


def test_an_unknown_pooler_mode_fails_loudly() -> None:
    result = run_check({"DATABASE_POOLER": "session"})
    assert result.returncode != 0
    assert "DATABASE_POOLER must be none or transaction" in result.stderr


def test_database_sessions_run_without_jit(db) -> None:
    """Connected directly, every statement; behind a transaction pooler, those sent with the settings."""
    from django.db import connection

    from memoryadmin.core.session_settings import execute_with_session_settings

    with connection.cursor() as cursor:
        execute_with_session_settings(cursor, "SHOW jit", [])
        assert cursor.fetchone()[0] == "off"


def test_a_bad_replica_url_names_the_variable() -> None:
    result = run_check({"DATABASE_REPLICA_URLS": "postgres://postgres@127.0.0.1/a,mysql://root@127.0.0.1/b"})
    assert result.returncode != 0
    assert "DATABASE_REPLICA_URLS must point at PostgreSQL" in result.stderr


def test_read_your_writes_must_last_as_long_as_the_lag_allowed() -> None:
    result = run_check(
        {
            "DATABASE_REPLICA_URLS": "postgres://postgres@127.0.0.1:5433/a",
            "DATABASE_REPLICA_MAX_LAG_SECONDS": "20",
            "DATABASE_REPLICA_READ_YOUR_WRITES_SECONDS": "5",
        }
    )
    assert result.returncode != 0
    assert "must be at least DATABASE_REPLICA_MAX_LAG_SECONDS" in result.stderr


def test_each_replica_url_is_an_alias_with_the_primarys_options_and_no_test_database() -> None:
    code = (
        "import json; from django.conf import settings; d = settings.DATABASES; "
        "print(json.dumps([settings.DATABASE_REPLICAS, d['replica2']['PORT'], d['replica2']['OPTIONS'] == "
        "d['default']['OPTIONS'], d['replica1']['TEST'], settings.DATABASE_ROUTERS, settings.MIDDLEWARE[0]]))"
    )
    env = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "SECRET_KEY"}} | {
        "DATABASE_REPLICA_URLS": "postgres://postgres@127.0.0.1:5433/a, postgres://postgres@127.0.0.1:5434/a"
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    aliases, port, same_options, test, routers, first_middleware = json.loads(result.stdout.strip().splitlines()[-1])
    assert aliases == ["replica1", "replica2"] and port == 5434 and same_options
    assert test["MIRROR"] == "default"
    assert routers == ["memoryadmin.core.replicas.ReplicaRouter"]
    assert first_middleware == "memoryadmin.core.replicas.ReadYourWritesMiddleware"


def test_without_replica_urls_every_read_is_on_the_primary_as_before() -> None:
    code = (
        "import json; from django.conf import settings; print(json.dumps([list(settings.DATABASES), "
        "settings.DATABASE_ROUTERS, [m for m in settings.MIDDLEWARE if 'replicas' in m]]))"
    )
    env = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "SECRET_KEY", "DATABASE_REPLICA_URLS"}}
    argv = [sys.executable, "manage.py", "shell", "-c", code]
    result = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1]) == [["default"], [], []]
