"""Sessions and messages as snapshot records, out and back in: all the SQL a snapshot needs on this app's tables.

Export hands rows to the representation functions the API uses, so a record is the
API object plus the keys that tie it to others. Import takes records the snapshot
format has already validated and writes them in batches (multi-row INSERT or COPY),
with every lookup by primary key or by a parent's key, so a batch's cost does not
grow with what the restore has written so far.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import connection
from django.db.models import F

from memoryadmin.conversations.models import Message, Session
from memoryadmin.conversations.representations import MESSAGE, SESSION, message_dict, session_dict
from memoryadmin.core.bulk import array_literal, as_json, copy_rows, insert_rows, next_ids, record_values, reusable_ids
from memoryadmin.core.timestamps import rfc3339
from memoryadmin.tenancy.models import Namespace

RECORD_TYPES = ("session", "message")
# The table each record type carries.
MODELS = {"session": Session, "message": Message}
# Tables a restore fills in bulk (their GIN indexes' pending lists are merged afterwards).
BULK_TABLES = (Message._meta.db_table,)

# The columns a message's record reads: its representation's and the time extraction read it.
MESSAGE_COLUMNS = (*MESSAGE.fields, "extracted_at")

# --- export ------------------------------------------------------------------------------------


def export_querysets(namespace: Namespace, user_id: str | None) -> dict[str, Any]:
    """Rows, not model instances: an export of millions of records skips a model build per row."""
    sessions = Session.objects.filter(namespace=namespace)
    messages = Message.objects.filter(session__namespace=namespace)
    if user_id is not None:
        sessions = sessions.filter(user_id=user_id)
        messages = messages.filter(session__user_id=user_id)
    return {
        # Sessions in id order, messages in (session id, seq) order: the unique index's order, no
        # sort of millions of rows; a restore inserts sessions in this order, so a re-export matches.
        # Each order is unique, so it is also the key of a keyset stream (core.streaming).
        "session": sessions.order_by("id").values_list(*SESSION.fields, named=True),
        "message": messages.annotate(sid=F("session__session_id"))
        .order_by("session_id", "seq")
        .values_list(*MESSAGE_COLUMNS, "sid", "session_id", named=True),
    }


def export_record(kind: str, row: Any) -> dict[str, Any]:
    if kind == "session":
        return {"type": kind, **session_dict(row)}
    return {"type": kind, "session_id": row.sid, **message_dict(row), "extracted_at": rfc3339(row.extracted_at)}


# --- import ------------------------------------------------------------------------------------


def session_pks(namespace: Namespace, session_ids: Iterable[str]) -> dict[str, int]:
    """session_id -> primary key of those that exist: one probe of the unique key for each, so the cost
    does not grow with the rows a restore has written into the namespace so far."""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT s.session_id, s.id FROM unnest(%s::text[]) AS p(session_id)
            JOIN conversations_session s ON s.namespace_id = %s AND s.session_id = p.session_id
            """,
            [array_literal(session_ids), namespace.pk],
        )
        return dict(cursor.fetchall())


def session_owners(namespace: Namespace, session_ids: Iterable[str]) -> dict[str, tuple[int, str]]:
    """session_id -> (primary key, user_id) of those that exist."""
    rows = Session.objects.filter(namespace=namespace, session_id__in=list(session_ids)).values_list(
        "pk", "session_id", "user_id"
    )
    return {sid: (pk, uid) for pk, sid, uid in rows}


def sessions_by_pk(pks: Iterable[int]) -> dict[str, Session]:
    """session_id -> the stored session, for primary keys looked up earlier."""
    pks = list(pks)
    return {s.session_id: s for s in Session.objects.filter(pk__in=pks)} if pks else {}


def session_is_same(existing: Session, r: dict[str, Any]) -> bool:
    return (
        existing.agent_id == r["agent_id"]
        and existing.metadata == r["metadata"]
        and existing.message_count == r["message_count"]
        and existing.created_at == r["created_at"]
        and existing.updated_at == r["updated_at"]
        and existing.last_message_at == r["last_message_at"]
    )


def session_restore_update(pk: int, r: dict[str, Any]) -> None:
    """A newer version of a stored session; counters only move forward."""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            UPDATE conversations_session
            SET agent_id = %s, metadata = %s, created_at = %s, updated_at = %s,
                last_message_at = %s, message_count = GREATEST(message_count, %s),
                last_activity_at = GREATEST(last_activity_at, COALESCE(%s, %s))
            WHERE id = %s
            """,
            [
                r["agent_id"],
                as_json(r["metadata"]),
                r["created_at"],
                r["updated_at"],
                r["last_message_at"],
                r["message_count"],
                r["last_message_at"],
                r["created_at"],
                pk,
            ],
        )


def sessions_restore_insert(namespace: Namespace, records: list[dict[str, Any]]) -> dict[str, int]:
    """Insert new sessions in the given order; session_id -> pk of those written (not those raced by another writer)."""
    written = insert_rows(
        Session._meta.db_table,
        ("namespace_id", *SESSION.fields, "last_activity_at"),
        [[namespace.pk, *record_values(r, SESSION.fields), r["last_message_at"] or r["created_at"]] for r in records],
        values="%s, %s, %s, %s, %s::jsonb, %s, %s, %s, %s, %s",
        suffix="ON CONFLICT DO NOTHING RETURNING id, session_id",
    )
    return {sid: pk for pk, sid in written}


def message_seqs_taken(session_pks: Iterable[int]) -> set[tuple[int, int]]:
    pks = list(session_pks)
    return set(Message.objects.filter(session_id__in=pks).values_list("session_id", "seq")) if pks else set()


def messages_restore_insert(rows: list[tuple[int, dict[str, Any]]]) -> None:
    """Insert (session pk, record) pairs by COPY, keeping each record's id where it may be kept (`reusable_ids`)."""
    if not rows:
        return
    table = Message._meta.db_table
    free = reusable_ids(Message, [r["id"] for _, r in rows])
    kept = []
    for _, r in rows:
        kept.append(r["id"] in free)
        free.discard(r["id"])
    fresh = iter(next_ids(table, kept.count(False)))
    params = [
        [
            r["id"] if keep else next(fresh),
            pk,
            r["seq"],
            r["role"],
            r["kind"],
            r["content"],
            r["name"],
            r["run_id"],
            None if r["tool_calls"] is None else as_json(r["tool_calls"]),
            r["tool_call_id"],
            as_json(r["metadata"]),
            r["created_at"],
            r["persisted_at"],
            r["extracted_at"],
        ]
        for (pk, r), keep in zip(rows, kept, strict=True)
    ]
    # A message's columns are its record's with the session's key after the id.
    copy_rows(table, ("id", "session_id", *MESSAGE_COLUMNS[1:]), params)


def message_pks(session_pks: Iterable[int], seqs: Iterable[int]) -> dict[tuple[int, int], int]:
    """(session pk, seq) -> message pk, for evidence records that name messages by their place."""
    session_pks, seqs = set(session_pks), set(seqs)
    if not session_pks:
        return {}
    rows = Message.objects.filter(session_id__in=session_pks, seq__in=seqs).values_list("pk", "session_id", "seq")
    return {(session_pk, seq): pk for pk, session_pk, seq in rows}


def sessions_catch_up_counters(pks: Iterable[int]) -> None:
    """The seq counter must stay ahead of every stored message, or the next append would collide."""
    pks = sorted(pks)
    if not pks:
        return
    with connection.cursor() as cursor:
        cursor.execute(
            """
            UPDATE conversations_session s
            SET message_count = GREATEST(s.message_count, m.top)
            FROM (SELECT session_id, max(seq) AS top FROM conversations_message
                  WHERE session_id = ANY(%s) GROUP BY session_id) m
            WHERE s.id = m.session_id
            """,
            [pks],
        )
