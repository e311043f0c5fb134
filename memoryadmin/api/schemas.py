"""Request and response bodies of the API (the contract of shared/API.md, as OpenAPI)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from ninja import Schema
from pydantic import AfterValidator, AwareDatetime, Field

from memoryadmin.core.app_ids import APP_ID_RE
from memoryadmin.core.pagination import MAX_LIMIT
from memoryadmin.core.storable_json import json_problem

# --- shared pieces -------------------------------------------------------------------------------


def _reject_nul(value: Any) -> Any:
    """PostgreSQL cannot store NUL in text or JSONB; say so as a validation error, not a crash."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                raise ValueError("must not contain NUL characters")
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return value


def _storable(value: Any) -> Any:
    if problem := json_problem(value):
        raise ValueError(problem)
    return value


def _storable_state(value: Any) -> Any:
    # Working memory lives in Redis as JSON text: only its depth is limited.
    if problem := json_problem(value, strings=False, numbers=False):
        raise ValueError(problem)
    return value


def _in_utc(value: datetime) -> datetime:
    """Stored and shown in UTC, so a time must exist in UTC (year 1 to 9999)."""
    try:
        return value.astimezone(UTC)
    except OverflowError:
        raise ValueError("must lie between years 1 and 9999 in UTC") from None


Timestamp = Annotated[AwareDatetime, AfterValidator(_in_utc)]
AppId = Annotated[
    str,
    Field(pattern=APP_ID_RE, description=f"An id chosen by the app, matching `{APP_ID_RE}`.", examples=["alice"]),
]
Text = Annotated[str, AfterValidator(_reject_nul)]
Reason = Annotated[str, Field(max_length=1000), AfterValidator(_reject_nul)]
Metadata = Annotated[dict[str, Any], AfterValidator(_reject_nul), AfterValidator(_storable)]
Topics = Annotated[list[Annotated[str, Field(max_length=100)]], Field(max_length=50), AfterValidator(_reject_nul)]
Entities = Annotated[list[Annotated[str, Field(max_length=200)]], Field(max_length=50), AfterValidator(_reject_nul)]
Limit = Annotated[int, Field(ge=1, le=MAX_LIMIT)]
Cursor = Annotated[str, Field(max_length=512, description="`next_cursor` of the previous page.")]

MemoryType = Literal["semantic", "episodic", "preference", "summary"]
MemoryStatus = Literal["active", "candidate"]


class ErrorDetail(Schema):
    code: str = Field(examples=["validation_error"])
    message: str
    details: dict[str, Any] = Field(default_factory=dict)


class ErrorOut(Schema):
    error: ErrorDetail


# --- sessions and messages ------------------------------------------------------------------------


class SessionIn(Schema):
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


Role = Literal["system", "user", "assistant", "tool"]
Kind = Literal["message", "instruction", "commentary", "supporting_context"]


class MessageIn(Schema):
    role: Role
    content: str = ""
    kind: Kind = "message"
    name: Annotated[str, Field(max_length=128)] | None = None
    run_id: AppId | None = None
    tool_calls: Annotated[Any, AfterValidator(_reject_nul), AfterValidator(_storable)] = None
    tool_call_id: Annotated[str, Field(max_length=128)] | None = None
    metadata: Metadata | None = None
    created_at: Timestamp | None = Field(default=None, description="When the client saw it; RFC 3339 with offset.")


class AppendIn(Schema):
    user_id: AppId | None = Field(default=None, description="Required when the session does not exist yet.")
    agent_id: AppId | None = None
    messages: list[MessageIn] = Field(min_length=1)


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


# --- working memory -------------------------------------------------------------------------------


class StatePutIn(Schema):
    state: Annotated[dict[str, Any], AfterValidator(_storable_state)]
    ttl_seconds: int | None = Field(default=None, description="Defaults to the namespace's working-memory TTL.")


class StatePatchIn(Schema):
    state: Annotated[dict[str, Any], AfterValidator(_storable_state)] = Field(
        description="Keys to set; a null value removes the key."
    )


class StateOut(Schema):
    state: dict[str, Any]
    ttl_seconds: int | None = Field(description="Seconds until the state expires.")


# --- memories -------------------------------------------------------------------------------------


class MemoryOut(Schema):
    id: str
    text: str
    user_id: str
    session_id: str | None
    agent_id: str | None
    memory_type: MemoryType
    status: MemoryStatus
    topics: list[str]
    entities: list[str]
    metadata: dict[str, Any]
    pinned: bool
    source: str
    created_at: datetime
    updated_at: datetime
    last_accessed_at: datetime | None
    revision: int


class MemoryPage(Schema):
    items: list[MemoryOut]
    next_cursor: str | None


class MemoryIn(Schema):
    text: Text
    user_id: AppId
    session_id: AppId | None = None
    agent_id: AppId | None = None
    memory_type: MemoryType = "semantic"
    topics: Topics | None = None
    entities: Entities | None = None
    metadata: Metadata | None = None
    pinned: bool = False


class MemoryPatchIn(Schema):
    text: Text | None = None
    memory_type: MemoryType | None = None
    topics: Topics | None = None
    entities: Entities | None = None
    metadata: Metadata | None = None
    reason: Reason = ""


class RevisionOut(Schema):
    revision: int
    text: str
    memory_type: MemoryType
    topics: list[str]
    entities: list[str]
    metadata: dict[str, Any]
    actor: str
    reason: str
    created_at: datetime


class RevisionList(Schema):
    items: list[RevisionOut]


class EvidenceOut(Schema):
    session_id: str
    message_id: str
    seq: int
    role: str
    content: str


class EvidenceList(Schema):
    items: list[EvidenceOut]


class ReasonIn(Schema):
    reason: Reason = ""


BulkAction = Literal["pin", "unpin", "forget", "approve", "reject"]


class BulkIn(Schema):
    action: BulkAction
    ids: list[Annotated[str, Field(max_length=64)]] = Field(min_length=1, max_length=1000)
    reason: Reason = ""


class BulkFailure(Schema):
    id: str
    error: ErrorDetail


class BulkOut(Schema):
    done: list[str]
    failed: list[BulkFailure]


class RecencyIn(Schema):
    enabled: bool = True
    access_half_life_days: float = Field(7.0, gt=0, le=36500, description="Half-life of the last-access decay.")
    freshness_half_life_days: float = Field(30.0, gt=0, le=36500, description="Half-life of the creation decay.")
    access_weight: float = Field(0.6, ge=0, le=1000, description="Weight of the last-access decay in recency.")
    creation_weight: float = Field(0.4, ge=0, le=1000, description="Weight of the creation decay in recency.")
    text_weight: float = Field(0.8, ge=0, le=1000, description="Weight of the text rank in the score.")
    recency_weight: float = Field(0.2, ge=0, le=1000, description="Weight of recency in the score.")


class SearchIn(Schema):
    query: Annotated[
        str,
        Field(
            min_length=1,
            max_length=2000,
            description="A question or any text as people write it; web-search syntax with `syntax: websearch`.",
            examples=["What kind of car does Evan drive?"],
        ),
    ]
    syntax: Literal["natural", "websearch"] = Field(
        default="natural",
        description=(
            "`natural`: any word may match (stemmed) and meaning counts (embeddings); `websearch`: "
            '`"quoted phrases"`, `or`, `-excluded`, and only matches are returned.'
        ),
    )
    explain: bool = Field(default=False, description="Give each hit the components of its score.")
    user_id: AppId | None = None
    session_id: AppId | None = None
    agent_id: AppId | None = None
    memory_types: list[MemoryType] | None = None
    topics: Topics | None = Field(default=None, description="Matches memories with any of these topics.")
    entities: Entities | None = Field(default=None, description="Matches memories with any of these entities.")
    status: Literal["active", "candidate", "any"] | None = Field(
        default=None, description="Defaults to active: candidates are left out unless asked for."
    )
    pinned: bool | None = None
    created_after: Timestamp | None = None
    created_before: Timestamp | None = None
    limit: Limit = 10
    cursor: Cursor | None = None
    recency: RecencyIn | None = None


class SearchMatchOut(Schema):
    query: str = Field(description="A word of the query.")
    memory: str = Field(description="The memory's word closest to it.")
    similarity: float = Field(description="1.0 for the same word; shown from 0.5.")


class SearchExplainOut(Schema):
    fulltext: float = Field(description="Share of the query's words the memory contains, weighted by rarity (0-1).")
    vector: float | None = Field(description="Cosine similarity of the embeddings; null when either has none.")
    terms: float = Field(description="How close the memory's words come to each query word (word vectors, 0-1).")
    relevance: float = Field(description="0.3 fulltext + 0.2 vector + 0.5 terms (without vectors: 0.375 + 0.625).")
    recency: float | None = Field(description="The recency blend's value; null when recency is off.")
    matches: list[SearchMatchOut] = Field(description="The query words the memory comes close to, closest first.")


class SearchHitOut(Schema):
    memory: MemoryOut
    score: float = Field(description="text_weight * relevance + recency_weight * recency (relevance alone without).")
    explain: SearchExplainOut | None = Field(default=None, description="With `explain: true`.")


class SearchOut(Schema):
    items: list[SearchHitOut]
    next_cursor: str | None


class ContextOut(Schema):
    summary: str | None
    messages: list[MessageOut]
    memories: list[MemoryOut]
    token_estimate: int


# --- documented answers -----------------------------------------------------------------------------

# What any authenticated operation may answer besides its own outcomes: a bad id,
# body or cursor (400), no key (401), a missing scope (403), a body over the limit
# (413), invalid fields (422), the key's rate limit reached (429), a dependency down (503).
COMMON_ERRORS = (400, 401, 403, 413, 422, 429, 503)


def responses(ok: dict[int, Any], *errors: int) -> dict[int, Any]:
    answers: dict[int, Any] = dict(ok)
    for status in sorted({*COMMON_ERRORS, *errors}):
        answers[status] = ErrorOut
    return answers
