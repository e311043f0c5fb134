from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone
from psycopg.types.json import Jsonb

from memoryadmin.audit.services import Actor, audit_record
from memoryadmin.conversations.models import APP_ID_RE, Message, MessageKind, Role, Session
from memoryadmin.conversations.signals import messages_appended
from memoryadmin.errors import Conflict, InvalidInput
from memoryadmin.tenancy.models import Namespace

_APP_ID = re.compile(APP_ID_RE)


def validate_app_id(value: str, name: str) -> str:
    # fullmatch: `$` alone would let a trailing newline through.
    if not isinstance(value, str) or not _APP_ID.fullmatch(value):
        raise InvalidInput(f"{name} must match {APP_ID_RE}", code="invalid_id", details={"field": name})
    return value


class UserIdRequired(InvalidInput):
    """The contract answers a missing user_id for a new session with 400, not 422."""

    status = 400
    code = "user_id_required"


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
    count = len(messages)
    with transaction.atomic():
        now = timezone.now()
        # The common case, an existing session, is one statement: find the session and reserve the range.
        found, session = _reserve_seqs(namespace.pk, session_id, count, now)
        if not found:
            if not user_id:
                raise UserIdRequired("user_id is required to create a session", details={"field": "user_id"})
            session_upsert(namespace=namespace, session_id=session_id, user_id=user_id, agent_id=agent_id)
            found, session = _reserve_seqs(namespace.pk, session_id, count, now)
        if session is None:
            # The session was deleted (or erased) while this append waited for its row lock;
            # recreating it here could bring an erased person back.
            raise Conflict("the session was deleted while appending", code="session_deleted")
        if user_id and user_id != session.user_id:
            raise Conflict("the session belongs to another user_id", code="user_mismatch")
        created = _insert_messages(session.pk, session.message_count - count + 1, messages, now)
        seqs = [m.seq for m in created]
        namespace_id, session_pk = namespace.pk, session.pk
        transaction.on_commit(
            lambda: messages_appended.send(
                sender=Session, namespace_id=namespace_id, session_pk=session_pk, seqs=seqs, namespace=namespace
            )
        )
    return session, created


_SESSION_FIELDS = list(Session._meta.concrete_fields)
_SESSION_COLUMNS = ", ".join(f"bumped.{f.column}" for f in _SESSION_FIELDS)
_MESSAGE_FIELDS = [f.attname for f in Message._meta.concrete_fields]


def _reserve_seqs(namespace_pk: int, session_id: str, count: int, now: datetime) -> tuple[bool, Session | None]:
    """Bump the session's counter by `count`: (whether the session existed, the session after the bump).

    The UPDATE's row lock makes concurrent appends to one session queue up. A session that
    existed when the statement began but was deleted while it waited answers (True, None).
    """
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            WITH found AS (
                SELECT id FROM conversations_session WHERE namespace_id = %s AND session_id = %s
            ), bumped AS (
                UPDATE conversations_session s
                SET message_count = message_count + %s, last_message_at = %s, last_activity_at = %s, updated_at = %s
                FROM found WHERE s.id = found.id
                RETURNING s.*
            )
            SELECT found.id, {_SESSION_COLUMNS} FROM found LEFT JOIN bumped ON bumped.id = found.id
            """,
            [namespace_pk, session_id, count, now, now, now],
        )
        row = cursor.fetchone()
    if row is None:
        return False, None
    if row[1] is None:
        return True, None
    values = [
        f.from_db_value(value, None, connection) if value is not None and hasattr(f, "from_db_value") else value
        for f, value in zip(_SESSION_FIELDS, row[1:], strict=True)
    ]
    return True, Session.from_db(connection.alias, [f.attname for f in _SESSION_FIELDS], values)


def _insert_messages(session_pk: int, first_seq: int, messages: Sequence[NewMessage], now: datetime) -> list[Message]:
    """One INSERT for the whole batch; the rows are built from the input and the returned ids.

    Model instances and bulk_create's per-field preparation cost more than the insert itself
    for a batch of a hundred; the instances returned are made without a second read.
    """
    seqs = list(range(first_seq, first_seq + len(messages)))
    created_at = [m.created_at or now for m in messages]
    metadata = [m.metadata or {} for m in messages]
    with connection.cursor() as cursor:
        cursor.execute(
            """
            INSERT INTO conversations_message
                (session_id, seq, role, kind, content, name, run_id, tool_calls, tool_call_id, metadata,
                 created_at, persisted_at)
            SELECT %s, r.seq, r.role, r.kind, r.content, r.name, r.run_id, r.tool_calls, r.tool_call_id, r.metadata,
                   r.created_at, %s
            FROM unnest(%s::int[], %s::text[], %s::text[], %s::text[], %s::text[], %s::text[], %s::jsonb[],
                        %s::text[], %s::jsonb[], %s::timestamptz[])
                AS r(seq, role, kind, content, name, run_id, tool_calls, tool_call_id, metadata, created_at)
            RETURNING id, seq
            """,
            [
                session_pk,
                now,
                seqs,
                [m.role for m in messages],
                [m.kind for m in messages],
                [m.content for m in messages],
                [m.name for m in messages],
                [m.run_id for m in messages],
                [None if m.tool_calls is None else Jsonb(m.tool_calls) for m in messages],
                [m.tool_call_id for m in messages],
                [Jsonb(value) for value in metadata],
                created_at,
            ],
        )
        ids = {seq: pk for pk, seq in cursor.fetchall()}
    return [
        Message.from_db(
            connection.alias,
            _MESSAGE_FIELDS,
            (
                ids[seq],
                session_pk,
                seq,
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
        for seq, m, meta, created in zip(seqs, messages, metadata, created_at, strict=True)
    ]


def session_delete(*, session: Session, actor: Actor, reason: str = "") -> None:
    """Delete a session with its messages (evidence links to them go too; memories stay)."""
    with transaction.atomic():
        # The session row first, then its messages (the order erasure and extraction use too):
        # a writer holding the row finishes before the rows it references go, instead of deadlocking.
        Session.objects.select_for_update().filter(pk=session.pk).values_list("pk", flat=True).first()
        deleted, _ = Session.objects.filter(pk=session.pk).delete()
        if deleted:
            audit_record(
                actor=actor,
                action="session.delete",
                namespace_id=session.namespace_id,
                target_type="session",
                target_id=session.session_id,
                user_id=session.user_id,
                reason=reason,
                data={"message_count": session.message_count},
            )


def messages_delete_run(*, session: Session, run_id: str, actor: Actor, reason: str = "") -> int:
    """Delete the messages one run appended; seqs of the others stay as they are."""
    validate_app_id(run_id, "run_id")
    with transaction.atomic():
        # The total also counts cascaded rows (evidence links); only messages are reported.
        _, per_model = Message.objects.filter(session=session, run_id=run_id).delete()
        deleted = per_model.get(Message._meta.label, 0)
        if deleted:
            audit_record(
                actor=actor,
                action="messages.delete_run",
                namespace_id=session.namespace_id,
                target_type="session",
                target_id=session.session_id,
                user_id=session.user_id,
                reason=reason,
                data={"run_id": run_id, "deleted": deleted},
            )
    return deleted
