"""The scope of a search: the WHERE clause every one of its statements shares, never relaxed."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from memoryadmin.core.errors import InvalidInput
from memoryadmin.memories.models import MemoryStatus, MemoryType
from memoryadmin.tenancy.models import Namespace

STATUS_ANY = "any"


def clean_status(status: str | None, default: str | None) -> str | None:
    if status is None:
        return default
    if status == STATUS_ANY:
        return None
    if status not in MemoryStatus.values:
        raise InvalidInput(
            f"status must be one of {', '.join([*MemoryStatus.values, STATUS_ANY])}", details={"field": "status"}
        )
    return status


def clean_types(memory_types: Sequence[str] | None) -> list[str] | None:
    if memory_types is None:
        return None
    for memory_type in memory_types:
        if memory_type not in MemoryType.values:
            raise InvalidInput(
                f"memory_type must be one of {', '.join(MemoryType.values)}", details={"field": "memory_types"}
            )
    return list(memory_types)


@dataclass(frozen=True)
class TimeFilters:
    """Bounds on when memories were said and when their events happened (lower bound included)."""

    stated_after: datetime | None = None
    stated_before: datetime | None = None
    event_after: date | None = None
    event_before: date | None = None
    created_after: datetime | None = None
    created_before: datetime | None = None


@dataclass(frozen=True)
class Scope:
    """The WHERE clause (alias `m`) with its parameters."""

    sql: str
    params: list[Any]
    namespace_id: int
    user_id: str | None
    # Filters beyond the namespace, the person and the default status: a person's vectors, read
    # without their memories, then bring candidates the scope may refuse.
    narrow: bool = False


def scope_for(
    namespace: Namespace,
    *,
    user_id: str | None,
    session_id: str | None = None,
    agent_id: str | None = None,
    memory_types: list[str] | None = None,
    topics: Sequence[str] | None = None,
    entities: Sequence[str] | None = None,
    status: str | None = MemoryStatus.ACTIVE,
    pinned: bool | None = None,
    times: TimeFilters | None = None,
    as_of: datetime | None = None,
) -> Scope:
    """The scope of these filters. With `as_of`, what was known then: memories said by then, and the
    superseded ones whose replacement was said after it (status `active`, the default, only)."""
    where = ["m.namespace_id = %s"]
    params: list[Any] = [namespace.pk]
    for column, value in (("user_id", user_id), ("session_id", session_id), ("agent_id", agent_id)):
        if value is not None:
            where.append(f"m.{column} = %s")
            params.append(value)
    if memory_types:
        where.append("m.memory_type = ANY(%s)")
        params.append(memory_types)
    if topics:
        where.append("m.topics && %s::varchar(100)[]")
        params.append(list(topics))
    if entities:
        where.append("m.entities && %s::varchar(200)[]")
        params.append(list(entities))
    basic = 1 + (user_id is not None)
    if as_of is not None and status == MemoryStatus.ACTIVE:
        # A scalar subquery: a lookup by key for each superseded row, never a hash of the table's rows.
        where.append(
            "(m.status = 'active' OR (m.status = 'superseded' AND coalesce("
            "(SELECT s.stated_at FROM memories_memory s WHERE s.id = m.superseded_by), 'infinity') > %s))"
        )
        params.append(as_of)
    elif status is not None:
        where.append("m.status = %s")
        params.append(status)
        basic += 1
    if as_of is not None:
        where.append("m.stated_at <= %s")
        params.append(as_of)
    if pinned is not None:
        where.append(("" if pinned else "NOT ") + "EXISTS (SELECT 1 FROM memories_pin p WHERE p.memory_id = m.id)")
    times = times or TimeFilters()
    for column, operator, value in (
        ("stated_at", ">=", times.stated_after),
        ("stated_at", "<", times.stated_before),
        ("event_date", ">=", times.event_after),
        ("event_date", "<", times.event_before),
        ("created_at", ">=", times.created_after),
        ("created_at", "<", times.created_before),
    ):
        if value is not None:
            where.append(f"m.{column} {operator} %s")
            params.append(value)
    narrow = len(where) > basic or status not in (None, MemoryStatus.ACTIVE)
    return Scope(" AND ".join(where), params, namespace.pk, user_id, narrow)
