"""The connection settings (settings.DATABASE_SESSION_SETTINGS) for statements that depend on them.

Connected directly, every connection makes them at connect (the `options` startup parameter). A
transaction pooler forwards no startup parameter and may give each transaction another server
connection, so there a statement that depends on them is sent after a `set_config(..., true)` (SET
LOCAL) in the same message: the simple query protocol (Django's client-side binding cursor) runs a
message's statements as one transaction, which the pooler keeps on one server connection and the
settings last for. Still one round trip; nothing outlives the statement.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.conf import settings

SET_LOCAL = "SELECT set_config(name, value, true) FROM unnest(%s::text[], %s::text[]) AS s(name, value)"


def behind_transaction_pooler() -> bool:
    return settings.DATABASE_POOLER == "transaction"


def execute_with_session_settings(cursor: Any, sql: str, params: Sequence[Any]) -> None:
    """Run `sql` with the connection settings, whichever server connection it gets; its rows follow."""
    if not behind_transaction_pooler():
        cursor.execute(sql, params)
        return
    items = settings.DATABASE_SESSION_SETTINGS.items()
    cursor.execute(f"{SET_LOCAL}; {sql}", [[name for name, _ in items], [value for _, value in items], *params])
    cursor.nextset()
