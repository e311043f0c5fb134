"""Selecting memories to let go and letting them go, as set-based SQL on this app's tables.

Selection is one statement: age, inactivity and the hard-age multiplier mark memories
by rule, then a window over the recency score keeps the `budget` freshest of the rest;
pinned memories are never selected. Forgetting a selection drains it in batches inside
the caller's transaction: each batch deletes its memories (revisions, evidence, vectors
and every other child go with them by cascade) and leaves a tombstone for every text
each memory ever had, so no earlier revision's text can come back either (unless another
memory of the person holds that text now: it stays that memory's).
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import connection

from memoryadmin.core.fingerprints import subject_hmac
from memoryadmin.core.locks import TEXT_LOCK_CLASS, lock_namespace_writes
from memoryadmin.webhooks.outbox import OutboxEvent, outbox_add

DELETE_BATCH = 2000
FRESHNESS_HALF_LIFE_DAYS = 7.0
NOVELTY_HALF_LIFE_DAYS = 30.0
FRESHNESS_WEIGHT = 0.6
NOVELTY_WEIGHT = 0.4
# power(0.5, x) underflows to an error in PostgreSQL past ~1074; 0.5**1000 is already 0 for ranking. A time in
# the future (a row from before such times were refused) counts as now: a negative age would overflow it.
MAX_HALF_LIVES = 1000


@dataclass(frozen=True)
class ForgettingRules:
    """Which memories of a scope to select (all optional but the multiplier), as a policy gives them."""

    namespace_id: int
    now: datetime
    user_id: str | None = None
    session_id: str | None = None
    max_age_days: float | None = None
    max_inactive_days: float | None = None
    hard_age_multiplier: float = 12.0
    budget: int | None = None
    memory_types: tuple[str, ...] | None = None

    def params(self) -> dict[str, Any]:
        return {
            "now": self.now,
            "namespace_id": self.namespace_id,
            "user_id": self.user_id or None,
            "session_id": self.session_id or None,
            "max_age": self.max_age_days,
            "max_idle": self.max_inactive_days,
            "multiplier": self.hard_age_multiplier,
            "budget": self.budget,
            "types": list(self.memory_types) if self.memory_types else None,
        }


RANK_BY_RECENCY = f"""
    SELECT id, rule,
           row_number() OVER (
               PARTITION BY rule IS NULL
               ORDER BY {FRESHNESS_WEIGHT}
                            * power(0.5, LEAST(GREATEST(idle_days, 0) / {FRESHNESS_HALF_LIFE_DAYS}, {MAX_HALF_LIVES}))
                      + {NOVELTY_WEIGHT}
                            * power(0.5, LEAST(GREATEST(age_days, 0) / {NOVELTY_HALF_LIFE_DAYS}, {MAX_HALF_LIVES}))
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

# Tombstones for every distinct text a victim ever had: its current text and each revision's.
_FORGET_BATCH = """
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
texts AS (
    SELECT namespace_id, user_id, fingerprint, memory_type FROM victims
    UNION
    SELECT v.namespace_id, v.user_id, r.fingerprint, v.memory_type
    FROM victims v JOIN memories_memoryrevision r ON r.memory_id = v.id
    WHERE r.fingerprint <> ''
      -- An earlier text another memory of the person holds now stays that memory's.
      AND NOT EXISTS (
          SELECT 1 FROM memories_memory o
          WHERE o.namespace_id = v.namespace_id AND o.user_id = v.user_id AND o.fingerprint = r.fingerprint
            AND NOT EXISTS (SELECT 1 FROM victims w WHERE w.id = o.id)
      )
),
stones AS (
    INSERT INTO memories_tombstone (namespace_id, user_id, fingerprint, reason, text, memory_type, actor, created_at)
    SELECT DISTINCT ON (namespace_id, user_id, fingerprint)
           namespace_id, user_id, fingerprint, %(tombstone_reason)s, '', memory_type, %(actor)s, %(now)s
    FROM texts
    ON CONFLICT (namespace_id, user_id, fingerprint) DO NOTHING
    RETURNING 1
),
gone AS (DELETE FROM memories_memory m USING victims v WHERE m.id = v.id RETURNING m.id, v.reason, m.user_id)
SELECT id, reason, (SELECT count(*) FROM batch), (SELECT count(*) FROM stones), user_id FROM gone
UNION ALL
SELECT NULL, NULL, (SELECT count(*) FROM batch), (SELECT count(*) FROM stones), NULL
WHERE NOT EXISTS (SELECT 1 FROM gone)
"""


# The text locks of the next batch's memories (every text each ever had), in key order.
_LOCK_BATCH = """
SELECT count(*) FROM (
    SELECT pg_advisory_xact_lock(%(text_class)s, t.h) FROM (
        SELECT DISTINCT hashtext(m.namespace_id || ':' || m.user_id || ':' || f.fingerprint) AS h
        FROM (SELECT id FROM {table} ORDER BY id LIMIT %(limit)s) b
        JOIN memories_memory m ON m.id = b.id
        CROSS JOIN LATERAL (
            SELECT m.fingerprint
            UNION SELECT r.fingerprint FROM memories_memoryrevision r WHERE r.memory_id = m.id AND r.fingerprint <> ''
        ) f
    ) t
    ORDER BY t.h
) AS taken
"""


def selection_sql(rules: ForgettingRules) -> str:
    return SELECTION_TEMPLATE.format(ranking=RANK_BY_RECENCY if rules.budget is not None else NO_RANKING)


def _tune_for_selection(cursor: Any) -> None:
    """Give the selection's sorts room in memory and skip JIT, whose compile time outweighs it here.

    SET LOCAL lasts until the end of the caller's transaction; outside one it would not stick.
    """
    if connection.in_atomic_block:
        cursor.execute("SET LOCAL work_mem = '128MB'")
        cursor.execute("SET LOCAL jit = off")


@dataclass
class Selection:
    """A dry run: how many memories were looked at, and every selected id with its reason."""

    scanned: int
    rows: Iterator[tuple[uuid.UUID, str]]


def select_for_forgetting(rules: ForgettingRules) -> Selection:
    """Run the selection with a server-side cursor; rows stream in id order.

    Iterate `rows` inside the caller's transaction: the cursor is declared in it and closes with
    it, so it is safe behind a transaction pooler (outside one, Django would hold it open across
    transactions, on a server connection a pooler gives the next transaction to anyone).
    """
    assert connection.in_atomic_block, "select_for_forgetting runs inside the caller's transaction"
    with connection.cursor() as tuning:
        _tune_for_selection(tuning)
    cursor = connection.chunked_cursor()
    cursor.execute(selection_sql(rules), rules.params())
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
class Forgotten:
    scanned: int = 0
    selected: int = 0
    tombstones: int = 0
    reasons: Counter[str] = field(default_factory=Counter)
    ids: list[tuple[uuid.UUID, str]] = field(default_factory=list)

    @property
    def deleted(self) -> int:
        return sum(self.reasons.values())


def _tell_webhooks(namespace_id: int, forgotten: list[tuple[uuid.UUID, str, str]], tombstone_reason: str) -> None:
    """`memory.forgotten` for each memory of a batch, one insert (none without a subscribed endpoint)."""
    outbox_add(
        [
            OutboxEvent(
                namespace_id=namespace_id,
                event_type="memory.forgotten",
                data={"memory_id": str(memory_id), "tombstone_reason": tombstone_reason, "selected_for": why},
                target_id=str(memory_id),
                subject_key=subject_hmac(namespace_id, user_id),
            )
            for memory_id, why, user_id in forgotten
        ]
    )


def forget_selection(
    *, rules: ForgettingRules, tombstone_reason: str, actor: str, collect_ids: bool = True
) -> Forgotten:
    """Select and delete, inside the caller's transaction, with tombstones for every text.

    The selection is materialised once (a temporary table, the same single statement
    as the dry run), then drained in batches so no statement and no Python list grows
    with the namespace (unless `collect_ids`). A memory pinned after it was selected
    is left alone.
    """
    assert connection.in_atomic_block, "forget_selection runs inside the caller's transaction"
    table = f"forget_{uuid.uuid4().hex}"
    result = Forgotten()
    lock_namespace_writes(rules.namespace_id)
    with connection.cursor() as cursor:
        _tune_for_selection(cursor)
        cursor.execute(f"CREATE TEMPORARY TABLE {table} ON COMMIT DROP AS {selection_sql(rules)}", rules.params())
        cursor.execute(f"SELECT max(scanned), count(id) FROM {table}")
        scanned, selected = cursor.fetchone()
        result.scanned, result.selected = scanned or 0, selected or 0
        cursor.execute(f"DELETE FROM {table} WHERE id IS NULL")
        cursor.execute(f"ALTER TABLE {table} ADD PRIMARY KEY (id)")
        batch_sql, lock_sql = _FORGET_BATCH.format(table=table), _LOCK_BATCH.format(table=table)
        params = {"limit": DELETE_BATCH, "tombstone_reason": tombstone_reason, "actor": actor, "now": rules.now}
        while True:
            # No create of one of these texts can slip between their tombstones and the delete.
            cursor.execute(lock_sql, {"limit": DELETE_BATCH, "text_class": TEXT_LOCK_CLASS})
            cursor.execute(batch_sql, params)
            rows = cursor.fetchall()
            if not rows or rows[0][2] == 0:
                break
            result.tombstones += rows[0][3]
            forgotten = []
            for memory_id, why, _, _, user_id in rows:
                if memory_id is None:
                    continue
                result.reasons[why] += 1
                forgotten.append((memory_id, why, user_id))
                if collect_ids:
                    result.ids.append((memory_id, why))
            _tell_webhooks(rules.namespace_id, forgotten, tombstone_reason)
        cursor.execute(f"DROP TABLE {table}")
    result.ids.sort()
    return result
