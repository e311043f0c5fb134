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
from django.utils import timezone

from memoryadmin.audit.services import Actor, AuditEntry, audit_record_many
from memoryadmin.memories.models import Memory, MemoryStatus
from memoryadmin.tenancy.models import Namespace

# Advisory locks of one user's supersession groups; the prefix keeps clear of other lock users.
_LOCK_PREFIX = 0x7375


@dataclass(frozen=True)
class Statement:
    """A memory was (re)stated at `stated_at`; `replaces` names memories it explicitly updates."""

    memory_id: uuid.UUID
    stated_at: datetime | None
    replaces: tuple[uuid.UUID, ...] = ()


@dataclass
class SupersessionResult:
    superseded: list[tuple[uuid.UUID, uuid.UUID]] = field(default_factory=list)  # (old, by)
    reinstated: list[uuid.UUID] = field(default_factory=list)

    @property
    def changed(self) -> int:
        return len(self.superseded) + len(self.reinstated)


def memories_apply_statements(
    *, namespace: Namespace, actor: Actor, statements: Sequence[Statement]
) -> SupersessionResult:
    """Record when memories were stated and settle their groups: newest current, the rest superseded.

    Set-based: one statement records the times, one reads the affected groups, one
    writes the changes, and the audit events go in one insert. Runs inside the
    caller's transaction when there is one. A user's groups are settled by one
    writer at a time (an advisory lock per user), so two runs adding different
    values at once still leave exactly one current memory.
    """
    result = SupersessionResult()
    if not statements:
        return result
    with transaction.atomic():
        stated = _record_stated_at(namespace, statements)
        if not stated:
            return result
        users = sorted({user_id for user_id, _, _ in stated.values()})
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_advisory_xact_lock((%s::bigint << 48) | (hashtextextended(%s || ':' || u, 0) "
                "& x'ffffffffffff'::bigint)) FROM unnest(%s::text[]) AS u ORDER BY u",
                [_LOCK_PREFIX, str(namespace.pk), users],
            )
        explicit = _explicit_replacements(namespace, statements, stated)
        keys = {(user_id, subject, attribute) for user_id, subject, attribute in stated.values() if attribute}
        rows = _group_rows(namespace, keys)
        now = timezone.now()
        changes: dict[uuid.UUID, tuple[str, uuid.UUID | None]] = {}
        for members in rows.values():
            live = [m for m in members if m.status in (MemoryStatus.ACTIVE, MemoryStatus.SUPERSEDED)]
            if not live:
                continue
            current = max(live, key=lambda m: (m.when, str(m.id)))
            if current.status == MemoryStatus.SUPERSEDED:
                changes[current.id] = (MemoryStatus.ACTIVE, None)
            for member in live:
                if member is not current and member.status == MemoryStatus.ACTIVE:
                    changes[member.id] = (MemoryStatus.SUPERSEDED, current.id)
        for old_id, row in explicit.items():
            if row.status == MemoryStatus.ACTIVE and old_id not in changes:
                changes[old_id] = (MemoryStatus.SUPERSEDED, row.by)
        if not changes:
            return result
        _write_changes(changes, now)
        entries = []
        user_of = {m.id: m.user_id for members in rows.values() for m in members}
        user_of.update({old_id: row.user_id for old_id, row in explicit.items()})
        for memory_id, (status, by) in changes.items():
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
                    user_id=user_of[memory_id],
                    data={"superseded_by": str(by)} if by else {"reason": "stated again, newest of its attribute"},
                )
            )
        audit_record_many(entries)
    return result


def _record_stated_at(namespace: Namespace, statements: Sequence[Statement]) -> dict[uuid.UUID, tuple[str, str, str]]:
    """Move each memory's `stated_at` forward to its statement; returns (user, subject, attribute) per memory.

    Only active and superseded memories of the namespace count: a candidate waits for review.
    """
    latest: dict[uuid.UUID, datetime | None] = {}
    for statement in statements:
        known = latest.get(statement.memory_id)
        if statement.memory_id not in latest or (
            statement.stated_at and (known is None or statement.stated_at > known)
        ):
            latest[statement.memory_id] = statement.stated_at
    ids = list(latest)
    times = [latest[pk] for pk in ids]
    with connection.cursor() as cursor:
        cursor.execute(
            """
            WITH s AS (SELECT * FROM unnest(%s::uuid[], %s::timestamptz[]) AS s(id, at)),
            moved AS (
                UPDATE memories_memory m SET stated_at = s.at
                FROM s
                WHERE m.id = s.id AND m.namespace_id = %s AND s.at IS NOT NULL
                  AND (m.stated_at IS NULL OR m.stated_at < s.at)
                RETURNING m.id
            )
            SELECT m.id, m.user_id, m.subject, m.attribute
            FROM memories_memory m JOIN s ON s.id = m.id
            WHERE m.namespace_id = %s AND m.status IN (%s, %s)
            """,
            [ids, times, namespace.pk, namespace.pk, MemoryStatus.ACTIVE, MemoryStatus.SUPERSEDED],
        )
        return {pk: (user_id, subject, attribute) for pk, user_id, subject, attribute in cursor.fetchall()}


@dataclass
class _Row:
    id: uuid.UUID
    user_id: str
    subject: str
    attribute: str
    status: str
    when: datetime
    by: uuid.UUID | None = None


def _group_rows(namespace: Namespace, keys: set[tuple[str, str, str]]) -> dict[tuple[str, str, str], list[_Row]]:
    if not keys:
        return {}
    ordered = sorted(keys)
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT m.id, m.user_id, m.subject, m.attribute, m.status, coalesce(m.stated_at, m.created_at)
            FROM memories_memory m
            JOIN unnest(%s::text[], %s::text[], %s::text[]) AS k(u, s, a)
              ON m.user_id = k.u AND m.attribute = k.a AND m.subject = k.s
            WHERE m.namespace_id = %s AND m.attribute <> ''
            ORDER BY m.id
            """,
            [[k[0] for k in ordered], [k[1] for k in ordered], [k[2] for k in ordered], namespace.pk],
        )
        groups: dict[tuple[str, str, str], list[_Row]] = {}
        for row in cursor.fetchall():
            member = _Row(*row)
            groups.setdefault((member.user_id, member.subject, member.attribute), []).append(member)
    return groups


def _explicit_replacements(
    namespace: Namespace, statements: Sequence[Statement], stated: dict[uuid.UUID, tuple[str, str, str]]
) -> dict[uuid.UUID, _Row]:
    """Memories named as replaced by a stated one, to supersede directly: of the same user and not newer.

    A replacing memory with no attribute of its own takes the replaced one's (written here,
    and into `stated`), so its group settles both and the next update of it finds them.
    """
    wanted: dict[uuid.UUID, uuid.UUID] = {}
    for statement in statements:
        if statement.memory_id in stated:
            for old in statement.replaces:
                if old != statement.memory_id:
                    wanted[old] = statement.memory_id
    if not wanted:
        return {}
    columns = ("id", "user_id", "subject", "attribute", "status", "stated_at", "created_at")
    rows = {
        row[0]: row
        for row in Memory.objects.filter(namespace=namespace, pk__in=[*wanted, *wanted.values()]).values_list(*columns)
    }
    direct: dict[uuid.UUID, _Row] = {}
    for old, by in wanted.items():
        if old not in rows or by not in rows:
            continue
        _, user_id, subject, attribute, status, stated_at, created_at = rows[old]
        new_user, _, new_attribute = stated[by]
        newer = rows[by][5] or rows[by][6]
        if user_id != new_user or (stated_at or created_at) > newer:
            continue
        if attribute and not new_attribute:
            Memory.objects.filter(pk=by).update(subject=subject, attribute=attribute)
            stated[by] = (new_user, subject, attribute)
        if not (attribute and stated[by][1:] == (subject, attribute)):
            direct[old] = _Row(old, user_id, subject, attribute, status, stated_at or created_at, by)
    return direct


def _write_changes(changes: dict[uuid.UUID, tuple[str, uuid.UUID | None]], now: datetime) -> None:
    ids = sorted(changes)
    with connection.cursor() as cursor:
        cursor.execute(
            """
            UPDATE memories_memory m
            SET status = c.status,
                superseded_by = c.by,
                superseded_at = CASE WHEN c.status = %s THEN %s::timestamptz END,
                updated_at = %s
            FROM unnest(%s::uuid[], %s::text[], %s::uuid[]) AS c(id, status, by)
            WHERE m.id = c.id
            """,
            [
                MemoryStatus.SUPERSEDED,
                now,
                now,
                ids,
                [changes[pk][0] for pk in ids],
                [changes[pk][1] for pk in ids],
            ],
        )
