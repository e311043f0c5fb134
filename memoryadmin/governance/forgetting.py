"""Forgetting policies: which memories to let go, and letting them go.

Selection is one SQL statement (the API contract's rule, evaluated where the
rows are): age, inactivity and the hard-age multiplier mark memories by rule,
then a window over the recency score keeps the `budget` freshest of the rest.
A real run deletes the selection in batches inside one transaction, leaves a
`policy` tombstone for each memory and one audit event with the counts.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from memoryadmin.audit.services import Actor, audit_record
from memoryadmin.core.app_ids import validate_app_id
from memoryadmin.core.errors import InvalidInput
from memoryadmin.governance.models import ForgettingPolicy, ForgettingRun, ForgettingTrigger, JobStatus
from memoryadmin.memories.models import MemoryType, TombstoneReason
from memoryadmin.tenancy.models import Namespace

REASONS = ("hard_age", "inactive_and_age", "age", "inactive", "budget")
DELETE_BATCH = 2000
FRESHNESS_HALF_LIFE_DAYS = 7.0
NOVELTY_HALF_LIFE_DAYS = 30.0
FRESHNESS_WEIGHT = 0.6
NOVELTY_WEIGHT = 0.4
# power(0.5, x) underflows to an error in PostgreSQL past ~1074; 0.5**1000 is already 0 for ranking.
MAX_HALF_LIVES = 1000


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


def policy_of(stored: ForgettingPolicy) -> Policy:
    return policy_clean(
        max_age_days=stored.max_age_days,
        max_inactive_days=stored.max_inactive_days,
        budget=stored.budget,
        memory_type_allowlist=stored.memory_type_allowlist or None,
        hard_age_multiplier=stored.hard_age_multiplier,
    )


RANK_BY_RECENCY = f"""
    SELECT id, rule,
           row_number() OVER (
               PARTITION BY rule IS NULL
               ORDER BY {FRESHNESS_WEIGHT} * power(0.5, LEAST(idle_days / {FRESHNESS_HALF_LIFE_DAYS}, {MAX_HALF_LIVES}))
                      + {NOVELTY_WEIGHT} * power(0.5, LEAST(age_days / {NOVELTY_HALF_LIFE_DAYS}, {MAX_HALF_LIVES}))
                        DESC,
                        id
           ) AS rank
    FROM judged"""
# Without a budget there is nothing to rank: no window, no sort of the whole scope.
NO_RANKING = "SELECT id, rule, NULL::bigint AS rank FROM judged"

# One statement. Rows: (scanned, id, reason); a single (scanned, NULL, NULL) row when nothing is selected.
SELECTION_TEMPLATE = """
WITH scope AS (
    SELECT m.id, m.memory_type,
           EXTRACT(EPOCH FROM (%(now)s::timestamptz - m.created_at))::float8 / 86400.0 AS age_days,
           EXTRACT(EPOCH FROM (%(now)s::timestamptz - COALESCE(m.last_accessed_at, m.created_at)))::float8
               / 86400.0 AS idle_days,
           EXISTS (SELECT 1 FROM memories_pin p WHERE p.memory_id = m.id) AS pinned
    FROM memories_memory m
    WHERE m.namespace_id = %(namespace_id)s
      AND (%(user_id)s::text IS NULL OR m.user_id = %(user_id)s::text)
      AND (%(session_id)s::text IS NULL OR m.session_id = %(session_id)s::text)
),
judged AS (
    SELECT id, age_days, idle_days,
           CASE
               WHEN %(max_age)s::float8 IS NOT NULL AND %(max_idle)s::float8 IS NOT NULL THEN
                   CASE
                       WHEN age_days > %(max_age)s::float8 * %(multiplier)s::float8 THEN 'hard_age'
                       WHEN age_days > %(max_age)s::float8 AND idle_days > %(max_idle)s::float8
                           THEN 'inactive_and_age'
                   END
               WHEN %(max_age)s::float8 IS NOT NULL AND age_days > %(max_age)s::float8 THEN 'age'
               WHEN %(max_idle)s::float8 IS NOT NULL AND idle_days > %(max_idle)s::float8 THEN 'inactive'
           END AS rule
    FROM scope
    WHERE NOT pinned
      AND (%(types)s::text[] IS NULL OR memory_type = ANY(%(types)s::text[]))
),
ranked AS (
    {ranking}
),
selected AS (
    SELECT id, COALESCE(rule, 'budget') AS reason
    FROM ranked
    WHERE rule IS NOT NULL OR (%(budget)s::bigint IS NOT NULL AND rank > %(budget)s::bigint)
)
SELECT counted.scanned, selected.id, selected.reason
FROM (SELECT count(*) AS scanned FROM scope) AS counted
LEFT JOIN selected ON true
ORDER BY selected.id
"""


def selection_sql(policy: Policy) -> str:
    return SELECTION_TEMPLATE.format(ranking=RANK_BY_RECENCY if policy.budget is not None else NO_RANKING)


def _tune_for_selection(cursor: Any) -> None:
    """Give the selection's sorts room in memory and skip JIT, whose compile time outweighs it here.

    SET LOCAL lasts until the end of the caller's transaction; outside one it would not stick.
    """
    if connection.in_atomic_block:
        cursor.execute("SET LOCAL work_mem = '128MB'")
        cursor.execute("SET LOCAL jit = off")


def _selection_params(
    *, namespace: Namespace, policy: Policy, user_id: str | None, session_id: str | None, now: datetime
) -> dict[str, Any]:
    return {
        "now": now,
        "namespace_id": namespace.pk,
        "user_id": user_id or None,
        "session_id": session_id or None,
        "max_age": policy.max_age_days,
        "max_idle": policy.max_inactive_days,
        "multiplier": policy.hard_age_multiplier,
        "budget": policy.budget,
        "types": list(policy.memory_type_allowlist) if policy.memory_type_allowlist else None,
    }


def _clean_scope(user_id: str | None, session_id: str | None) -> None:
    if user_id:
        validate_app_id(user_id, "user_id")
    if session_id:
        validate_app_id(session_id, "session_id")


@dataclass
class Selection:
    """A dry run: how many memories were looked at, and every selected id with its reason."""

    scanned: int
    rows: Iterator[tuple[uuid.UUID, str]]


def forgetting_select(
    *,
    namespace: Namespace,
    policy: Policy,
    user_id: str | None = None,
    session_id: str | None = None,
    now: datetime | None = None,
) -> Selection:
    """Run the selection with a server-side cursor; rows stream in id order.

    Iterate `rows` inside the transaction (or autocommit block) that called this.
    """
    _clean_scope(user_id, session_id)
    params = _selection_params(
        namespace=namespace, policy=policy, user_id=user_id, session_id=session_id, now=now or timezone.now()
    )
    with connection.cursor() as tuning:
        _tune_for_selection(tuning)
    cursor = connection.chunked_cursor()
    cursor.execute(selection_sql(policy), params)
    first = cursor.fetchone()
    scanned = int(first[0])

    def rows() -> Iterator[tuple[uuid.UUID, str]]:
        try:
            if first[1] is not None:
                yield first[1], first[2]
            while batch := cursor.fetchmany(2000):
                for _, memory_id, reason in batch:
                    yield memory_id, reason
        finally:
            cursor.close()

    return Selection(scanned=scanned, rows=rows())


@dataclass
class RunResult:
    run: ForgettingRun
    selected: list[tuple[uuid.UUID, str]] = field(default_factory=list)


_BATCH_SQL = """
WITH batch AS (
    DELETE FROM {table} WHERE id IN (SELECT id FROM {table} ORDER BY id LIMIT %(limit)s)
    RETURNING id, reason
),
victims AS (
    SELECT m.id, m.namespace_id, m.user_id, m.fingerprint, m.memory_type, b.reason
    FROM memories_memory m JOIN batch b ON b.id = m.id
    WHERE NOT EXISTS (SELECT 1 FROM memories_pin p WHERE p.memory_id = m.id)
    FOR UPDATE OF m
),
stones AS (
    INSERT INTO memories_tombstone (namespace_id, user_id, fingerprint, reason, text, memory_type, actor, created_at)
    SELECT namespace_id, user_id, fingerprint, %(tombstone_reason)s, '', memory_type, %(actor)s, %(now)s
    FROM victims
    ON CONFLICT (namespace_id, user_id, fingerprint) DO NOTHING
    RETURNING 1
),
revisions AS (DELETE FROM memories_memoryrevision r USING victims v WHERE r.memory_id = v.id RETURNING 1),
evidence AS (DELETE FROM memories_memoryevidence e USING victims v WHERE e.memory_id = v.id RETURNING 1),
gone AS (DELETE FROM memories_memory m USING victims v WHERE m.id = v.id RETURNING m.id, v.reason)
SELECT id, reason, (SELECT count(*) FROM batch) FROM gone
UNION ALL
SELECT NULL, NULL, (SELECT count(*) FROM batch) WHERE NOT EXISTS (SELECT 1 FROM gone)
"""


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
) -> RunResult:
    """Select and delete in one transaction: batches of deletes, tombstones, one audit event.

    The selection is materialised once (a temporary table, the same single
    statement as the dry run), then drained in batches so no statement and
    no Python list grows with the namespace. A memory pinned after it was
    selected is left alone.
    """
    _clean_scope(user_id, session_id)
    now = now or timezone.now()
    scope = "session" if session_id else "user" if user_id else "namespace"
    table = f"forget_{uuid.uuid4().hex}"
    params = _selection_params(namespace=namespace, policy=policy, user_id=user_id, session_id=session_id, now=now)
    selected: list[tuple[uuid.UUID, str]] = []
    reasons: Counter[str] = Counter()
    with transaction.atomic():
        with connection.cursor() as cursor:
            _tune_for_selection(cursor)
            cursor.execute(f"CREATE TEMPORARY TABLE {table} ON COMMIT DROP AS {selection_sql(policy)}", params)
            cursor.execute(f"SELECT max(scanned), count(id) FROM {table}")
            scanned, selected_count = cursor.fetchone()
            cursor.execute(f"DELETE FROM {table} WHERE id IS NULL")
            cursor.execute(f"ALTER TABLE {table} ADD PRIMARY KEY (id)")
            batch_sql = _BATCH_SQL.format(table=table)
            while True:
                batch_params = {
                    "limit": DELETE_BATCH,
                    "tombstone_reason": TombstoneReason.POLICY,
                    "actor": str(actor),
                    "now": now,
                }
                cursor.execute(batch_sql, batch_params)
                rows = cursor.fetchall()
                if not rows or rows[0][2] == 0:
                    break
                for memory_id, why, _ in rows:
                    if memory_id is None:
                        continue
                    reasons[why] += 1
                    if collect_ids:
                        selected.append((memory_id, why))
            cursor.execute(f"DROP TABLE {table}")
        deleted = sum(reasons.values())
        run = ForgettingRun.objects.create(
            namespace=namespace,
            trigger=trigger,
            actor=str(actor),
            policy=policy.as_dict(),
            scope=scope,
            status=JobStatus.SUCCEEDED,
            scanned=scanned or 0,
            selected=selected_count or 0,
            deleted=deleted,
            reasons=dict(reasons),
            started_at=now,
            finished_at=timezone.now(),
        )
        audit_record(
            actor=actor,
            action="forgetting.run",
            namespace_id=namespace.pk,
            target_type="forgetting_run",
            target_id=str(run.pk),
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
    selected.sort()
    return RunResult(run=run, selected=selected)


def forgetting_run_queue(*, namespace: Namespace, policy: Policy, actor: Actor) -> None:
    """Run `policy` exactly as previewed, in a worker, once the caller's transaction commits."""
    from memoryadmin.governance.tasks import forgetting_run_task  # tasks imports this module

    payload = policy.as_dict()
    transaction.on_commit(lambda: forgetting_run_task.delay(namespace.pk, payload, actor.type, actor.id))


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
        audit_record(
            actor=actor,
            action="forgetting.policy_save",
            namespace_id=namespace.pk,
            target_type="forgetting_policy",
            target_id=str(stored.pk),
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
