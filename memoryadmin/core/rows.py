"""Model instances from rows of hand-written SQL.

A few hot statements (the API-key lookup, an append, a search) are written by hand
because compiling them through the ORM cost more than running them. Their rows become
model instances here: what a queryset does per row, without its per-query setup.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import connection
from django.db.models import Field, Model


class RowLoader[M: Model]:
    """Builds `model` instances from rows that hold the values of `fields`, in that order."""

    def __init__(self, model: type[M], fields: Sequence[Field]) -> None:
        self.model = model
        self.fields = list(fields)
        self.width = len(self.fields)
        self.attnames = [field.attname for field in self.fields]
        # Only fields that convert what the database returns (JSON, for one) are visited per row.
        self.converters = [
            (index, field.get_db_converters(connection))
            for index, field in enumerate(self.fields)
            if field.get_db_converters(connection)
        ]

    def columns(self, alias: str) -> list[str]:
        return [f"{alias}.{field.column}" for field in self.fields]

    def load(self, values: Sequence[Any]) -> M:
        values = list(values)
        for index, converters in self.converters:
            value = values[index]
            if value is not None:
                for converter in converters:
                    value = converter(value, None, connection)
                values[index] = value
        return self.model.from_db(connection.alias, self.attnames, values)
