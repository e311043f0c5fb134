from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone
from psycopg.types.json import Jsonb

from memoryadmin.audit.services import Actor, audit_about, audit_deleted
from memoryadmin.conversations.models import Message, MessageKind, Role, Session
from memoryadmin.conversations.signals import messages_appended
from memoryadmin.conversations.working_memory import working_memory_delete
from memoryadmin.core.app_ids import validate_app_id
from memoryadmin.core.errors import Conflict, InvalidInput
from memoryadmin.core.locks import lock_subject
from memoryadmin.core.rows import RowLoader
from memoryadmin.tenancy.models import Namespace


class UserIdRequired(InvalidInput, status=400, code="user_id_required"):
    """The contract answers a missing user_id for a new session with 400, not 422."""


@dataclass
class NewMessage:
    role: str
    content: str = ""
    kind: str = MessageKind.MESSAGE
    name: str = ""
    run_id: str = ""
    tool_calls: Any = None
    tool_call_id: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    created_at: datetime | None = None


def _clean_message(index: int, message: NewMessage) -> None:
    where = f"messages[{index}]"
    if message.role not in Role.values:
        raise InvalidInput(f"{where}.role must be one of {', '.join(Role.values)}", details={"field": f"{where}.role"})
    if message.kind not in MessageKind.values:
        raise InvalidInput(
            f"{where}.kind must be one of {', '.join(MessageKind.values)}", details={"field": f"{where}.kind"}
        )
    if "\x00" in message.content or "\x00" in message.name or "\x00" in message.tool_call_id:
        raise InvalidInput(f"{where} must not contain NUL characters", details={"field": where})
    limit = settings.MAX_MESSAGE_CONTENT_BYTES
    if len(message.content.encode()) > limit:
        raise InvalidInput(
            f"{where}.content exceeds {limit} bytes", details={"field": f"{where}.content", "limit_bytes": limit}
        )
    if message.run_id:
        validate_app_id(message.run_id, f"{where}.run_id")


def session_upsert(
    *,
    namespace: Namespace,
    session_id: str,
    user_id: str,
    agent_id: str = "",
    metadata: dict[str, Any] | None = None,
) -> tuple[Session, bool]:
    """Create the session or update its agent and metadata. The user of a session never changes."""
    validate_app_id(session_id, "session_id")
    validate_app_id(user_id, "user_id")
    if agent_id:
        validate_app_id(agent_id, "agent_id")
    with transaction.atomic():
        # A new session is a row about the person: it waits for an erasure of them in progress.
        lock_subject(namespace.pk, user_id)
        now = timezone.now()
        session, created = Session.objects.select_for_update().get_or_create(
            namespace=namespace,
            session_id=session_id,
            defaults={"user_id": user_id, "agent_id": agent_id, "metadata": metadata or {}, "last_activity_at": now},
        )
        if created:
            return session, True
        if session.user_id != user_id:
            raise Conflict("the session belongs to another user_id", code="user_mismatch")
        if agent_id:
            session.agent_id = agent_id
        if metadata is not None:
            session.metadata = metadata
        session.save(update_fields=["agent_id", "metadata", "updated_at"])
    return session, False


def session_append_messages(
    *,
    namespace: Namespace,
    session_id: str,
    messages: Sequence[NewMessage],
    user_id: str | None = None,
    agent_id: str = "",
) -> tuple[Session, list[Message]]:
    """Append messages atomically and in order; seqs are gap-free and never shared.

    The seq range is reserved by one UPDATE ... RETURNING on the session row,
    whose row lock makes concurrent appends to the same session queue up.
    """
    validate_app_id(session_id, "session_id")
    if not messages:
        raise InvalidInput("messages must not be empty", details={"field": "messages"})
    if len(messages) > settings.MAX_MESSAGES_PER_APPEND:
        raise InvalidInput(
            f"at most {settings.MAX_MESSAGES_PER_APPEND} messages per append", details={"field": "messages"}
        )
    for index, message in enumerate(messages):
        _clean_message(index, message)
    now = timezone.now()
    # The common case, an existing session, is one statement and so its own transaction: find the
    # session, reserve the seq range and insert the rows, with no BEGIN or COMMIT round trips.
    outcome, session, created = _append(namespace.pk, session_id, user_id, messages, now)
    if outcome == "missing":
        if not user_id:
            raise UserIdRequired("user_id is required to create a session", details={"field": "user_id"})
        with transaction.atomic():
            session_upsert(namespace=namespace, session_id=session_id, user_id=user_id, agent_id=agent_id)
            # Timed once the session is ours: an erasure this create waited for is over by then.
            now = timezone.now()
            outcome, session, created = _append(namespace.pk, session_id, user_id, messages, now)
    if outcome == "user_mismatch":
        raise Conflict("the session belongs to another user_id", code="user_mismatch")
    if session is None:
        # The session was deleted (or erased) while this append waited for its row lock;
        # recreating it here could bring an erased person back.
        raise Conflict("the session was deleted while appending", code="session_deleted")
    seqs = [m.seq for m in created]
    namespace_id, session_pk = namespace.pk, session.pk
    transaction.on_commit(
        lambda: messages_appended.send(
            sender=Session, namespace_id=namespace_id, session_pk=session_pk, seqs=seqs, namespace=namespace
        )
    )
    return session, created


_SESSIONS = RowLoader(Session, Session._meta.concrete_fields)
_SESSION_COLUMNS = ", ".join(_SESSIONS.columns("bumped"))
_MESSAGE_FIELDS = [f.attname for f in Message._meta.concrete_fields]

_APPEND_SQL = f"""
    WITH found AS (
        SELECT id, user_id FROM conversations_session WHERE namespace_id = %(namespace)s AND session_id = %(session)s
    ), bumped AS (
        UPDATE conversations_session s
        SET message_count = message_count + %(count)s, last_message_at = %(now)s, last_activity_at = %(now)s,
            updated_at = %(now)s
        FROM found
        WHERE s.id = found.id AND (%(user)s::text IS NULL OR s.user_id = %(user)s::text)
        RETURNING s.*
    ), inserted AS (
        INSERT INTO conversations_message
            (session_id, seq, role, kind, content, name, run_id, tool_calls, tool_call_id, metadata,
             created_at, persisted_at)
        SELECT bumped.id, bumped.message_count - %(count)s + r.ord, r.role, r.kind, r.content, r.name, r.run_id,
               r.tool_calls, r.tool_call_id, r.metadata, r.created_at, %(now)s
        FROM bumped, unnest(%(role)s::text[], %(kind)s::text[], %(content)s::text[], %(name)s::text[],
                            %(run_id)s::text[], %(tool_calls)s::jsonb[], %(tool_call_id)s::text[],
                            %(metadata)s::jsonb[], %(created_at)s::timestamptz[])
            WITH ORDINALITY AS r(role, kind, content, name, run_id, tool_calls, tool_call_id, metadata, created_at, ord)
        RETURNING id, seq
    )
    SELECT found.user_id, ARRAY(SELECT id FROM inserted ORDER BY seq), {_SESSION_COLUMNS}
    FROM found LEFT JOIN bumped ON bumped.id = found.id
"""


def _append(
    namespace_pk: int, session_id: str, user_id: str | None, messages: Sequence[NewMessage], now: datetime
) -> tuple[str, Session | None, list[Message]]:
    """Bump the session's counter by the batch's size and insert the batch, in one statement.

    Answers (outcome, session, messages), outcome being "appended", "missing" (no such session),
    "user_mismatch" (the session belongs to another user; nothing written) or "deleted" (the
    session went while the statement waited for its row lock; session is None). The
    UPDATE's row lock makes concurrent appends to one session queue up, so seqs are gap-free and a
    batch stays together. The Message instances are built from the input and the returned ids,
    without a second read.
    """
    count = len(messages)
    created_at = [m.created_at or now for m in messages]
    metadata = [m.metadata or {} for m in messages]
    with connection.cursor() as cursor:
        cursor.execute(
            _APPEND_SQL,
            {
                "namespace": namespace_pk,
                "session": session_id,
                "count": count,
                "now": now,
                "user": user_id or None,
                "role": [m.role for m in messages],
                "kind": [m.kind for m in messages],
                "content": [m.content for m in messages],
                "name": [m.name for m in messages],
                "run_id": [m.run_id for m in messages],
                "tool_calls": [None if m.tool_calls is None else Jsonb(m.tool_calls) for m in messages],
                "tool_call_id": [m.tool_call_id for m in messages],
                "metadata": [Jsonb(value) for value in metadata],
                "created_at": created_at,
            },
        )
        row = cursor.fetchone()
    if row is None:
        return "missing", None, []
    owner, ids, session_row = row[0], row[1], row[2:]
    if session_row[0] is None:
        return ("user_mismatch" if user_id and owner != user_id else "deleted"), None, []
    session = _SESSIONS.load(session_row)
    first_seq = session.message_count - count + 1
    created = [
        Message.from_db(
            connection.alias,
            _MESSAGE_FIELDS,
            (
                pk,
                session.pk,
                first_seq + index,
                m.role,
                m.kind,
                m.content,
                m.name,
                m.run_id,
                m.tool_calls,
                m.tool_call_id,
                meta,
                created,
                now,
                None,
            ),
        )
        for index, (pk, m, meta, created) in enumerate(zip(ids, messages, metadata, created_at, strict=True))
    ]
    return "appended", session, created


def session_delete(*, session: Session, actor: Actor, reason: str = "") -> None:
    """Delete a session with its messages and working memory (evidence links to them go too; memories stay)."""
    # Redis first: if it is down the call fails before anything durable changed.
    working_memory_delete(namespace_id=session.namespace_id, session_id=session.session_id)
    with transaction.atomic():
        # The session row first, then its messages (the order erasure and extraction use too):
        # a writer holding the row finishes before the rows it references go, instead of deadlocking.
        Session.objects.select_for_update().filter(pk=session.pk).values_list("pk", flat=True).first()
        audit_deleted(
            Session.objects.filter(pk=session.pk),
            session,
            actor=actor,
            action="session.delete",
            reason=reason,
            data={"message_count": session.message_count},
            notice={"session_id": session.session_id},
        )


def messages_mark_extracted(*, session_pk: int, message_pks: Sequence[int]) -> set[int]:
    """Mark which of these messages no run has taken yet as extracted; returns them.

    Called inside the caller's writing transaction, so the marks commit with what was written for them.
    """
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            UPDATE {Message._meta.db_table} SET extracted_at = %s
            WHERE session_id = %s AND id = ANY(%s) AND extracted_at IS NULL
            RETURNING id
            """,
            [timezone.now(), session_pk, list(message_pks)],
        )
        return {pk for (pk,) in cursor.fetchall()}


def session_hold(*, session_pk: int) -> bool:
    """Hold off the session's deletion until the caller's transaction ends; False when it no longer exists.

    The row lock is FOR KEY SHARE: it conflicts with the lock a DELETE takes, so a deletion
    or an erasure waits for the holder, and not with the UPDATE an append makes, so a holder
    never holds up appends.
    """
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT 1 FROM {Session._meta.db_table} WHERE id = %s FOR KEY SHARE", [session_pk])
        return cursor.fetchone() is not None


def working_memory_clear(*, session: Session, actor: Actor, reason: str = "") -> bool:
    """Empty a session's working memory now, instead of at its expiry; False when there was none."""
    removed = working_memory_delete(namespace_id=session.namespace_id, session_id=session.session_id)
    if removed:
        with transaction.atomic():
            audit_about(session, actor=actor, action="working_memory.clear", reason=reason)
    return removed


def messages_delete_run(*, session: Session, run_id: str, actor: Actor, reason: str = "") -> int:
    """Delete the messages one run appended; seqs of the others stay as they are."""
    validate_app_id(run_id, "run_id")
    with transaction.atomic():
        # Their evidence links go with them in the database; only messages are counted.
        _, per_model = Message.objects.filter(session=session, run_id=run_id).delete()
        deleted = per_model.get(Message._meta.label, 0)
        if deleted:
            audit_about(
                session,
                actor=actor,
                action="messages.delete_run",
                reason=reason,
                data={"run_id": run_id, "deleted": deleted},
                notice={"session_id": session.session_id},
            )
    return deleted
