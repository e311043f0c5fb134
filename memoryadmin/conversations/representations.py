"""The API's shapes of sessions and messages, shared by the API, the console and snapshots.

Ids are strings and timestamps RFC 3339 in UTC, so a record written to a
snapshot is byte-for-byte the object the API returns. Each takes a model
instance or a row with the same attribute names (`values_list(..., named=True)`).
"""

from __future__ import annotations

from typing import Any

from memoryadmin.conversations.models import Message, Session
from memoryadmin.core.representation import Representation, null_if_blank
from memoryadmin.core.timestamps import rfc3339

SESSION = Representation(
    ("session_id", "user_id", "agent_id", "metadata", "message_count", "created_at", "updated_at", "last_message_at"),
    convert={"agent_id": null_if_blank, "created_at": rfc3339, "updated_at": rfc3339, "last_message_at": rfc3339},
)
MESSAGE = Representation(
    (
        "id",
        "seq",
        "role",
        "kind",
        "content",
        "name",
        "run_id",
        "tool_calls",
        "tool_call_id",
        "metadata",
        "created_at",
        "persisted_at",
    ),
    convert={
        "id": str,
        "name": null_if_blank,
        "run_id": null_if_blank,
        "tool_call_id": null_if_blank,
        "created_at": rfc3339,
        "persisted_at": rfc3339,
    },
)


def session_dict(session: Session) -> dict[str, Any]:
    return SESSION.of(session)


def message_dict(message: Message) -> dict[str, Any]:
    return MESSAGE.of(message)
