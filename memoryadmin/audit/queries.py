"""Reads of the audit trail shared by the console's log and its CSV export."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import connection
from django.db.models import QuerySet

from memoryadmin.audit.models import AuditEvent


@dataclass(frozen=True)
class AuditFilter:
    """Which events a log page or an export shows; None matches anything."""

    namespace_id: int | None = None
    # The namespaces an operator is limited to; None for every namespace.
    namespace_ids: frozenset[int] | None = None
    # "operator:olivia" names the type too; a bare name matches any type.
    actor: str | None = None
    action: str | None = None
    target_type: str | None = None
    target_id: str | None = None

    def events(self) -> QuerySet[AuditEvent]:
        qs = AuditEvent.objects.all()
        if self.namespace_ids is not None:
            qs = qs.filter(namespace_id__in=self.namespace_ids)
        if self.namespace_id is not None:
            qs = qs.filter(namespace_id=self.namespace_id)
        if self.actor:
            kind, _, name = self.actor.partition(":")
            qs = qs.filter(actor_type=kind, actor=name) if name else qs.filter(actor=self.actor)
        if self.action:
            qs = qs.filter(action=self.action)
        if self.target_type:
            qs = qs.filter(target_type=self.target_type)
        if self.target_id:
            qs = qs.filter(target_id=self.target_id)
        return qs

    def as_data(self) -> dict[str, str | int | list[int]]:
        data = {k: v for k, v in vars(self).items() if v not in (None, "")}
        if self.namespace_ids is not None:
            data["namespace_ids"] = sorted(self.namespace_ids)
        return data


def audit_trail(target_type: str, target_id: str, *, limit: int = 200) -> list[AuditEvent]:
    """What happened to one object, oldest first, with the namespaces of the events."""
    events = AuditFilter(target_type=target_type, target_id=target_id).events().select_related("namespace")
    return list(events.order_by("id")[:limit])


def audit_page(
    events: AuditFilter, *, before_id: int | None = None, limit: int = 50
) -> tuple[list[AuditEvent], int | None]:
    """Newest first, keyset on id, with their namespaces; returns the events and the id to continue before."""
    qs = events.events().select_related("namespace")
    if before_id:
        qs = qs.filter(pk__lt=before_id)
    rows = list(qs.order_by("-id")[: limit + 1])
    if len(rows) > limit:
        rows = rows[:limit]
        return rows, rows[-1].pk
    return rows, None


def recorded_actions() -> list[str]:
    """Every action the trail holds, in order: one probe of the (action, id) index per action, not a scan."""
    # Only the model's own table name is formatted in.
    table = AuditEvent._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            WITH RECURSIVE seen(action) AS (
                (SELECT action FROM {table} ORDER BY action LIMIT 1)
                UNION ALL
                SELECT (SELECT e.action FROM {table} e WHERE e.action > seen.action ORDER BY e.action LIMIT 1)
                FROM seen WHERE seen.action IS NOT NULL
            )
            SELECT action FROM seen WHERE action IS NOT NULL
            """
        )
        return [row[0] for row in cursor.fetchall()]
