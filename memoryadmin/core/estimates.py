"""Row counts that never count a large table, and per-day tallies of a range.

A count stops at a cap, and beyond it the planner's own estimate stands in
(EXPLAIN reads statistics, not rows). Each app's queries build the querysets;
these functions only decide how far to count them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from django.db.models import Count, QuerySet
from django.db.models.functions import TruncDate

from memoryadmin.core.replicas import read_connection

# Up to this many rows a count is exact (an index-only scan of a few dozen pages).
EXACT_UP_TO = 10_000


@dataclass(frozen=True)
class Estimate:
    """A row count that is exact when small and the planner's estimate when large."""

    value: int
    exact: bool


def planner_rows(queryset: QuerySet[Any]) -> int:
    """How many rows PostgreSQL expects the queryset to return, from its statistics."""
    sql, params = queryset.order_by().values("pk").query.sql_with_params()
    with read_connection().cursor() as cursor:
        cursor.execute("EXPLAIN (FORMAT JSON) " + sql, params)
        plan = cursor.fetchone()[0]
    if isinstance(plan, str):
        plan = json.loads(plan)
    return int(plan[0]["Plan"]["Plan Rows"])


def estimate(queryset: QuerySet[Any], *, exact_up_to: int = EXACT_UP_TO) -> Estimate:
    # Counting at most exact_up_to + 1 rows is an index-only scan of a few pages.
    seen = queryset.order_by().values("pk")[: exact_up_to + 1].count()
    if seen <= exact_up_to:
        return Estimate(seen, True)
    return Estimate(max(planner_rows(queryset), exact_up_to + 1), False)


def per_day(queryset: QuerySet[Any], column: str, since: datetime) -> dict[date, int]:
    """How many rows of `queryset` fall on each day from `since`, by `column` (a range scan of its index)."""
    rows = (
        queryset.filter(**{f"{column}__gte": since})
        .annotate(day=TruncDate(column))
        .order_by()
        .values("day")
        .annotate(n=Count("pk"))
        .values_list("day", "n")
    )
    return dict(rows)
