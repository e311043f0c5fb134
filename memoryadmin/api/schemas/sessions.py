"""Sessions, their messages, working memory and prompt context (the `sessions` router)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from django.conf import settings
from ninja import Schema
from pydantic import AfterValidator, Field

from memoryadmin.api.schemas.common import (
    NO_NUL,
    AppId,
    Body,
    Flag,
    Integer,
    Metadata,
    Number,
    PastTimestamp,
    at_most_bytes,
    integer,
    reject_nul,
    storable,
)
from memoryadmin.api.schemas.memories import MemoryOut
from memoryadmin.conversations import enums
from memoryadmin.conversations.services import NewMessage
from memoryadmin.conversations.working_memory import MAX_KEY_CHARS, MAX_KEYS, MAX_TTL_SECONDS
from memoryadmin.core.storable_json import json_problem


class SessionIn(Body):
    user_id: AppId
    agent_id: AppId | None = None
    metadata: Metadata | None = None


class SessionOut(Schema):
    session_id: str
    user_id: str
    agent_id: str | None
    metadata: dict[str, Any]
    message_count: int = Field(description="Messages appended so far; also the seq of the last one.")
    created_at: datetime
    updated_at: datetime
    last_message_at: datetime | None


class SessionPage(Schema):
    items: list[SessionOut]
    next_cursor: str | None


# The messages' choices, so a role or kind the model gains is one the contract accepts.
Role = Literal[tuple(enums.Role.values)]  # type: ignore[valid-type]
Kind = Literal[tuple(enums.MessageKind.values)]  # type: ignore[valid-type]


class MessageIn(Body):
    role: Role
    content: Annotated[
        str,
        Field(
            pattern=NO_NUL,
            max_length=settings.MAX_MESSAGE_CONTENT_BYTES,
            description=f"At most {settings.MAX_MESSAGE_CONTENT_BYTES} bytes of UTF-8.",
        ),
        at_most_bytes("MAX_MESSAGE_CONTENT_BYTES"),
    ] = ""
    kind: Kind = "message"
    name: Annotated[str, Field(max_length=128, pattern=NO_NUL)] | None = None
    run_id: AppId | None = None
    tool_calls: Annotated[Any, AfterValidator(reject_nul), AfterValidator(storable)] = None
    tool_call_id: Annotated[str, Field(max_length=128, pattern=NO_NUL)] | None = None
    metadata: Metadata | None = None
    created_at: PastTimestamp | None = Field(
        default=None, description="When the client saw it; RFC 3339 with offset, not in the future."
    )

    def as_new_message(self) -> NewMessage:
        """What the append service takes (the REST handler and the MCP tool share it)."""
        return NewMessage(
            role=self.role,
            content=self.content,
            kind=self.kind,
            name=self.name or "",
            run_id=self.run_id or "",
            tool_calls=self.tool_calls,
            tool_call_id=self.tool_call_id or "",
            metadata=self.metadata or {},
            created_at=self.created_at,
        )


class AppendIn(Body):
    user_id: AppId | None = Field(default=None, description="Required when the session does not exist yet.")
    agent_id: AppId | None = None
    messages: list[MessageIn] = Field(min_length=1, max_length=settings.MAX_MESSAGES_PER_APPEND)


class MessageOut(Schema):
    id: str
    seq: int
    role: Role
    kind: Kind
    content: str
    name: str | None
    run_id: str | None
    tool_calls: Any
    tool_call_id: str | None
    metadata: dict[str, Any]
    created_at: datetime
    persisted_at: datetime


class AppendOut(Schema):
    messages: list[MessageOut]


class MessagePage(Schema):
    items: list[MessageOut]
    next_cursor: str | None


class DeletedOut(Schema):
    deleted: int


# Working memory.


def _storable_state(value: Any) -> Any:
    # Working memory lives in Redis as JSON text: its depth is limited, and its numbers, so that
    # every value can be read back and answered as JSON.
    if problem := json_problem(value, strings=False):
        raise ValueError(problem)
    return value


def _no_nul_keys(value: dict[str, Any]) -> dict[str, Any]:
    if any("\x00" in key for key in value):
        raise ValueError("keys must not contain NUL characters")
    return value


StateKey = Annotated[str, Field(min_length=1, max_length=MAX_KEY_CHARS)]
# Said with propertyNames, since a pattern on the keys' type would come out as patternProperties,
# which leaves keys that do not match it unconstrained.
STATE_KEYS = {"propertyNames": {"minLength": 1, "maxLength": MAX_KEY_CHARS, "pattern": NO_NUL}}
# A value of a new state: anything JSON but null (leave the key out instead).
StateValue = Annotated[
    dict[str, Any] | list[Any] | str | Integer | Number | Flag,
    Field(description="Any JSON value but null."),
]


class StatePutIn(Body):
    state: Annotated[
        dict[StateKey, StateValue],
        Field(max_length=MAX_KEYS, json_schema_extra=STATE_KEYS),
        AfterValidator(_no_nul_keys),
        AfterValidator(_storable_state),
    ]
    ttl_seconds: integer(ge=1, le=MAX_TTL_SECONDS) | None = Field(
        default=None, description="Defaults to the namespace's working-memory TTL."
    )


class StatePatchIn(Body):
    state: Annotated[
        dict[StateKey, Any],
        Field(
            max_length=MAX_KEYS, json_schema_extra=STATE_KEYS, description="Keys to set; a null value removes the key."
        ),
        AfterValidator(_no_nul_keys),
        AfterValidator(_storable_state),
    ]


class StateOut(Schema):
    state: dict[str, Any]
    ttl_seconds: int | None = Field(description="Seconds until the state expires.")


class ContextOut(Schema):
    summary: str | None
    messages: list[MessageOut]
    memories: list[MemoryOut]
    token_estimate: int
