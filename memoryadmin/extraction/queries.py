"""Reads of extraction runs, shared by the API and the operators' console."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime

from django.db.models import Count

from memoryadmin.conversations.models import Session
from memoryadmin.conversations.queries import sessions_in_bulk
from memoryadmin.core.estimates import Estimate, estimate, per_day
from memoryadmin.core.pagination import Page, clamp_limit, keyset_page, narrowed
from memoryadmin.extraction.models import ExtractionRun, RunStatus
from memoryadmin.tenancy.models import Namespace


def runs_page(
    session: Session | None = None,
    *,
    namespace: Namespace | None = None,
    status: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    cursor: str | None = None,
    limit: int | None = None,
    oldest_first: bool = False,
) -> Page[ExtractionRun]:
    """A session's runs, or a namespace's with their sessions, newest (or oldest) first, keyset-paginated
    on (created_at, id); `status` and the range [since, until) narrow them."""
    if (session is None) == (namespace is None):
        raise ValueError("name one owner: a session or a namespace")
    limit = clamp_limit(limit)
    if session is not None:
        qs = ExtractionRun.objects.filter(session=session)
    else:
        qs = ExtractionRun.objects.filter(namespace=namespace).select_related("session")
    qs = narrowed(qs, status=status or None, created_at__gte=since or None, created_at__lt=until or None)
    return keyset_page(qs, tag="runs", key=("created_at", "id"), cursor=cursor, limit=limit, oldest_first=oldest_first)


def session_runs(session: Session, *, limit: int = 20) -> list[ExtractionRun]:
    """A session's newest runs, for the card beside its transcript."""
    return list(ExtractionRun.objects.filter(session=session).order_by("-created_at")[:limit])


def runs_estimate(namespace_ids: Sequence[int]) -> Estimate:
    return estimate(ExtractionRun.objects.filter(namespace_id__in=list(namespace_ids)))


def recent_runs(
    namespace_ids: Sequence[int],
    *,
    limit: int = 10,
    failed_only: bool = False,
    since: datetime | None = None,
    until: datetime | None = None,
) -> list[ExtractionRun]:
    """The newest runs in [since, until) over several namespaces, with their sessions: the top `limit` of
    each (index) merged, not a sort of all."""
    status_filter = "AND r.status = 'failed'" if failed_only else ""
    runs = ExtractionRun.objects.raw(
        f"""
        SELECT r.* FROM unnest(%s::bigint[]) AS ns(id)
        CROSS JOIN LATERAL (
            SELECT * FROM {ExtractionRun._meta.db_table} r
            WHERE r.namespace_id = ns.id AND r.created_at >= %s AND r.created_at < %s {status_filter}
            ORDER BY r.created_at DESC LIMIT %s
        ) r
        ORDER BY r.created_at DESC LIMIT %s
        """,
        [
            list(namespace_ids),
            since or datetime.min.replace(tzinfo=UTC),
            until or datetime.max.replace(tzinfo=UTC),
            limit,
            limit,
        ],
    )
    runs = list(runs)
    sessions = sessions_in_bulk([r.session_id for r in runs])
    for run in runs:
        run.session = sessions[run.session_id]
    return runs


def runs_per_day(namespace_ids: Sequence[int], *, status: str, since: datetime, until: datetime) -> dict[date, int]:
    """Runs of one outcome each day of [since, until): a range scan of (namespace, created_at)."""
    runs = ExtractionRun.objects.filter(namespace_id__in=namespace_ids, status=status, created_at__lt=until)
    return per_day(runs, "created_at", since)


def failed_runs_by_namespace(namespace_ids: Sequence[int], *, since: datetime, until: datetime) -> dict[int, int]:
    """Failed extraction runs per namespace in [since, until): a range scan of each namespace's runs index."""
    return dict(
        ExtractionRun.objects.filter(
            namespace_id__in=namespace_ids, status=RunStatus.FAILED, created_at__gte=since, created_at__lt=until
        )
        .order_by()
        .values("namespace_id")
        .annotate(n=Count("pk"))
        .values_list("namespace_id", "n")
    )
