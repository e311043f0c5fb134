"""A queryset's rows, streamed without holding them all: the one way every export reads.

Connected directly, Django's `iterator()` reads them through a server-side cursor. Behind a
transaction pooler server-side cursors are off (settings.DATABASE_POOLER; a cursor Django holds
open between transactions would be on a server connection the next transaction may not get), and
`iterator()` would then fetch the whole result at once. There the rows come in keyset batches:
the queryset's own order is its key, so it must be ascending plain columns of its model that no
two rows share (an id; a session and a sequence number), which an index serves.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.db import connections
from django.db.models import QuerySet

from memoryadmin.core.pagination import rows_after


def server_side_cursors(qs: QuerySet[Any]) -> bool:
    return not connections[qs.db].settings_dict.get("DISABLE_SERVER_SIDE_CURSORS")


def _key_of(row: Any, names: tuple[str, ...]) -> tuple[Any, ...]:
    if isinstance(row, dict):
        return tuple(row[name] for name in names)
    return tuple(getattr(row, name) for name in names)


def rows_streamed(qs: QuerySet[Any], batch: int) -> Iterator[Any]:
    """The rows of `qs` in its order, at most about `batch` in memory at a time."""
    if server_side_cursors(qs):
        yield from qs.iterator(chunk_size=batch)
        return
    names = tuple(qs.query.order_by)
    if not names or any(not isinstance(name, str) or name.startswith(("-", "?")) for name in names):
        raise ValueError(f"a keyset stream needs an ascending order by columns, got {names!r}")
    after: tuple[Any, ...] | None = None
    while True:
        page = qs if after is None else rows_after(qs, names, after)
        rows = list(page[:batch])
        yield from rows
        if len(rows) < batch:
            return
        after = _key_of(rows[-1], names)
