"""What the database server offers beyond core PostgreSQL: asked once per database, then remembered.

Search uses pgvector (`vector`, HNSW) and RUM (`rum`, ranked full text from the index)
when the database has them, and works without either (see docs/search.md).
"""

from __future__ import annotations

from typing import Any

_known: dict[tuple[str, str], bool] = {}


def _key(connection: Any, what: str) -> tuple[str, str]:
    params = connection.settings_dict
    return (f"{params.get('HOST')}:{params.get('PORT')}/{params.get('NAME')}", what)


def _found(connection: Any, what: str, sql: str, params: list[Any]) -> bool:
    """Whether `sql` finds a row in this database: asked the first time, then remembered as `what`."""
    key = _key(connection, what)
    if key not in _known:
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            _known[key] = cursor.fetchone() is not None
    return _known[key]


def server_has_extension(connection: Any, name: str) -> bool:
    """Whether the extension is installed in this database (CREATE EXTENSION was run)."""
    return _found(connection, f"extension:{name}", "SELECT 1 FROM pg_extension WHERE extname = %s", [name])


def index_exists(connection: Any, name: str) -> bool:
    return _found(connection, f"index:{name}", "SELECT 1 FROM pg_class WHERE relname = %s AND relkind = 'i'", [name])


def forget_capabilities() -> None:
    """Ask again next time (after a migration adds an extension or an index)."""
    _known.clear()
