from __future__ import annotations

from django.db import connection

from memoryadmin.core.redis_client import get_redis


def check_database() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL statement_timeout = 2000")
            cursor.execute("SELECT 1")
            return cursor.fetchone() == (1,)
    except Exception:
        connection.close_if_unusable_or_obsolete()
        return False


def check_redis() -> bool:
    try:
        return bool(get_redis().ping())
    except Exception:
        return False
