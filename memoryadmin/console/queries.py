"""Reads only the console needs: dashboard figures, estimates, health of the moving parts.

Nothing here counts a large table: a count stops at a cap, and beyond it the
planner's own estimate stands in (EXPLAIN reads statistics, not rows).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import Count, QuerySet
from django.db.models.functions import TruncDate
from django.utils import timezone

from memoryadmin.audit.models import AuditEvent
from memoryadmin.audit.queries import AuditFilter
from memoryadmin.conversations.models import Message, Session
from memoryadmin.conversations.queries import sessions_per_namespace
from memoryadmin.core.health import check_database, check_redis
from memoryadmin.core.pagination import Page, keyset_page
from memoryadmin.core.replicas import read_connection, replica_statuses
from memoryadmin.extraction.models import ExtractionRun, RunStatus
from memoryadmin.governance.models import ErasureRequest, ErasureStatus
from memoryadmin.governance.queries import erasures_per_namespace
from memoryadmin.memories.models import Memory, MemoryEvidence, MemoryStatus, Tombstone, TombstoneReason
from memoryadmin.memories.queries import memories_in, memories_per_namespace
from memoryadmin.tenancy.models import Namespace

# Up to this many rows a count is exact (an index-only scan of a few dozen pages).
EXACT_UP_TO = 10_000
CHART_DAYS = 30


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


@dataclass
class NamespaceFigures:
    namespace: Namespace
    memories: Estimate
    candidates: Estimate
    sessions: Estimate
    tombstones: Estimate
    pending_erasures: int
    failed_runs: int = 0


def namespace_figures(namespaces: Sequence[Namespace]) -> list[NamespaceFigures]:
    pending = dict(
        ErasureRequest.objects.filter(
            namespace__in=namespaces, status__in=[ErasureStatus.PENDING, ErasureStatus.RUNNING]
        )
        .values_list("namespace_id")
        .annotate(n=Count("id"))
        .values_list("namespace_id", "n")
    )
    return [
        NamespaceFigures(
            namespace=ns,
            memories=estimate(Memory.objects.filter(namespace=ns, status=MemoryStatus.ACTIVE)),
            candidates=estimate(Memory.objects.filter(namespace=ns, status=MemoryStatus.CANDIDATE)),
            sessions=estimate(Session.objects.filter(namespace=ns)),
            tombstones=estimate(Tombstone.objects.filter(namespace=ns)),
            pending_erasures=pending.get(ns.pk, 0),
        )
        for ns in namespaces
    ]


@dataclass
class Day:
    day: date
    created: int = 0
    forgotten: int = 0
    runs_succeeded: int = 0
    runs_failed: int = 0


@dataclass
class Activity:
    days: list[Day]
    peak_memories: int = 0
    peak_runs: int = 0
    totals: dict[str, int] = field(default_factory=dict)


def _per_day(queryset: QuerySet[Any], column: str, since: datetime) -> dict[date, int]:
    rows = (
        queryset.filter(**{f"{column}__gte": since})
        .annotate(day=TruncDate(column))
        .order_by()
        .values("day")
        .annotate(n=Count("pk"))
        .values_list("day", "n")
    )
    return dict(rows)


def day_start(day: date) -> datetime:
    return datetime.combine(day, datetime.min.time(), tzinfo=timezone.get_current_timezone())


def activity(namespace_ids: Sequence[int], *, days: int = CHART_DAYS, last: date | None = None) -> Activity:
    """Per day over the `days` ending with `last` (today when None): memories created (and still held) and
    forgotten, extraction runs by outcome.

    Each count is a range scan of a (namespace, created_at) index, so its cost
    follows the activity of the range, not the size of the table.
    """
    last = last or timezone.now().date()
    first = last - timedelta(days=days - 1)
    since, until = day_start(first), day_start(last + timedelta(days=1))
    created = _per_day(Memory.objects.filter(namespace_id__in=namespace_ids, created_at__lt=until), "created_at", since)
    forgotten = _per_day(
        Tombstone.objects.filter(
            namespace_id__in=namespace_ids,
            reason__in=[TombstoneReason.FORGOTTEN, TombstoneReason.POLICY],
            created_at__lt=until,
        ),
        "created_at",
        since,
    )
    runs = ExtractionRun.objects.filter(namespace_id__in=namespace_ids, created_at__lt=until)
    succeeded = _per_day(runs.filter(status=RunStatus.SUCCEEDED), "created_at", since)
    failed = _per_day(runs.filter(status=RunStatus.FAILED), "created_at", since)
    series = [
        Day(
            day=first + timedelta(days=i),
            created=created.get(first + timedelta(days=i), 0),
            forgotten=forgotten.get(first + timedelta(days=i), 0),
            runs_succeeded=succeeded.get(first + timedelta(days=i), 0),
            runs_failed=failed.get(first + timedelta(days=i), 0),
        )
        for i in range(days)
    ]
    return Activity(
        days=series,
        peak_memories=max([max(d.created, d.forgotten) for d in series] + [0]),
        peak_runs=max([d.runs_succeeded + d.runs_failed for d in series] + [0]),
        totals={
            "created": sum(d.created for d in series),
            "forgotten": sum(d.forgotten for d in series),
            "runs_succeeded": sum(d.runs_succeeded for d in series),
            "runs_failed": sum(d.runs_failed for d in series),
        },
    )


def recent_runs(
    namespace_ids: Sequence[int],
    *,
    limit: int = 10,
    failed_only: bool = False,
    since: datetime | None = None,
    until: datetime | None = None,
) -> list[ExtractionRun]:
    """The newest runs in [since, until) over several namespaces: the top `limit` of each (index) merged,
    not a sort of all."""
    status_filter = "AND r.status = 'failed'" if failed_only else ""
    runs = ExtractionRun.objects.raw(
        f"""
        SELECT r.* FROM unnest(%s::bigint[]) AS ns(id)
        CROSS JOIN LATERAL (
            SELECT * FROM extraction_extractionrun r
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
    sessions = Session.objects.in_bulk([r.session_id for r in runs])
    for run in runs:
        run.session = sessions[run.session_id]
    return runs


def check_workers(timeout: float = 0.5) -> list[str]:
    """Names of the Celery workers that answered a ping within `timeout` seconds."""
    from memoryadmin.celery import app

    try:
        with app.connection_for_write(settings.CELERY_BROKER_URL) as conn:
            replies = app.control.ping(timeout=timeout, connection=conn)
    except Exception:
        return []
    return sorted(name for reply in replies for name in reply)


def health() -> dict[str, Any]:
    database = check_database()
    redis = check_redis()
    workers = check_workers() if redis else []
    return {"database": database, "redis": redis, "workers": workers, "replicas": replica_statuses()}


def review_queue_size(namespace_ids: Sequence[int]) -> Estimate:
    return estimate(Memory.objects.filter(namespace_id__in=namespace_ids, status=MemoryStatus.CANDIDATE))


def candidates_by_namespace(namespace_ids: Sequence[int], *, cap: int = EXACT_UP_TO) -> dict[int, int]:
    """Candidates waiting in each namespace, each count stopped at `cap`: one statement, an index range each."""
    table = Memory._meta.db_table
    with read_connection().cursor() as cursor:
        # Only the model's own table name is formatted in; the ids and the cap are parameters.
        cursor.execute(
            f"""
            SELECT ns.id, (
                SELECT count(*) FROM (
                    SELECT 1 FROM {table} m WHERE m.namespace_id = ns.id AND m.status = %s LIMIT %s
                ) waiting
            ) FROM unnest(%s::bigint[]) AS ns(id)
            """,
            [MemoryStatus.CANDIDATE, cap, list(namespace_ids)],
        )
        return {namespace_id: n for namespace_id, n in cursor.fetchall() if n}


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


def runs_page(
    namespace: Namespace,
    *,
    status: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    cursor: str | None = None,
    limit: int = 50,
    oldest_first: bool = False,
) -> Page[ExtractionRun]:
    """A namespace's extraction runs, newest (or oldest) first, keyset on (created_at, id), with their sessions."""
    qs = ExtractionRun.objects.filter(namespace=namespace).select_related("session")
    if status:
        qs = qs.filter(status=status)
    if since:
        qs = qs.filter(created_at__gte=since)
    if until:
        qs = qs.filter(created_at__lt=until)
    return keyset_page(
        qs,
        tag="runs-oldest" if oldest_first else "runs",
        key=("created_at", "id"),
        types=(datetime, uuid.UUID),
        cursor=cursor,
        limit=limit,
        descending=not oldest_first,
    )


def memories_by_ids(namespace: Namespace, ids: Sequence[Any]) -> list[Memory]:
    """The namespace's memories among `ids`, with `pinned`; ids of other namespaces simply are not found."""
    return list(memories_in(namespace).filter(pk__in=list(ids)))


def audit_trail(target_type: str, target_id: str, *, limit: int = 200) -> list[AuditEvent]:
    events = AuditEvent.objects.filter(target_type=target_type, target_id=target_id).select_related("namespace")
    return list(events.order_by("id")[:limit])


@dataclass
class ReviewItem:
    memory: Memory
    evidence: list[MemoryEvidence]


def review_page(namespace: Namespace, *, cursor: str | None = None, limit: int = 20) -> Page[ReviewItem]:
    """Candidates oldest first (they have waited longest), each with the messages it came from."""
    qs = memories_in(namespace).filter(status=MemoryStatus.CANDIDATE)
    page = keyset_page(
        qs,
        tag="review",
        key=("created_at", "id"),
        types=(datetime, uuid.UUID),
        cursor=cursor,
        limit=limit,
        descending=False,
    )
    rows, next_cursor = page.items, page.next_cursor
    evidence: dict[Any, list[MemoryEvidence]] = {}
    for ev in (
        MemoryEvidence.objects.filter(memory_id__in=[m.pk for m in rows])
        .select_related("message__session")
        .order_by("message__session_id", "message__seq")
    ):
        evidence.setdefault(ev.memory_id, []).append(ev)
    return Page([ReviewItem(memory=m, evidence=evidence.get(m.pk, [])) for m in rows], next_cursor)


@dataclass
class ToolCall:
    call_id: str
    name: str
    arguments: str
    result: Message | None = None


@dataclass
class Line:
    """One message of a transcript as the console shows it."""

    message: Message
    calls: list[ToolCall] = field(default_factory=list)
    evidence_for: list[tuple[uuid.UUID, str]] = field(default_factory=list)

    @property
    def injected(self) -> bool:
        return self.message.is_injected


def _tool_calls(raw: Any) -> list[ToolCall]:
    calls = []
    for index, call in enumerate(raw if isinstance(raw, list) else []):
        if not isinstance(call, dict):
            calls.append(ToolCall(call_id="", name=f"call {index + 1}", arguments=json.dumps(call)))
            continue
        function = call.get("function") if isinstance(call.get("function"), dict) else call
        arguments = function.get("arguments", "")
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments, ensure_ascii=False)
        calls.append(
            ToolCall(call_id=str(call.get("id", "")), name=str(function.get("name", "tool")), arguments=arguments)
        )
    return calls


@dataclass
class Transcript:
    lines: list[Line]
    first_seq: int | None
    last_seq: int | None
    next_after: int | None


def transcript(session: Session, *, after_seq: int = 0, limit: int = 100) -> Transcript:
    """Messages in seq order from after_seq, tool results paired with their calls, evidence marked.

    A tool result shown under its call is left out of the flow; one whose call
    is on another page stays in the flow on its own.
    """
    messages = list(Message.objects.filter(session=session, seq__gt=after_seq).order_by("seq")[: limit + 1])
    more = len(messages) > limit
    messages = messages[:limit]
    evidence: dict[int, list[tuple[uuid.UUID, str]]] = {}
    for message_id, memory_id, text in MemoryEvidence.objects.filter(
        message_id__in=[m.pk for m in messages]
    ).values_list("message_id", "memory_id", "memory__text"):
        evidence.setdefault(message_id, []).append((memory_id, text))
    results = {m.tool_call_id: m for m in messages if m.role == "tool" and m.tool_call_id}
    paired: set[int] = set()
    lines: list[Line] = []
    for message in messages:
        line = Line(message=message, calls=_tool_calls(message.tool_calls), evidence_for=evidence.get(message.pk, []))
        for call in line.calls:
            result = results.get(call.call_id) if call.call_id else None
            if result is not None and result.seq > message.seq:
                call.result = result
                paired.add(result.pk)
        lines.append(line)
    lines = [line for line in lines if line.message.pk not in paired or line.evidence_for]
    return Transcript(
        lines=lines,
        first_seq=messages[0].seq if messages else None,
        last_seq=messages[-1].seq if messages else None,
        next_after=messages[-1].seq if more else None,
    )


def session_runs(session: Session, *, limit: int = 20) -> list[ExtractionRun]:
    return list(ExtractionRun.objects.filter(session=session).order_by("-created_at")[:limit])


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


def subject_figures(namespace: Namespace, user_id: str) -> dict[str, Estimate]:
    return {
        "sessions": estimate(Session.objects.filter(namespace=namespace, user_id=user_id)),
        "memories": estimate(Memory.objects.filter(namespace=namespace, user_id=user_id)),
        "candidates": estimate(
            Memory.objects.filter(namespace=namespace, user_id=user_id, status=MemoryStatus.CANDIDATE)
        ),
        "tombstones": estimate(Tombstone.objects.filter(namespace=namespace, user_id=user_id)),
    }


def recent_subjects(namespace: Namespace, *, limit: int = 30) -> list[tuple[str, datetime]]:
    """People active most recently, from the newest sessions (bounded: no DISTINCT over a big table)."""
    seen: dict[str, datetime] = {}
    for user_id, activity_at in (
        Session.objects.filter(namespace=namespace)
        .order_by("-last_activity_at", "-id")
        .values_list("user_id", "last_activity_at")[: limit * 10]
    ):
        seen.setdefault(user_id, activity_at)
        if len(seen) >= limit:
            break
    return list(seen.items())


@dataclass
class Whereabouts:
    """What one namespace holds about a person."""

    namespace: Namespace
    sessions: int = 0
    messages: int = 0
    memories: int = 0
    tombstones: int = 0
    erasures: int = 0


def subject_everywhere(user_id: str, namespaces: Sequence[Namespace]) -> list[Whereabouts]:
    """Every namespace among `namespaces` holding anything about `user_id`, by slug.

    One grouped query per table over all the namespaces at once, never a query per namespace.
    """
    ids = [ns.pk for ns in namespaces]
    sessions = sessions_per_namespace(user_id, ids)
    memories = memories_per_namespace(user_id, ids)
    # An erasure leaves no data, only its ledger entry: a namespace that erased them is listed too.
    erasures = erasures_per_namespace(user_id, ids)
    found = []
    for ns in sorted(namespaces, key=lambda ns: ns.slug):
        if ns.pk not in sessions and ns.pk not in memories and ns.pk not in erasures:
            continue
        n_sessions, n_messages = sessions.get(ns.pk, (0, 0))
        n_memories, n_tombstones = memories.get(ns.pk, (0, 0))
        found.append(Whereabouts(ns, n_sessions, n_messages, n_memories, n_tombstones, erasures.get(ns.pk, 0)))
    return found
