"""The MCP tools' arguments and answers, derived from the REST API's bodies.

A tool that does what a REST operation does takes that operation's body (memoryadmin.api.schemas)
as its arguments: the same fields, types, limits and defaults, in the same order, so the same input
is refused the same way on either transport. What a tool changes is said here, field by field: the
descriptions an agent reads, the fields it leaves out (a search's `syntax`, `explain` and `recency`
tuning) and the few it holds to other bounds (a page of hits an agent reads into its context).
A tool with no REST body (the REST API takes its ids in the path) has its own small model.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from datetime import date
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model
from pydantic.fields import FieldInfo

from memoryadmin.api.operations.sessions import MAX_MEMORY_LIMIT, MAX_TOKEN_BUDGET, MEMORY_LIMIT, TOKEN_BUDGET
from memoryadmin.api.schemas.common import Reason, Text
from memoryadmin.api.schemas.memories import DatePrecision, MemoryIn, MemoryOut, MemoryType, SearchIn
from memoryadmin.api.schemas.sessions import AppendIn, ContextOut, MessageIn
from memoryadmin.core.app_ids import APP_ID_RE
from memoryadmin.memories.search.query import MAX_QUERY_CHARS

# An agent reads a page of hits into its context; longer pages cost tokens and help little.
MAX_SEARCH_LIMIT = 50


class Arguments(BaseModel):
    # A misspelt argument must not be dropped silently: the agent is told.
    model_config = ConfigDict(extra="forbid")

    # The REST body the arguments derive from, if any.
    source: ClassVar[type[BaseModel] | None] = None

    def as_source(self) -> Any:
        """The arguments as the REST body they derive from, for the operation both transports call.

        They are valid already (by the tool's own bounds), so the body is built as it is; a field the
        tool leaves out takes the body's default.
        """
        if self.source is None:
            raise TypeError(f"{type(self).__name__} derives from no REST body")
        return self.source.model_construct(
            **{name: getattr(self, name) for name in self.source.model_fields if name in type(self).model_fields}
        )


def derived(
    source: type[BaseModel],
    name: str,
    *,
    leading: dict[str, Any] | None = None,
    described: dict[str, str] | None = None,
    replaced: dict[str, Any] | None = None,
    dropped: Iterable[str] = (),
    trailing: dict[str, Any] | None = None,
) -> type[Arguments]:
    """A tool's arguments made from the REST body `source`.

    `leading` and `trailing` add the tool's own fields before and after the body's; `described` gives a
    body field the description an agent reads; `replaced` gives one other bounds; `dropped` leaves some out.
    A new or replaced field is `(annotation, FieldInfo or default)`, as `pydantic.create_model` takes it.
    """
    described, replaced, skip = described or {}, replaced or {}, set(dropped)
    fields: dict[str, Any] = dict(leading or {})
    for field_name, info in source.model_fields.items():
        if field_name in skip:
            continue
        if field_name in replaced:
            fields[field_name] = replaced[field_name]
            continue
        if field_name in described:
            info = FieldInfo.merge_field_infos(info, description=described[field_name])
        fields[field_name] = (info.annotation, info)
    fields.update(trailing or {})
    model = create_model(name, __base__=Arguments, __module__=__name__, **fields)
    model.source = source
    return model


MemoryId = Annotated[uuid.UUID, Field(description="The memory's id (a UUID), as returned by other tools.")]
# An app id, exemplified as a conversation's (AppId's example is a person's).
ConversationId = Annotated[str, Field(pattern=APP_ID_RE, examples=["support-chat-42"])]
SessionId = Annotated[ConversationId, Field(description="The app's id of the conversation (session).")]
RFC3339 = "RFC 3339 time with an offset."


# --- search_memory ---------------------------------------------------------------------------------

SearchMemoryIn = derived(
    SearchIn,
    "SearchMemoryIn",
    dropped=("syntax", "explain", "recency"),
    replaced={
        # The tool runs the natural syntax only, and describes the query as such.
        "query": (
            Annotated[
                str,
                Field(
                    min_length=1,
                    max_length=MAX_QUERY_CHARS,
                    description=(
                        "What to look for, as a person would ask it: a question or a few words; dates and periods "
                        '("last May", "yesterday") are understood. Matches by words and by meaning.'
                    ),
                ),
            ],
            ...,
        ),
        "session_id": (ConversationId | None, Field(None, description="Only memories taken from this session.")),
        "limit": (int, Field(10, ge=1, le=MAX_SEARCH_LIMIT, strict=True, description="Hits per page.")),
    },
    described={
        "user_id": "Only memories about this person (recommended).",
        "agent_id": "Only memories of this agent.",
        "memory_types": "Only these kinds of memory.",
        "topics": "Only memories with any of these topics.",
        "entities": "Only memories naming any of these entities.",
        "status": (
            "Defaults to active: memories awaiting review (candidate) and memories a newer one replaced "
            "(superseded: what was true before) are left out unless asked for."
        ),
        "pinned": "Only pinned (true) or only unpinned (false) memories.",
        "created_after": RFC3339,
        "created_before": RFC3339,
        "stated_after": "Only memories said at or after this time.",
        "stated_before": "Only memories said before this time.",
        "event_after": "Only events on or after this day (YYYY-MM-DD).",
        "event_before": "Only events before this day (YYYY-MM-DD).",
        "as_of": "Answer as of this time: what was known and true then; relative dates count from it.",
        "cursor": "`next_cursor` of the previous page, for the next one.",
    },
    trailing={
        "detail": (
            Literal["lean", "full"],
            Field(
                "lean",
                description=(
                    "lean (the default): each hit carries what an answer needs (id, text, user_id, memory_type, "
                    "pinned, revision, stated_at, event_date and its precision). full: every field of the memory, "
                    "as get_memory."
                ),
            ),
        )
    },
)

# What a lean hit keeps of a memory: enough to answer, cite a date, and pin or forget it (revision).
LEAN_FIELDS = (
    "id",
    "text",
    "user_id",
    "memory_type",
    "pinned",
    "revision",
    "stated_at",
    "event_date",
    "event_date_precision",
)


class LeanMemoryOut(BaseModel):
    id: str
    text: str
    user_id: str
    memory_type: MemoryType
    pinned: bool
    revision: int
    stated_at: str | None = Field(description="When it was said (RFC 3339).")
    event_date: date | None = Field(description="When the event it records happened, when known.")
    event_date_precision: DatePrecision | None


class SearchHitMcpOut(BaseModel):
    memory: LeanMemoryOut | MemoryOut = Field(description="The lean memory, or every field with `detail: full`.")
    score: float


class SearchMemoryOut(BaseModel):
    items: list[SearchHitMcpOut]
    next_cursor: str | None


# --- add_memory, get_memory, forget_memory, pin_memory ----------------------------------------------

AddMemoryIn = derived(
    MemoryIn,
    "AddMemoryIn",
    replaced={
        "text": (
            Annotated[Text, Field(min_length=1, description="The fact, preference or event, as one statement.")],
            ...,
        ),
        "session_id": (ConversationId | None, Field(None, description="The conversation it came from, if any.")),
    },
    described={
        "user_id": "The person the memory is about.",
        "memory_type": "semantic (a fact), episodic, preference or summary.",
        "pinned": "Pinned memories are never removed by a forgetting policy.",
        "stated_at": "When it was said (RFC 3339); defaults to now.",
        "event_date": "When the event it records happened (YYYY-MM-DD).",
        "event_date_precision": "day, week, month or year.",
    },
)


class AddMemoryOut(BaseModel):
    memory: MemoryOut
    deduplicated: bool = Field(description="True when the same text was already held: that memory is returned.")


class GetMemoryIn(Arguments):
    memory_id: MemoryId


class ForgetMemoryIn(Arguments):
    memory_id: MemoryId
    reason: Reason = Field("", description="Why, for the audit trail (the person asked, it was wrong, ...).")
    force: bool = Field(False, strict=True, description="Needed to forget a pinned memory.")
    revision: int | None = Field(
        None,
        strict=True,
        ge=1,
        le=2**31 - 1,
        description="The memory's `revision` as you read it: if it has been edited since, nothing is forgotten "
        "and the error is `precondition_failed` (its details give the current revision). The REST API's If-Match.",
    )


class ForgetMemoryOut(BaseModel):
    memory_id: str
    forgotten: bool


class PinMemoryIn(Arguments):
    memory_id: MemoryId
    pinned: bool = Field(True, strict=True, description="true pins the memory, false unpins it.")
    reason: Reason = ""


# --- append_messages, get_context, working memory -----------------------------------------------------

AppendMessagesIn = derived(
    AppendIn,
    "AppendMessagesIn",
    leading={"session_id": (SessionId, ...)},
    described={"user_id": "The person talking; needed when the session is new."},
    replaced={
        "messages": (list[MessageIn], Field(min_length=1, description="In order; they get consecutive seqs.")),
    },
)


class GetContextIn(Arguments):
    session_id: SessionId
    query: (
        Annotated[str, Field(max_length=MAX_QUERY_CHARS), Field(description="Defaults to the last user message.")]
        | None
    ) = None
    token_budget: int = Field(
        TOKEN_BUDGET, ge=0, le=MAX_TOKEN_BUDGET, strict=True, description="Estimated at four characters a token."
    )
    memory_limit: int = Field(MEMORY_LIMIT, ge=0, le=MAX_MEMORY_LIMIT, strict=True)
    include_injected: bool = False


class ContextForPromptOut(ContextOut):
    prompt: str = Field(description="The same context as text, ready to place in a prompt; memories are quoted data.")


class GetWorkingMemoryIn(Arguments):
    session_id: SessionId


class SetWorkingMemoryIn(Arguments):
    session_id: SessionId
    state: dict[str, Any] = Field(description="Keys and their JSON values.")
    merge: bool = Field(
        False,
        strict=True,
        description="false replaces the whole state and starts a fresh TTL; true merges these keys into it "
        "(a null value removes a key) and keeps the remaining TTL.",
    )
    ttl_seconds: int | None = Field(
        None,
        ge=1,
        strict=True,
        description="Lifetime when replacing; defaults to the namespace's. Not allowed with merge.",
    )
