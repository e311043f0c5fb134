"""Reads of sessions and messages, shared by the API and the operators' console."""

from __future__ import annotations

from datetime import datetime

from django.db.models import BooleanField
from django.db.models.expressions import RawSQL

from memoryadmin.conversations.models import Message, MessageKind, Session
from memoryadmin.core.errors import NotFound
from memoryadmin.core.pagination import Page, clamp_limit, decode_cursor, encode_cursor
from memoryadmin.tenancy.models import Namespace


def session_get(namespace: Namespace, session_id: str) -> Session:
    session = Session.objects.filter(namespace=namespace, session_id=session_id).first()
    if session is None:
        raise NotFound("session not found")
    return session


def session_exists(namespace: Namespace, session_id: str) -> bool:
    return Session.objects.filter(namespace=namespace, session_id=session_id).exists()


def sessions_page(
    namespace: Namespace,
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    cursor: str | None = None,
    limit: int | None = None,
) -> Page[Session]:
    """Newest activity first, keyset-paginated on (last_activity_at, id)."""
    limit = clamp_limit(limit)
    qs = Session.objects.filter(namespace=namespace)
    if user_id is not None:
        qs = qs.filter(user_id=user_id)
    if agent_id is not None:
        qs = qs.filter(agent_id=agent_id)
    if cursor:
        activity, last_pk = decode_cursor(cursor, "sessions", (datetime, int))
        # A row comparison, so PostgreSQL can start the index scan at the cursor.
        qs = qs.filter(
            RawSQL(
                '("conversations_session"."last_activity_at", "conversations_session"."id") < (%s, %s)',
                (activity, last_pk),
                output_field=BooleanField(),
            )
        )
    rows = list(qs.order_by("-last_activity_at", "-id")[: limit + 1])
    next_cursor = None
    if len(rows) > limit:
        rows = rows[:limit]
        next_cursor = encode_cursor("sessions", (rows[-1].last_activity_at, rows[-1].pk))
    return Page(rows, next_cursor)


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
    if cursor:
        (after_seq,) = decode_cursor(cursor, "messages", (int,))
    qs = Message.objects.filter(session=session, seq__gt=after_seq)
    if not include_injected:
        qs = qs.filter(kind=MessageKind.MESSAGE)
    rows = list(qs.order_by("seq")[: limit + 1])
    next_cursor = None
    if len(rows) > limit:
        rows = rows[:limit]
        next_cursor = encode_cursor("messages", (rows[-1].seq,))
    return Page(rows, next_cursor)


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
