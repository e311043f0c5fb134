"""Bulk writes for the apps that write many rows at once (a snapshot restore, a batch of memories):
multi-row INSERT, COPY, an INSERT of rows sent as one JSON document, ids drawn from a table's sequence,
and writes whose caller reads nothing back sent with the next statement (`writes_sent_later`).
Each app calls them on its own tables only.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from functools import partial
from typing import Any

import orjson
from django.db import DatabaseError, connection, transaction
from django.db.models import Field, JSONField, Model

GIN_PENDING_LIST_LIMIT = "16MB"
BULK_WORK_MEM = "64MB"


def as_json(value: Any) -> str:
    return orjson.dumps(value).decode()


def record_values(record: dict[str, Any], columns: Iterable[str]) -> list[Any]:
    """A snapshot record's values in the order of `columns`, its metadata encoded for a jsonb column."""
    return [as_json(record[c]) if c == "metadata" else record[c] for c in columns]


def array_literal(values: Iterable[Any]) -> str:
    """PostgreSQL's text form of a one-dimensional array of these values (strings or integers), to pass as
    one parameter cast to the array's type: psycopg adapts a list value by value, some five times slower
    for a batch's thousands of keys."""
    escaped = (str(v).replace("\\", "\\\\").replace('"', '\\"') for v in values)
    return "{" + ",".join(f'"{v}"' for v in escaped) + "}"


def insert_rows(
    table: str,
    columns: tuple[str, ...],
    rows: list[list[Any]],
    *,
    values: str | None = None,
    suffix: str = "",
) -> list[tuple[Any, ...]]:
    """One multi-row INSERT for a batch; `values` is the placeholder list of one row (casts, defaults)."""
    if not rows:
        return []
    row_sql = f"({values or ', '.join(['%s'] * len(columns))})"
    sql = f"INSERT INTO {table} ({', '.join(columns)}) VALUES {', '.join([row_sql] * len(rows))} {suffix}"
    with connection.cursor() as cursor:
        cursor.execute(sql, [value for row in rows for value in row])
        return cursor.fetchall() if "RETURNING" in suffix else []


def copy_rows(table: str, columns: tuple[str, ...], rows: list[list[Any]]) -> None:
    """A batch through COPY: no statement to build or parse, whatever the batch's size."""
    if not rows:
        return
    _send_pending()  # COPY goes past the statement wrappers: what waits goes first
    with connection.cursor() as cursor, cursor.cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


def json_rows(objs: Iterable[Model], fields: Sequence[Field]) -> list[list[Any]]:
    """Each instance's values of `fields`, for `insert_json_rows`.

    The attributes as they are (PostgreSQL converts each JSON value to its column's type), except
    a JSON field's, which is written as its field writes it (its encoder) rather than as orjson would.
    """
    encoders = [
        (f.attname, partial(_json_fragment, encoder=f.encoder) if isinstance(f, JSONField) else None) for f in fields
    ]
    return [
        [getattr(obj, name) if encode is None else encode(getattr(obj, name)) for name, encode in encoders]
        for obj in objs
    ]


def _json_fragment(value: Any, *, encoder: type[json.JSONEncoder] | None) -> orjson.Fragment | None:
    # None is SQL NULL, as the field saves it.
    return None if value is None else orjson.Fragment(json.dumps(value, cls=encoder))


def insert_json_rows(
    table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]], *, suffix: str = ""
) -> list[tuple[Any, ...]]:
    """One INSERT for a batch whose rows travel as a single JSON parameter, inserted in their order.

    Django's backend binds parameters on the client, quoting each value into the statement in
    Python (tens of microseconds a value), and each batch size is a new statement text to split.
    One JSON document is quoted once, whatever the batch's size. Unlike COPY, the insert may
    skip conflicts and return what it wrote (`suffix`: ON CONFLICT, RETURNING). Each value is
    what orjson writes (`json_rows` for model instances); a JSON null arrives as SQL NULL.
    """
    return insert_json_objects(table, columns, [dict(zip(columns, row, strict=True)) for row in rows], suffix=suffix)


def insert_json_objects(
    table: str, columns: Sequence[str], objects: Sequence[dict[str, Any] | orjson.Fragment], *, suffix: str = ""
) -> list[tuple[Any, ...]]:
    """`insert_json_rows` for rows that are already JSON objects of their columns (or their encoded
    `orjson.Fragment`, made where the work costs the writer nothing, as a restore's reading thread does)."""
    if not objects:
        return []
    names = ", ".join(connection.ops.quote_name(c) for c in columns)
    document = orjson.dumps(objects).decode()
    sql = (
        f"INSERT INTO {table} ({names}) SELECT {names} "
        f"FROM json_populate_recordset(NULL::{table}, %s) WITH ORDINALITY ORDER BY ordinality {suffix}"
    )
    if "RETURNING" not in suffix:
        send_later(sql, [document])
        return []
    with connection.cursor() as cursor:
        cursor.execute(sql, [document])
        return cursor.fetchall()


# What `send_later` holds for the connection's next statement inside `writes_sent_later`: each statement,
# and who gets its rows.
_Held = tuple[str, Callable[[list[tuple[Any, ...]]], None] | None]
_pending: ContextVar[list[_Held] | None] = ContextVar("bulk_pending", default=None)


@contextmanager
def writes_sent_later() -> Iterator[None]:
    """Inside the block, a statement whose caller does not wait for it (`send_later`: `insert_json_rows`
    without RETURNING, a batch of vectors) travels with the connection's next statement, in the same round
    trip, instead of alone; what is still held at the block's end is sent then.

    The statements run in the order they were made, in the caller's transaction (use it inside one), so
    what the next statement reads is as it would have been; a held write that fails raises from the
    statement it travels with, and fails the transaction as it would have.
    """
    if _pending.get() is not None:
        yield
        return
    pending: list[_Held] = []
    token = _pending.set(pending)
    try:
        with connection.execute_wrapper(partial(_with_pending, pending)):
            yield
            _send_pending()
    finally:
        _pending.reset(token)


def send_later(
    sql: str, params: Sequence[Any] | None, rows: Callable[[list[tuple[Any, ...]]], None] | None = None
) -> None:
    """Execute a statement whose result nobody waits for: now, or inside `writes_sent_later` with the next
    one. `rows`, when given, is handed the rows the statement returns once it has run (at the latest when
    the block ends)."""
    pending = _pending.get()
    if pending is None:
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            if rows is not None:
                rows(cursor.fetchall())
        return
    pending.append((connection.ops.compose_sql(sql, params), rows))


def _send_pending() -> None:
    pending = _pending.get()
    if pending:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")  # carries them (see _with_pending)


def _with_pending(
    pending: list[_Held], execute: Callable[..., Any], sql: Any, params: Any, many: bool, context: dict[str, Any]
) -> Any:
    if not pending:
        return execute(sql, params, many, context)
    held, readers = ";\n".join(text for text, _ in pending), [rows for _, rows in pending]
    pending.clear()
    cursor = context["cursor"]
    if many or not isinstance(sql, str):
        execute(held, None, False, context)
        _hand_rows(cursor, readers, last=True)
        return execute(sql, params, many, context)
    # The held statements are complete SQL: their % signs must survive the binding of the next one's parameters.
    combined = f"{held.replace('%', '%%') if params is not None else held};\n{sql}"
    result = execute(combined, params, many, context)
    # The caller reads the results of its own statement(s), after those of the held ones.
    _hand_rows(cursor, readers, last=False)
    return result


def _hand_rows(cursor: Any, readers: list[Callable[[list[tuple[Any, ...]]], None] | None], *, last: bool) -> None:
    """Give each held statement's rows to its reader, moving past its result (`last`: no result follows)."""
    for index, rows in enumerate(readers):
        if rows is not None:
            rows(cursor.fetchall())
        if not last or index < len(readers) - 1:
            cursor.nextset()


def next_ids(table: str, count: int) -> list[int]:
    """`count` ids drawn from the table's sequence, for rows written by COPY."""
    if not count:
        return []
    with connection.cursor() as cursor:
        cursor.execute("SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)", [table, count])
        return [row[0] for row in cursor.fetchall()]


def reusable_ids(model: type[Model], ids: list[int]) -> set[int]:
    """Which of `ids` (brought by a snapshot) a restore may keep as they are.

    An id is kept only when no row holds it and the table's sequence has already handed it
    out: the sequence then never hands it out again, and nothing has to move the sequence.
    Moving it (`setval`) would outlast a rolled-back dry run and let a file push it to its
    end, after which no row of any namespace could be written. Any other id is drawn anew.
    """
    if not ids:
        return set()
    table = model._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_get_serial_sequence(%s, 'id')", [table])
        sequence = cursor.fetchone()[0]
        # Reading the sequence's row is not transactional state and takes no lock.
        cursor.execute(f"SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END FROM {sequence}")
        handed_out = cursor.fetchone()[0]
    candidates = [i for i in ids if 0 < i <= handed_out]
    if not candidates:
        return set()
    taken = set(model._default_manager.filter(pk__in=candidates).values_list("pk", flat=True))
    return {i for i in candidates if i not in taken}


def bulk_load_settings() -> None:
    """A bulk load writes many rows into tables with GIN indexes (memory text and search vectors).

    Each GIN index first collects new entries in a pending list and merges it into the
    index when it outgrows `gin_pending_list_limit` (4 MB by default), in memory up to
    `work_mem`; merging fewer, larger lists is faster for a restore's volume. But every
    search of the table, in any namespace, reads the whole pending list until it is merged:
    a full-text search that took 2-5 ms took 25 ms beside a full 64 MB list and 12 ms beside
    16 MB, which costs a restore about 3% against 64 MB (12% at the default). SET LOCAL lasts
    until the end of the transaction, so it is used only when the load's transaction is its own.
    """
    with connection.cursor() as cursor:
        cursor.execute(f"SET LOCAL gin_pending_list_limit = '{GIN_PENDING_LIST_LIMIT}'")
        cursor.execute(f"SET LOCAL work_mem = '{BULK_WORK_MEM}'")


def merge_gin_pending_lists(tables: Iterable[str]) -> None:
    """Leave no large pending list behind: every search would scan it until the next merge."""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT i.indexrelid::regclass::text
            FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
            WHERE a.amname = 'gin' AND i.indrelid = ANY(%s::regclass[])
            ORDER BY 1
            """,
            [sorted(tables)],
        )
        indexes = [row[0] for row in cursor.fetchall()]
    for index in indexes:
        try:
            # Merging needs to own the index; without that right, the next insert merges as usual.
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute("SELECT gin_clean_pending_list(%s::regclass)", [index])
        except DatabaseError:
            pass
