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


class Representation:
    def __init__(self, fields: tuple[str, ...], *, convert: Mapping[str, Callable[[Any], Any]]) -> None:
        unknown = set(convert) - set(fields)
        if unknown:
            raise ValueError(f"conversions for fields not represented: {', '.join(sorted(unknown))}")
        self.fields = fields
        self._steps = tuple((name, convert.get(name)) for name in fields)

    def of(self, obj: Any) -> dict[str, Any]:
        # Runs once per exported row: one pass, no per-field lookups beyond the attribute itself.
        return {
            name: getattr(obj, name) if convert is None else convert(getattr(obj, name))
            for name, convert in self._steps
        }
