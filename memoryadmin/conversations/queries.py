"""Reads of sessions and messages, shared by the API and the operators' console."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.db import connection
from django.db.models import Count, Sum

from memoryadmin.conversations.models import Message, MessageKind, Session
from memoryadmin.core.errors import found
from memoryadmin.core.estimates import Estimate, estimate
from memoryadmin.core.pagination import Page, clamp_limit, keyset_page, narrowed
from memoryadmin.tenancy.models import Namespace


def session_get(namespace: Namespace, session_id: str) -> Session:
    return found(Session.objects.filter(namespace=namespace, session_id=session_id), "session not found")


def session_by_pk(session_pk: int) -> Session | None:
    """A session by its primary key, whichever namespace it is in (loaded with it)."""
    return Session.objects.select_related("namespace").filter(pk=session_pk).first()


def session_namespace_id(session_pk: int) -> int | None:
    return Session.objects.filter(pk=session_pk).values_list("namespace_id", flat=True).first()


def sessions_in_bulk(session_pks: Sequence[int]) -> dict[int, Session]:
    return Session.objects.in_bulk(list(session_pks))


def sessions_estimate(namespace_ids: Sequence[int], *, user_id: str | None = None) -> Estimate:
    """How many sessions the namespaces hold (of one person): exact up to a cap, then estimated."""
    qs = Session.objects.filter(namespace_id__in=list(namespace_ids))
    if user_id is not None:
        qs = qs.filter(user_id=user_id)
    return estimate(qs)


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


def sessions_page(
    namespace: Namespace,
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    cursor: str | None = None,
    limit: int | None = None,
    oldest_first: bool = False,
) -> Page[Session]:
    """Newest (or oldest) activity first, keyset-paginated on (last_activity_at, id)."""
    limit = clamp_limit(limit)
    qs = narrowed(Session.objects.filter(namespace=namespace), user_id=user_id, agent_id=agent_id)
    key = ("last_activity_at", "id")
    return keyset_page(qs, tag="sessions", key=key, cursor=cursor, limit=limit, oldest_first=oldest_first)


def messages_page(
    session: Session,
    *,
    after_seq: int = 0,
    include_injected: bool = False,
    cursor: str | None = None,
    limit: int | None = None,
) -> Page[Message]:
    """In seq order from `after_seq` (or the cursor); injected guidance only when asked for."""
    limit = clamp_limit(limit)
    qs = Message.objects.filter(session=session)
    # A cursor says where the list goes on by itself; `after_seq` only starts it.
    if not cursor:
        qs = qs.filter(seq__gt=after_seq)
    if not include_injected:
        qs = qs.filter(kind=MessageKind.MESSAGE)
    return keyset_page(qs, tag="messages", key=("seq",), cursor=cursor, limit=limit, descending=False)


def messages_after(session: Session, *, after_seq: int, limit: int) -> list[Message]:
    """Up to `limit` messages after `after_seq` in seq order, injected guidance included (a transcript)."""
    return list(Message.objects.filter(session=session, seq__gt=after_seq).order_by("seq")[:limit])


def estimate_tokens(text: str) -> int:
    """A tokenizer-free estimate: about four characters a token."""
    return (len(text) + 3) // 4


def messages_within_budget(
    session: Session, *, token_budget: int, include_injected: bool = False, batch: int = 100
) -> tuple[list[Message], bool]:
    """The newest messages whose estimated tokens fit the budget, oldest first; and whether older ones were left out."""
    chosen: list[Message] = []
    spent = 0
    before_seq: int | None = None
    while True:
        qs = Message.objects.filter(session=session)
        if not include_injected:
            qs = qs.filter(kind=MessageKind.MESSAGE)
        if before_seq is not None:
            qs = qs.filter(seq__lt=before_seq)
        rows = list(qs.order_by("-seq")[:batch])
        for message in rows:
            cost = estimate_tokens(message.content)
            if spent + cost > token_budget:
                chosen.reverse()
                return chosen, True
            spent += cost
            chosen.append(message)
        if len(rows) < batch:
            chosen.reverse()
            return chosen, False
        before_seq = rows[-1].seq


def last_user_message(session: Session) -> Message | None:
    return Message.objects.filter(session=session, role="user", kind=MessageKind.MESSAGE).order_by("-seq").first()


# A loose index scan of the partial index `message_unextracted` (session_id, seq) WHERE extracted_at IS NULL:
# each step jumps to the next session that has an unextracted message, and the LATERAL reads that
# session's oldest one. The cost follows how many sessions wait for extraction, never how many messages
# the table holds; rows come out in session order, so `after` pages through them.
_WAITING_SQL = f"""
    WITH RECURSIVE waiting(session_id) AS (
        (SELECT session_id FROM {Message._meta.db_table}
         WHERE extracted_at IS NULL AND session_id > %(after)s ORDER BY session_id LIMIT 1)
        UNION ALL
        SELECT (SELECT m.session_id FROM {Message._meta.db_table} m
                WHERE m.extracted_at IS NULL AND m.session_id > waiting.session_id ORDER BY m.session_id LIMIT 1)
        FROM waiting WHERE waiting.session_id IS NOT NULL
    )
    SELECT waiting.session_id, s.namespace_id
    FROM waiting
    CROSS JOIN LATERAL (
        SELECT m.persisted_at FROM {Message._meta.db_table} m
        WHERE m.session_id = waiting.session_id AND m.extracted_at IS NULL ORDER BY m.seq LIMIT 1
    ) oldest
    JOIN {Session._meta.db_table} s ON s.id = waiting.session_id
    WHERE oldest.persisted_at < %(before)s
    LIMIT %(limit)s
"""


def sessions_waiting_for_extraction(*, persisted_before: datetime, after: int = 0, limit: int) -> list[tuple[int, int]]:
    """(session pk, namespace id) of sessions with a message left unextracted since before `persisted_before`.

    In session pk order, from the first pk above `after`; at most `limit` of them.
    """
    with connection.cursor() as cursor:
        cursor.execute(_WAITING_SQL, {"after": after, "before": persisted_before, "limit": limit})
        return [(session_pk, namespace_id) for session_pk, namespace_id in cursor.fetchall()]


def unextracted_messages(
    session_pk: int, *, after_seq: int, upto_seq: int, fields: Sequence[str], limit: int
) -> list[tuple[Any, ...]]:
    """`fields` of the session's unextracted messages in (after_seq, upto_seq], in seq order: rows, not
    instances, for a run that reads hundreds of them."""
    return list(
        Message.objects.filter(session_id=session_pk, extracted_at__isnull=True, seq__gt=after_seq, seq__lte=upto_seq)
        .order_by("seq")
        .values_list(*fields)[:limit]
    )


def has_unextracted_messages(session_pk: int, *, after_seq: int = 0) -> bool:
    return Message.objects.filter(session_id=session_pk, extracted_at__isnull=True, seq__gt=after_seq).exists()


def session_message_count(session_pk: int) -> int | None:
    """The session's message counter, or None when the session is gone."""
    return Session.objects.filter(pk=session_pk).values_list("message_count", flat=True).first()


def sessions_with_unextracted_messages(session_pks: Sequence[int]) -> set[int]:
    """Which of these sessions still have a message no run has marked."""
    if not session_pks:
        return set()
    return set(
        Message.objects.filter(session_id__in=session_pks, extracted_at__isnull=True)
        .values_list("session_id", flat=True)
        .distinct()
    )


def sessions_per_namespace(user_id: str, namespace_ids: Sequence[int]) -> dict[int, tuple[int, int]]:
    """Where one person has sessions: {namespace id: (sessions, messages)}, in one grouped query.

    Messages are the sessions' counters, so no message row is read.
    """
    rows = (
        Session.objects.filter(namespace_id__in=list(namespace_ids), user_id=user_id)
        .order_by()
        .values("namespace_id")
        .annotate(sessions=Count("id"), messages=Sum("message_count"))
        .values_list("namespace_id", "sessions", "messages")
    )
    return {ns: (sessions, messages or 0) for ns, sessions, messages in rows}
