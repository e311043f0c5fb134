"""Knowledge updates: a newer memory about the same subject and attribute supersedes the older ones.

A memory that states a single-valued attribute of someone (`attribute` set: where
they live, their car, their employer) belongs to a group with every other memory
of the same user, subject and attribute. Of a group's active and superseded
memories, the one stated last (`stated_at`, else `created_at`) is current and
active; every other one is `superseded`, with `superseded_by` naming the current
one and `superseded_at` the moment it was replaced. The old memory stays as
history: search and context leave it out (they return active memories), the
console shows it with what replaced it.

Said again, a superseded fact is an exact duplicate of its old memory: the
statement moves that memory's `stated_at` forward, and it becomes current again
only if it is now the newest statement of its group. Candidates (awaiting
review) take no part until they are approved.

An explicit replacement (a model naming the memory a new one updates) supersedes
the named memory even when it states no attribute, provided it is older.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from memoryadmin.audit.services import Actor, AuditEntry, audit_record_many
from memoryadmin.memories.models import Memory, MemoryStatus
from memoryadmin.tenancy.models import Namespace

# Advisory locks of one user's supersession groups; the prefix keeps clear of other lock users.
_LOCK_PREFIX = 0x7375


@dataclass(frozen=True)
class Statement:
    """A memory of `user_id` was (re)stated at `stated_at`; `replaces` names memories it explicitly updates."""

    memory_id: uuid.UUID
    user_id: str
    stated_at: datetime | None
    replaces: tuple[uuid.UUID, ...] = ()


def user_lock_sql(namespace_id: int, user_ids: Sequence[str]) -> tuple[str, list[object]]:
    """A SELECT that takes the advisory locks under which one writer at a time settles these users' groups.

    A caller that writes in bulk (an extraction run) may take them with its own locks, in one
    statement, and tell `memories_apply_statements` so with `users_locked`.
    """
    return (
        "SELECT pg_advisory_xact_lock((%s::bigint << 48) | (hashtextextended(%s || ':' || u, 0) "
        "& x'ffffffffffff'::bigint)) FROM unnest(%s::text[]) AS u ORDER BY u",
        [_LOCK_PREFIX, str(namespace_id), sorted(set(user_ids))],
    )


@dataclass
class SupersessionResult:
    superseded: list[tuple[uuid.UUID, uuid.UUID]] = field(default_factory=list)  # (old, by)
    reinstated: list[uuid.UUID] = field(default_factory=list)

    @property
    def changed(self) -> int:
        return len(self.superseded) + len(self.reinstated)


def memories_apply_statements(
    *, namespace: Namespace, actor: Actor, statements: Sequence[Statement], users_locked: bool = False
) -> SupersessionResult:
    """Record when memories stating an attribute were said and settle their groups: newest current, the rest
    superseded.

    One statement moves the times forward, reads the groups, ranks them and writes the changes; the
    audit events go in one insert. Runs inside the caller's transaction when there is one. A user's
    groups are settled by one writer at a time (an advisory lock per user, `user_lock_sql`), so two
    runs adding different values at once still leave exactly one current memory. A memory that states
    no attribute takes part only through an explicit replacement.
    """
    result = SupersessionResult()
    if not statements:
        return result
    with transaction.atomic(savepoint=False):
        if not users_locked:
            with connection.cursor() as cursor:
                cursor.execute(*user_lock_sql(namespace.pk, [s.user_id for s in statements]))
        direct = _explicit_replacements(namespace, statements) if any(s.replaces for s in statements) else {}
        now = timezone.now()
        changes = _settle(namespace, statements, now)
        for old_id, (user_id, by) in direct.items():
            if old_id not in changes and _supersede_one(old_id, by, now):
                changes[old_id] = (user_id, MemoryStatus.SUPERSEDED, by)
        if not changes:
            return result
        entries = []
        for memory_id, (user_id, status, by) in changes.items():
            if status == MemoryStatus.SUPERSEDED:
                result.superseded.append((memory_id, by))  # type: ignore[arg-type]
            else:
                result.reinstated.append(memory_id)
            entries.append(
                AuditEntry(
                    actor=actor,
                    action="memory.supersede" if status == MemoryStatus.SUPERSEDED else "memory.reinstate",
                    namespace_id=namespace.pk,
                    target_type="memory",
                    target_id=str(memory_id),
                    user_id=user_id,
                    data={"superseded_by": str(by)} if by else {"reason": "stated again, newest of its attribute"},
                )
            )
        audit_record_many(entries)
    return result


_SETTLE = """
WITH input AS (
    -- A statement's place in the batch orders two said at one moment: "last day at Deloitte today!! starting at
    -- KPMG on monday" leaves the later one current.
    SELECT id, max(at) AS at, max(ord) AS ord
    FROM unnest(%(ids)s::uuid[], %(ats)s::timestamptz[]) WITH ORDINALITY AS i(id, at, ord) GROUP BY id
),
stated AS (
    -- One primary-key lookup per id. Joined to the input alone, the planner, misled by statistics a
    -- batch of fresh inserts has not reached yet, may scan all of the namespace's memories with an
    -- attribute instead: a cost that grows with the namespace. OFFSET 0 keeps the lookup a lookup.
    SELECT m.id, m.user_id, m.subject, m.attribute, i.at, i.ord
    FROM input i CROSS JOIN LATERAL (
        SELECT id, user_id, subject, attribute FROM memories_memory
        WHERE id = i.id AND namespace_id = %(namespace)s AND attribute <> '' AND status IN ('active', 'superseded')
        OFFSET 0
    ) m
),
members AS (
    -- Each group read through its index (memory_attribute), for the same reason.
    SELECT m.id, m.user_id, m.subject, m.attribute, m.status, s.at AS new_at,
           greatest(coalesce(m.stated_at, m.created_at), s.at) AS at, coalesce(s.ord, 0) AS ord
    FROM (SELECT DISTINCT user_id, subject, attribute FROM stated) k
    CROSS JOIN LATERAL (
        SELECT id, user_id, subject, attribute, status, stated_at, created_at FROM memories_memory
        WHERE namespace_id = %(namespace)s AND user_id = k.user_id AND attribute = k.attribute
          AND subject = k.subject AND attribute <> '' AND status IN ('active', 'superseded')
        OFFSET 0
    ) m
    LEFT JOIN stated s ON s.id = m.id
),
ranked AS (
    SELECT members.*, first_value(id) OVER (
        PARTITION BY user_id, subject, attribute ORDER BY at DESC, ord DESC, id::text DESC
    ) AS current
    FROM members
)
UPDATE memories_memory m
SET stated_at = CASE WHEN r.new_at > coalesce(m.stated_at, '-infinity') THEN r.new_at ELSE m.stated_at END,
    status = CASE WHEN r.id = r.current THEN 'active' ELSE 'superseded' END,
    superseded_by = CASE WHEN r.id = r.current THEN NULL WHEN m.status = 'superseded' THEN m.superseded_by
                         ELSE r.current END,
    superseded_at = CASE WHEN r.id = r.current THEN NULL WHEN m.status = 'superseded' THEN m.superseded_at
                         ELSE %(now)s END,
    updated_at = CASE WHEN (r.id = r.current) = (m.status = 'active') THEN m.updated_at ELSE %(now)s END
FROM ranked r
WHERE m.id = r.id
  AND (r.new_at > coalesce(m.stated_at, '-infinity')
       OR (r.id = r.current AND m.status = 'superseded')
       OR (r.id <> r.current AND m.status = 'active'))
RETURNING m.id, m.user_id, m.status, m.superseded_by, r.status <> m.status
"""


def _settle(
    namespace: Namespace, statements: Sequence[Statement], now: datetime
) -> dict[uuid.UUID, tuple[str, str, uuid.UUID | None]]:
    """Settle the groups of the stated memories in one statement; returns the status changes it made."""
    with connection.cursor() as cursor:
        cursor.execute(
            _SETTLE,
            {
                "ids": [s.memory_id for s in statements],
                "ats": [s.stated_at for s in statements],
                "namespace": namespace.pk,
                "now": now,
            },
        )
        return {pk: (user_id, status, by) for pk, user_id, status, by, changed in cursor.fetchall() if changed}


def _supersede_one(memory_id: uuid.UUID, by: uuid.UUID, now: datetime) -> bool:
    return bool(
        Memory.objects.filter(pk=memory_id, status=MemoryStatus.ACTIVE).update(
            status=MemoryStatus.SUPERSEDED, superseded_by=by, superseded_at=now, updated_at=now
        )
    )


def _explicit_replacements(
    namespace: Namespace, statements: Sequence[Statement]
) -> dict[uuid.UUID, tuple[str, uuid.UUID]]:
    """Memories named as replaced by a stated one, of the same user and not newer: old id -> (user, by).

    A replacing memory with no attribute of its own takes the replaced one's (written here), so its
    group settles both and the next update of that attribute finds it; those are left to the group.
    """
    wanted = {old: s.memory_id for s in statements for old in s.replaces if old != s.memory_id}
    columns = ("id", "user_id", "subject", "attribute", "status", "stated_at", "created_at")
    # The batch's other statements matter only for the users who replace something, and only with an attribute.
    replacing = {s.user_id for s in statements if s.replaces}
    stated = [s.memory_id for s in statements if s.user_id in replacing]
    rows = {
        row[0]: row
        for row in Memory.objects.filter(
            Q(pk__in=[*wanted, *wanted.values()]) | Q(pk__in=stated, attribute__gt=""), namespace=namespace
        ).values_list(*columns)
    }
    # The histories the batch itself states a value of, and when ("I quit St Mary's! Starting at Leeds General").
    restated: dict[tuple[str, str, str], list[tuple[uuid.UUID, datetime]]] = {}
    for pk in stated:
        if pk in rows and rows[pk][3]:
            _, user, subject, attribute, _, stated_at, created_at = rows[pk]
            restated.setdefault((user, subject, attribute), []).append((pk, stated_at or created_at))
    live = (MemoryStatus.ACTIVE, MemoryStatus.SUPERSEDED)

    def said_anew(old: uuid.UUID) -> bool:
        """Whether the batch states a new value of what `old` stated, after it."""
        _, user_id, subject, attribute, _, stated_at, created_at = rows[old]
        history = restated.get((user_id, subject, attribute), []) if attribute else []
        return any(pk != old and at >= (stated_at or created_at) for pk, at in history)

    # A leaving told with its new value ("I quit St Mary's! Starting at Leeds General") is an episode of that
    # change: it takes no value of its own, whatever else it ends ("nurse at St Mary's" is replaced, not become
    # "quit St Mary's").
    with_new_value = {by for old, by in wanted.items() if old in rows and by in rows and said_anew(old)}
    direct: dict[uuid.UUID, tuple[str, uuid.UUID]] = {}
    for old, by in wanted.items():
        if old not in rows or by not in rows:
            continue
        _, user_id, subject, attribute, _, stated_at, created_at = rows[old]
        _, new_user, new_subject, new_attribute, new_status, new_stated, new_created = rows[by]
        if user_id != new_user or new_status not in live or (stated_at or created_at) > (new_stated or new_created):
            continue
        if attribute and not new_attribute and said_anew(old):
            continue  # a new value said by the batch replaces the old one; the leaving is no value of its own
        if attribute and not new_attribute and by in with_new_value:
            direct[old] = (user_id, by)
            continue
        if attribute and not new_attribute:
            Memory.objects.filter(pk=by).update(subject=subject, attribute=attribute)
            rows[by] = (by, new_user, subject, attribute, new_status, new_stated, new_created)
            continue
        if attribute and (new_subject, new_attribute) == (subject, attribute):
            continue  # the same history: its group settles it
        direct[old] = (user_id, by)
    return direct
