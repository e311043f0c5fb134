"""The API's shapes of sessions and messages, shared by the API, the console and snapshots.

Ids are strings and timestamps RFC 3339 in UTC, so a record written to a
snapshot is byte-for-byte the object the API returns. Each takes a model
instance or a row with the same attribute names (`values_list(..., named=True)`).
"""

from __future__ import annotations

from typing import Any

from memoryadmin.conversations.models import Message, Session
from memoryadmin.core.timestamps import rfc3339


def session_dict(session: Session) -> dict[str, Any]:
    return {
        "session_id": session.session_id,
        "user_id": session.user_id,
        "agent_id": session.agent_id or None,
        "metadata": session.metadata,
        "message_count": session.message_count,
        "created_at": rfc3339(session.created_at),
        "updated_at": rfc3339(session.updated_at),
        "last_message_at": rfc3339(session.last_message_at),
    }


def message_dict(message: Message) -> dict[str, Any]:
    return {
        "id": str(message.id),
        "seq": message.seq,
        "role": message.role,
        "kind": message.kind,
        "content": message.content,
        "name": message.name or None,
        "run_id": message.run_id or None,
        "tool_calls": message.tool_calls,
        "tool_call_id": message.tool_call_id or None,
        "metadata": message.metadata,
        "created_at": rfc3339(message.created_at),
        "persisted_at": rfc3339(message.persisted_at),
    }
