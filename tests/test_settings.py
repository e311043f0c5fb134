from __future__ import annotations

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
