"""API objects declared by their fields, so the dict and the columns an export reads come from one list.

A representation reads each field off a model instance or off a row with the same attribute
names (`values_list(..., named=True)`), and writes it as it is unless a conversion is named for
it. The keys keep the fields' order: a snapshot record is written byte for byte in that order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any


def null_if_blank(value: Any) -> Any:
    """The API writes an empty optional text as null."""
    return value or None


def str_if_set(value: Any) -> str | None:
    """An optional id as a string, or null."""
    return str(value) if value else None


def iso_date(value: Any) -> str | None:
    """An optional date as YYYY-MM-DD, or null."""
    return value.isoformat() if value else None


# The step of a field whose value the caller gives to `of`, not read off the object.
_GIVEN = object()


class Representation:
    """`fields` in order, each read off the object and converted by `convert` where it names one; the
    fields named in `given` are not read but passed to `of` (what the row itself does not hold)."""

    def __init__(
        self, fields: tuple[str, ...], *, convert: Mapping[str, Callable[[Any], Any]], given: tuple[str, ...] = ()
    ) -> None:
        unknown = (set(convert) | set(given)) - set(fields)
        if unknown:
            raise ValueError(f"conversions or given values for fields not represented: {', '.join(sorted(unknown))}")
        self.fields = fields
        # The attributes `of` reads: the columns to select for it.
        self.read = tuple(name for name in fields if name not in given)
        self._steps = tuple((name, _GIVEN if name in given else convert.get(name)) for name in fields)

    def of(self, obj: Any, **given: Any) -> dict[str, Any]:
        # Runs once per exported row: one pass, no per-field lookups beyond the attribute itself.
        return {
            name: getattr(obj, name)
            if convert is None
            else given[name]
            if convert is _GIVEN
            else convert(getattr(obj, name))
            for name, convert in self._steps
        }
