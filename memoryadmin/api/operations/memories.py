"""Long-term memories: remember, read, search, pin and forget, as the contract's operations."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import fields
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from memoryadmin.api.pages import page_answer
from memoryadmin.api.schemas.memories import MemoryIn, SearchIn
from memoryadmin.audit.services import Actor
from memoryadmin.core.errors import Conflict
from memoryadmin.core.pagination import Page
from memoryadmin.memories.enums import MemorySource
from memoryadmin.memories.queries import TimeFilters, memories_search, memory_get
from memoryadmin.memories.representations import memory_dict
from memoryadmin.memories.search.engine import SearchHit
from memoryadmin.memories.services import (
    Outcome,
    Statement,
    WriteResult,
    forgotten_label,
    memories_apply_statements,
    memory_create,
    memory_forget,
    memory_pin,
    memory_unpin,
    user_lock_sql,
)
from memoryadmin.tenancy.models import Namespace


def tombstoned() -> Conflict:
    """The error of a text a tombstone forbids for its user (409 `tombstoned`)."""
    return Conflict("a tombstone forbids this text for this user", code="tombstoned")


def memory_answer(memory: Any) -> dict[str, Any]:
    """The memory as the contract shows it, read with `pinned` annotated (memoryadmin.memories.queries)."""
    return memory_dict(memory, pinned=memory.pinned)


def memory_remember(*, namespace: Namespace, actor: Actor, args: MemoryIn) -> WriteResult:
    """Store one memory, or find the same text already held; a tombstoned text is refused. A memory stating an
    attribute settles its history in the same transaction: the one said last is current (the same text said again
    with a later `stated_at` too)."""
    labels = {"topics": args.topics, "entities": args.entities, "metadata": args.metadata, "subject": args.subject}
    if (field := forgotten_label(namespace.pk, args.user_id, labels)) is not None:
        raise Conflict(
            f"a tombstone forbids a text of {field} for this user", code="tombstoned", details={"field": field}
        )
    with transaction.atomic():
        if args.attribute:
            # The person's lock before the text's, in the order an extraction run takes them (core/locks.py).
            sql, params = user_lock_sql(namespace.pk, [args.user_id])
            with connection.cursor() as cursor:
                cursor.execute(sql, params)
        result = memory_create(
            namespace=namespace,
            user_id=args.user_id,
            text=args.text,
            actor=actor,
            source=MemorySource.API,
            session_id=args.session_id or "",
            agent_id=args.agent_id or "",
            memory_type=args.memory_type,
            topics=args.topics,
            entities=args.entities,
            metadata=args.metadata,
            pinned=args.pinned,
            stated_at=args.stated_at,
            event_date=args.event_date,
            event_date_precision=args.event_date_precision or "",
            attribute=args.attribute or "",
            subject=args.subject or "",
        )
        if result.outcome is Outcome.SUPPRESSED or result.memory is None:
            raise tombstoned()
        memory = result.memory
        if args.attribute and memory.attribute:
            said = memory.stated_at if result.outcome is Outcome.CREATED else (args.stated_at or timezone.now())
            statement = Statement(memory_id=memory.pk, user_id=memory.user_id, stated_at=said)
            settled = memories_apply_statements(
                namespace=namespace, actor=actor, statements=[statement], users_locked=True
            )
            if settled.changed or result.outcome is not Outcome.CREATED:
                # Said before the current one (history imported out of order), or said again: as it now stands.
                memory.refresh_from_db(fields=["status", "superseded_by", "superseded_at", "stated_at"])
    return result


def _times(args: SearchIn) -> TimeFilters:
    """The search's bounds in time: its arguments name them as TimeFilters does."""
    return TimeFilters(**{bound.name: getattr(args, bound.name) for bound in fields(TimeFilters)})


def _search_hits(namespace: Namespace, args: SearchIn) -> Page[SearchHit]:
    return memories_search(
        namespace,
        query=args.query,
        user_id=args.user_id,
        session_id=args.session_id,
        agent_id=args.agent_id,
        memory_types=args.memory_types,
        topics=args.topics,
        entities=args.entities,
        status=args.status,
        pinned=args.pinned,
        created_after=args.created_after,
        created_before=args.created_before,
        times=_times(args),
        as_of=args.as_of,
        recency=args.recency.as_recency() if args.recency else None,
        limit=args.limit,
        cursor=args.cursor,
        syntax=args.syntax,
        explain=args.explain,
    )


def search_answer(namespace: Namespace, args: SearchIn, *, fields: Sequence[str] | None = None) -> dict[str, Any]:
    """A page of search hits for the arguments of a search, as the contract shows it; `fields` keeps only
    those of each memory."""

    def shown(hit: SearchHit) -> dict[str, Any]:
        memory = memory_answer(hit.memory)
        if fields is not None:
            memory = {name: memory[name] for name in fields}
        item: dict[str, Any] = {"memory": memory, "score": hit.score}
        if hit.explain is not None:
            item["explain"] = hit.explain
        return item

    return page_answer(_search_hits(namespace, args), shown)


def memory_forget_one(
    *,
    namespace: Namespace,
    memory_id: uuid.UUID,
    actor: Actor,
    reason: str = "",
    force: bool = False,
    expected_revision: int | None = None,
) -> Any:
    """Forget the namespace's memory by its id (404 for another namespace's); the forgotten memory."""
    memory = memory_get(namespace, memory_id)
    memory_forget(memory=memory, actor=actor, reason=reason, force=force, expected_revision=expected_revision)
    return memory


def memory_pin_set(*, namespace: Namespace, memory_id: uuid.UUID, pinned: bool, actor: Actor, reason: str = "") -> Any:
    """Pin the namespace's memory, or unpin it; the memory as the change left it."""
    change = memory_pin if pinned else memory_unpin
    return change(memory=memory_get(namespace, memory_id), actor=actor, reason=reason)
