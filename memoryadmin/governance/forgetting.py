"""Forgetting policies: validated, stored, run on schedule or on demand, and recorded.

The rules (age, inactivity, the hard-age multiplier, a budget over a recency score)
are evaluated by the memories app in one SQL statement where the rows are
(`memories.forgetting`); a real run deletes the selection in batches inside one
transaction with a `policy` tombstone for every text, and this module records the
run and one audit event with the counts.
"""

from __future__ import annotations

import uuid
from dataclasses import asdict, dataclass, field, fields
from datetime import datetime, timedelta
from typing import Any

from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from memoryadmin.audit.services import Actor, audit_about
from memoryadmin.core.app_ids import validate_app_id
from memoryadmin.core.errors import InvalidInput
from memoryadmin.core.queueing import queued
from memoryadmin.governance.models import ForgettingPolicy, ForgettingRun, ForgettingTrigger, JobStatus
from memoryadmin.memories.forgetting import ForgettingRules, Selection, forget_selection, select_for_forgetting
from memoryadmin.memories.models import Memory, MemoryType, TombstoneReason
from memoryadmin.memories.queries import memories_by_ids
from memoryadmin.tenancy.models import Namespace

# Queued by name: the tasks module imports this one.
FORGETTING_RUN_TASK = "memoryadmin.governance.tasks.forgetting_run_task"


@dataclass(frozen=True)
class Policy:
    max_age_days: float | None = None
    max_inactive_days: float | None = None
    budget: int | None = None
    memory_type_allowlist: tuple[str, ...] | None = None
    hard_age_multiplier: float = 12.0

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["memory_type_allowlist"] = list(self.memory_type_allowlist) if self.memory_type_allowlist else None
        return data

    @property
    def is_empty(self) -> bool:
        return self.max_age_days is None and self.max_inactive_days is None and self.budget is None


POLICY_RULES = tuple(rule.name for rule in fields(Policy))


def policy_clean(
    *,
    max_age_days: float | None = None,
    max_inactive_days: float | None = None,
    budget: int | None = None,
    memory_type_allowlist: list[str] | tuple[str, ...] | None = None,
    hard_age_multiplier: float | None = 12.0,
) -> Policy:
    """Validate a policy given by the API, the console or a stored ForgettingPolicy."""

    def non_negative(name: str, value: float | None) -> float | None:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float) or value != value or value < 0:
            raise InvalidInput(f"{name} must be a number >= 0", details={"field": f"policy.{name}"})
        if value > 1_000_000:
            raise InvalidInput(f"{name} is at most 1000000", details={"field": f"policy.{name}"})
        return float(value)

    if budget is not None and (isinstance(budget, bool) or not isinstance(budget, int) or budget < 0):
        raise InvalidInput("budget must be an integer >= 0", details={"field": "policy.budget"})
    if budget is not None and budget > 2**31 - 1:
        raise InvalidInput("budget is too large", details={"field": "policy.budget"})
    multiplier = non_negative("hard_age_multiplier", 12.0 if hard_age_multiplier is None else hard_age_multiplier)
    if not multiplier or multiplier < 1:
        raise InvalidInput("hard_age_multiplier must be >= 1", details={"field": "policy.hard_age_multiplier"})
    allowlist: tuple[str, ...] | None = None
    if memory_type_allowlist:
        unknown = [t for t in memory_type_allowlist if t not in MemoryType.values]
        if unknown:
            raise InvalidInput(
                f"memory_type_allowlist may hold only {', '.join(MemoryType.values)}",
                details={"field": "policy.memory_type_allowlist", "unknown": unknown},
            )
        allowlist = tuple(dict.fromkeys(memory_type_allowlist))
    return Policy(
        max_age_days=non_negative("max_age_days", max_age_days),
        max_inactive_days=non_negative("max_inactive_days", max_inactive_days),
        budget=budget,
        memory_type_allowlist=allowlist,
        hard_age_multiplier=multiplier,
    )


def policy_of(rules: Any) -> Policy:
    """Validate the rules `rules` holds as attributes named like a Policy's: a stored ForgettingPolicy,
    or the API's policy payload."""
    return policy_clean(**{name: getattr(rules, name) for name in POLICY_RULES})


def rules_of(
    policy: Policy, *, namespace: Namespace, user_id: str | None, session_id: str | None, now: datetime
) -> ForgettingRules:
    return ForgettingRules(
        namespace_id=namespace.pk,
        now=now,
        user_id=user_id or None,
        session_id=session_id or None,
        max_age_days=policy.max_age_days,
        max_inactive_days=policy.max_inactive_days,
        hard_age_multiplier=policy.hard_age_multiplier,
        budget=policy.budget,
        memory_types=policy.memory_type_allowlist,
    )


def _clean_scope(user_id: str | None, session_id: str | None) -> None:
    if user_id:
        validate_app_id(user_id, "user_id")
    if session_id:
        validate_app_id(session_id, "session_id")


def forgetting_select(
    *,
    namespace: Namespace,
    policy: Policy,
    user_id: str | None = None,
    session_id: str | None = None,
    now: datetime | None = None,
) -> Selection:
    """The dry run: the selection streamed in id order, with the reason for each memory.

    Iterate `rows` inside the caller's transaction (its server-side cursor lives in it).
    """
    _clean_scope(user_id, session_id)
    now = now or timezone.now()
    return select_for_forgetting(rules_of(policy, namespace=namespace, user_id=user_id, session_id=session_id, now=now))


@dataclass
class Preview:
    """What a policy would forget now: how many of how many, why, and the first of them."""

    policy: Policy
    scanned: int
    selected: int
    reasons: list[tuple[str, int]]
    rows: list[tuple[Memory, str]]

    @property
    def more(self) -> int:
        return self.selected - len(self.rows)


PREVIEW_ROWS = 50


def forgetting_dry_run(*, namespace: Namespace, policy: Policy, sample: int = PREVIEW_ROWS) -> Preview:
    """The dry run an operator reads before saving or running a policy: the selection counted by reason,
    and the first `sample` memories it would forget."""
    with transaction.atomic():
        selection = forgetting_select(namespace=namespace, policy=policy)
        reasons: dict[str, int] = {}
        first: list[tuple[uuid.UUID, str]] = []
        for memory_id, reason in selection.rows:
            reasons[reason] = reasons.get(reason, 0) + 1
            if len(first) < sample:
                first.append((memory_id, reason))
    memories = {m.pk: m for m in memories_by_ids(namespace, [memory_id for memory_id, _ in first])}
    return Preview(
        policy=policy,
        scanned=selection.scanned,
        selected=sum(reasons.values()),
        reasons=sorted(reasons.items()),
        rows=[(memories[memory_id], reason) for memory_id, reason in first if memory_id in memories],
    )


@dataclass
class RunResult:
    run: ForgettingRun
    selected: list[tuple[uuid.UUID, str]] = field(default_factory=list)


def forgetting_run(
    *,
    namespace: Namespace,
    policy: Policy,
    actor: Actor,
    trigger: str = ForgettingTrigger.API,
    user_id: str | None = None,
    session_id: str | None = None,
    now: datetime | None = None,
    collect_ids: bool = True,
    reason: str = "",
    queued: ForgettingRun | None = None,
) -> RunResult:
    """Select and delete in one transaction (see `forget_selection`), then record the run and one audit event.

    A `queued` run (from `forgetting_run_queue`) is the record filled in, instead of a new one.
    """
    _clean_scope(user_id, session_id)
    now = now or timezone.now()
    scope = "session" if session_id else "user" if user_id else "namespace"
    rules = rules_of(policy, namespace=namespace, user_id=user_id, session_id=session_id, now=now)
    with transaction.atomic():
        forgotten = forget_selection(
            rules=rules, tombstone_reason=TombstoneReason.POLICY, actor=str(actor), collect_ids=collect_ids
        )
        deleted, reasons = forgotten.deleted, forgotten.reasons
        run = queued or ForgettingRun(namespace=namespace, started_at=now)
        run.trigger, run.actor, run.policy, run.scope = trigger, str(actor), policy.as_dict(), scope
        run.status = JobStatus.SUCCEEDED
        run.scanned, run.selected, run.deleted = forgotten.scanned, forgotten.selected, deleted
        run.reasons = dict(reasons)
        run.finished_at = timezone.now()
        run.save()
        audit_about(
            run,
            actor=actor,
            action="forgetting.run",
            user_id=user_id or None,
            reason=reason,
            data={
                "trigger": trigger,
                "scope": scope,
                "policy": policy.as_dict(),
                "scanned": run.scanned,
                "selected": run.selected,
                "deleted": deleted,
                "reasons": dict(reasons),
            },
        )
    return RunResult(run=run, selected=forgotten.ids)


RUN_STALE_AFTER = timedelta(hours=1)


def forgetting_run_is_active(run: ForgettingRun, now: datetime | None = None) -> bool:
    """Waiting for a worker, or running in one that has not been lost."""
    if run.status == JobStatus.PENDING:
        return True
    return run.status == JobStatus.RUNNING and run.started_at >= (now or timezone.now()) - RUN_STALE_AFTER


def forgetting_run_queue(*, namespace: Namespace, policy: Policy, actor: Actor) -> ForgettingRun:
    """Run `policy` exactly as previewed, in a worker, once the caller's transaction commits.

    The run is recorded at once as pending, so its progress can be followed until it is done.
    """
    payload = policy.as_dict()
    run = ForgettingRun.objects.create(
        namespace=namespace,
        trigger=ForgettingTrigger.CONSOLE,
        actor=str(actor),
        policy=payload,
        status=JobStatus.PENDING,
        started_at=timezone.now(),
    )
    run_id = str(run.pk)
    transaction.on_commit(
        lambda: queued(FORGETTING_RUN_TASK).delay(namespace.pk, payload, actor.type, actor.id, run_id)
    )
    return run


def forgetting_queued_run(*, run_id: str, policy: Policy, actor: Actor) -> ForgettingRun | None:
    """The worker's side of `forgetting_run_queue`: claim the pending run, run it, record how it ended.

    The claim is a conditional UPDATE, committed before the run, so the console sees it running
    and a task delivered twice runs once. A run that fails is marked failed, nothing deleted.
    A run still "running" after RUN_STALE_AFTER lost its worker (its transaction rolled back,
    nothing was deleted): the task delivered again takes it over.
    """
    now = timezone.now()
    claimable = Q(status=JobStatus.PENDING) | Q(status=JobStatus.RUNNING, started_at__lt=now - RUN_STALE_AFTER)
    claimed = ForgettingRun.objects.filter(claimable, pk=run_id).update(status=JobStatus.RUNNING, started_at=now)
    if claimed != 1:
        return None
    run = ForgettingRun.objects.select_related("namespace").get(pk=run_id)
    try:
        return forgetting_run(
            namespace=run.namespace,
            policy=policy,
            actor=actor,
            trigger=ForgettingTrigger.CONSOLE,
            collect_ids=False,
            reason="started from the console",
            queued=run,
        ).run
    except Exception as exc:
        ForgettingRun.objects.filter(pk=run_id).update(
            status=JobStatus.FAILED, error=str(exc)[:1000], finished_at=timezone.now()
        )
        raise


def forgetting_policy_save(
    *,
    namespace: Namespace,
    actor: Actor,
    enabled: bool,
    policy: Policy,
    interval_hours: int = 24,
) -> ForgettingPolicy:
    """Store a namespace's standing policy (run by beat when enabled)."""
    if enabled and policy.is_empty:
        raise InvalidInput("an enabled policy needs max_age_days, max_inactive_days or budget", details={})
    if isinstance(interval_hours, bool) or not isinstance(interval_hours, int) or not 1 <= interval_hours <= 24 * 366:
        raise InvalidInput("interval_hours must be between 1 and 8784", details={"field": "interval_hours"})

    def whole_days(value: float | None) -> int | None:
        return None if value is None else round(value)

    with transaction.atomic():
        stored, _ = ForgettingPolicy.objects.select_for_update().get_or_create(namespace=namespace)
        stored.enabled = enabled
        stored.max_age_days = whole_days(policy.max_age_days)
        stored.max_inactive_days = whole_days(policy.max_inactive_days)
        stored.budget = policy.budget
        stored.memory_type_allowlist = list(policy.memory_type_allowlist or [])
        stored.hard_age_multiplier = policy.hard_age_multiplier
        stored.interval_hours = interval_hours
        stored.save()
        audit_about(
            stored,
            actor=actor,
            action="forgetting.policy_save",
            data={"enabled": enabled, "interval_hours": interval_hours, "policy": policy.as_dict()},
        )
    return stored


def due_forgetting_policies(now: datetime | None = None) -> list[int]:
    """Claim every enabled policy whose interval has passed; returns their namespace ids.

    The claim is a conditional UPDATE, so two beat ticks (or two beats) never
    start the same policy twice.
    """
    now = now or timezone.now()
    with connection.cursor() as cursor:
        cursor.execute(
            """
            UPDATE governance_forgettingpolicy
            SET last_run_at = %s
            WHERE enabled
              AND (last_run_at IS NULL OR last_run_at + make_interval(hours => interval_hours) <= %s)
            RETURNING namespace_id
            """,
            [now, now],
        )
        return sorted(row[0] for row in cursor.fetchall())


def forgetting_policy_run(*, namespace_id: int, now: datetime | None = None) -> ForgettingRun | None:
    """What beat runs for one namespace: its stored policy, for real, with no ids kept in memory."""
    stored = ForgettingPolicy.objects.select_related("namespace").filter(namespace_id=namespace_id).first()
    if stored is None or not stored.enabled:
        return None
    policy = policy_of(stored)
    if policy.is_empty:
        return None
    return forgetting_run(
        namespace=stored.namespace,
        policy=policy,
        actor=Actor.system("forgetting-policy"),
        trigger=ForgettingTrigger.SCHEDULE,
        now=now,
        collect_ids=False,
        reason="scheduled forgetting policy",
    ).run
