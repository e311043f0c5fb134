from __future__ import annotations

from typing import Any

import psycopg
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from psycopg import sql


class Command(BaseCommand):
    help = "Create the configured PostgreSQL database when it does not exist yet."
    # System checks would connect to the very database that may not exist yet.
    requires_system_checks: list[str] = []

    def handle(self, *args: Any, **options: Any) -> None:
        db = settings.DATABASES["default"]
        params = {
            "host": db.get("HOST") or "127.0.0.1",
            "port": db.get("PORT") or 5432,
            "user": db.get("USER") or "postgres",
            "password": db.get("PASSWORD") or None,
            "dbname": "postgres",
            "connect_timeout": 5,
        }
        try:
            with psycopg.connect(**params, autocommit=True) as conn:
                exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [db["NAME"]]).fetchone()
                if exists:
                    self.stdout.write(f"Database {db['NAME']} exists.")
                    return
                conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(db["NAME"])))
        except psycopg.OperationalError as exc:
            raise CommandError(f"cannot reach PostgreSQL at {params['host']}:{params['port']}: {exc}") from None
        self.stdout.write(f"Created database {db['NAME']}.")
