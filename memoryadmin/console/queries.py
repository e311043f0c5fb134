"""What the console's pages put together from the apps' reads: dashboard figures, a transcript, a person's
whereabouts, the health of the moving parts.

Each table is read by the queries of the app that owns it; nothing here counts a large table
(see `core.estimates`).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.utils import timezone

from memoryadmin.conversations.queries import messages_after, sessions_estimate, sessions_per_namespace
from memoryadmin.core.estimates import Estimate
from memoryadmin.core.health import check_database, check_redis
from memoryadmin.core.replicas import replica_statuses
from memoryadmin.extraction.enums import RunStatus
from memoryadmin.extraction.queries import runs_per_day
from memoryadmin.governance.queries import erasures_per_namespace, open_erasures_per_namespace
from memoryadmin.memories.enums import MemoryStatus
from memoryadmin.memories.queries import (
    evidence_of_messages,
    memories_created_per_day,
    memories_estimate,
    memories_forgotten_per_day,
    memories_per_namespace,
    tombstones_estimate,
)

if TYPE_CHECKING:
    from memoryadmin.conversations.models import Message, Session
    from memoryadmin.tenancy.models import Namespace

CHART_DAYS = 30


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
    pending = open_erasures_per_namespace([ns.pk for ns in namespaces])
    return [
        NamespaceFigures(
            namespace=ns,
            memories=memories_estimate([ns.pk], status=MemoryStatus.ACTIVE),
            candidates=memories_estimate([ns.pk], status=MemoryStatus.CANDIDATE),
            sessions=sessions_estimate([ns.pk]),
            tombstones=tombstones_estimate([ns.pk]),
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
    window = {"since": day_start(first), "until": day_start(last + timedelta(days=1))}
    created = memories_created_per_day(namespace_ids, **window)
    forgotten = memories_forgotten_per_day(namespace_ids, **window)
    succeeded = runs_per_day(namespace_ids, status=RunStatus.SUCCEEDED, **window)
    failed = runs_per_day(namespace_ids, status=RunStatus.FAILED, **window)
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
    messages = messages_after(session, after_seq=after_seq, limit=limit + 1)
    more = len(messages) > limit
    messages = messages[:limit]
    evidence = evidence_of_messages([m.pk for m in messages])
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


def subject_figures(namespace: Namespace, user_id: str) -> dict[str, Estimate]:
    ids = [namespace.pk]
    return {
        "sessions": sessions_estimate(ids, user_id=user_id),
        "memories": memories_estimate(ids, user_id=user_id),
        "candidates": memories_estimate(ids, user_id=user_id, status=MemoryStatus.CANDIDATE),
        "tombstones": tombstones_estimate(ids, user_id=user_id),
    }


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
