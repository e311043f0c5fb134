"""Opaque keyset cursors, shared by every list (API and console).

A cursor is the sort key of the last row of a page, tagged with the list it
belongs to, as URL-safe base64 JSON. It is opaque to clients but not secret:
a tampered cursor can only point at another position of the caller's own
namespace, because every query still starts from that namespace.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from django.db.models import BooleanField, CharField, DateTimeField, Field, IntegerField, Model, QuerySet, UUIDField
from django.db.models.expressions import RawSQL

from memoryadmin.core.errors import InvalidInput, ServiceError

DEFAULT_LIMIT = 50
MAX_LIMIT = 200
MAX_CURSOR_CHARS = 512


@dataclass
class Page[T]:
    items: list[T]
    next_cursor: str | None
    # The rows every page of the list is drawn from (its filters, not its cursor), for a count of them.
    matching: QuerySet[Any] | None = field(default=None, repr=False, compare=False)


class InvalidCursor(ServiceError, status=400, code="invalid_cursor"): ...


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, uuid.UUID):
        return str(value)
    return value


def asked_tag(name: str, **asked: Any) -> str:
    """A list's tag with what it was asked for (its query, its filters): a cursor of the same list asked for
    other rows is refused as one of another list, not read as a position among rows it never ranked."""
    said = json.dumps(asked, default=str, sort_keys=True, separators=(",", ":"))
    return f"{name}:{hashlib.blake2b(said.encode(), digest_size=6).hexdigest()}"


def encode_cursor(tag: str, values: Sequence[Any]) -> str:
    raw = json.dumps([tag, *(_plain(v) for v in values)], separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_cursor(cursor: str, tag: str, types: Sequence[type]) -> tuple[Any, ...]:
    """Parse a cursor made by `encode_cursor(tag, ...)` whose values have `types`."""
    invalid = InvalidCursor("the cursor is not valid for this list", details={"field": "cursor"})
    if not cursor or len(cursor) > MAX_CURSOR_CHARS:
        raise invalid
    try:
        data = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (binascii.Error, ValueError, UnicodeDecodeError):
        raise invalid from None
    if not isinstance(data, list) or len(data) != len(types) + 1 or data[0] != tag:
        raise invalid
    values: list[Any] = []
    for kind, value in zip(types, data[1:], strict=True):
        try:
            if kind is datetime:
                parsed = datetime.fromisoformat(value)
                if parsed.tzinfo is None:
                    raise ValueError("naive")
                values.append(parsed.astimezone(UTC))
            elif kind is uuid.UUID:
                values.append(uuid.UUID(value))
            elif kind is float:
                if isinstance(value, bool) or not isinstance(value, int | float):
                    raise ValueError("number")
                values.append(float(value))
            elif kind is int:
                if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**63:
                    raise ValueError("int")
                values.append(value)
            elif kind is str:
                if not isinstance(value, str) or "\x00" in value:
                    raise ValueError("str")
                values.append(value)
            else:
                raise TypeError(kind)
        except (TypeError, ValueError, AttributeError, OverflowError):
            raise invalid from None
    return tuple(values)


def clamp_limit(limit: int | None, default: int = DEFAULT_LIMIT) -> int:
    if limit is None:
        return default
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidInput(f"limit must be between 1 and {MAX_LIMIT}", details={"field": "limit"})
    return limit


def rows_after[M: Model](
    qs: QuerySet[M], key: Sequence[str], values: Sequence[Any], *, descending: bool = False
) -> QuerySet[M]:
    """The rows of `qs` after `values` in `key` order (fields of its model): a row comparison, so
    PostgreSQL starts an index scan on `key` right there instead of skipping rows."""
    table = qs.model._meta.db_table
    columns = ", ".join(f'"{table}"."{qs.model._meta.get_field(name).column}"' for name in key)
    marks = ", ".join(["%s"] * len(values))
    # Only the model's own column names are formatted in; every value is a parameter.
    after = f"({columns}) {'<' if descending else '>'} ({marks})"
    return qs.filter(RawSQL(after, list(values), output_field=BooleanField()))  # noqa: S611


def cursor_type(field: Field) -> type:
    """The type a cursor holds for a model field of a list's key (`decode_cursor`)."""
    if field.is_relation:
        return cursor_type(field.target_field)  # type: ignore[attr-defined]
    if isinstance(field, DateTimeField):
        return datetime
    if isinstance(field, UUIDField):
        return uuid.UUID
    if isinstance(field, IntegerField):
        return int
    if isinstance(field, CharField):
        return str
    raise TypeError(f"no cursor type for {field!r}")


def narrowed[M: Model](qs: QuerySet[M], **lookups: Any) -> QuerySet[M]:
    """`qs` filtered by each of `lookups` that is given: a None value is a filter the caller left out."""
    given = {lookup: value for lookup, value in lookups.items() if value is not None}
    return qs.filter(**given) if given else qs


def keyset_page[M: Model](
    qs: QuerySet[M],
    *,
    tag: str,
    key: Sequence[str],
    cursor: str | None,
    limit: int,
    descending: bool = True,
    oldest_first: bool = False,
) -> Page[M]:
    """One page of `qs` in `key` order (fields of its model, unique together), after the cursor's row
    (`rows_after`, the cursor's values read as the fields' types); one more row than the page is read
    to know whether another page follows.

    A list read either way, newest first by default, is read ascending with `oldest_first`, its cursors
    tagged `<tag>-oldest`: a cursor of one order is refused by the other."""
    if oldest_first:
        tag, descending = f"{tag}-oldest", False
    fields = [qs.model._meta.get_field(name) for name in key]
    matching = qs
    if cursor:
        types = [cursor_type(field) for field in fields]
        qs = rows_after(qs, key, decode_cursor(cursor, tag, types), descending=descending)
    rows = list(qs.order_by(*(f"-{name}" if descending else name for name in key))[: limit + 1])
    next_cursor = None
    if len(rows) > limit:
        rows = rows[:limit]
        next_cursor = encode_cursor(tag, [getattr(rows[-1], field.attname) for field in fields])
    return Page(rows, next_cursor, matching)
