"""Request and response bodies of the API (the contract of docs/api.md, as OpenAPI).

The schema is the contract: what it allows, the server accepts, and what it
forbids, the server refuses with 422 (400 for a malformed id). So request
bodies refuse fields they do not know, numbers and booleans are not read out
of other types (`true` is not the integer 1), and every limit the services
check is published here too, taken from where the data is defined.

One module on purpose: every shape of the contract in one place, as the OpenAPI snapshot test
(tests/api/openapi.json) holds them.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Annotated, Any, Literal

from django.conf import settings
from ninja import Path, Schema
from pydantic import AfterValidator, AwareDatetime, BeforeValidator, ConfigDict, Field

from memoryadmin.conversations.services import NewMessage
from memoryadmin.conversations.working_memory import MAX_KEY_CHARS, MAX_KEYS, MAX_TTL_SECONDS
from memoryadmin.core.app_ids import APP_ID_RE
from memoryadmin.core.pagination import MAX_LIMIT
from memoryadmin.core.storable_json import json_problem
from memoryadmin.core.timestamps import not_in_future
from memoryadmin.memories import models
from memoryadmin.memories.models import MAX_ENTITY_CHARS, MAX_LABELS, MAX_TOPIC_CHARS
from memoryadmin.memories.search import MAX_QUERY_CHARS

# --- shared pieces -------------------------------------------------------------------------------


class Body(Schema):
    """A request body. A field it does not know is refused (422 naming it): a misspelt
    `tpoics` must not store nothing and say nothing."""

    model_config = ConfigDict(extra="forbid")


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
    # Working memory lives in Redis as JSON text: its depth is limited, and its numbers, so that
    # every value can be read back and answered as JSON.
    if problem := json_problem(value, strings=False):
        raise ValueError(problem)
    return value


def _in_utc(value: datetime) -> datetime:
    """Stored and shown in UTC, so a time must exist in UTC (year 1 to 9999)."""
    try:
        return value.astimezone(UTC)
    except OverflowError:
        raise ValueError("must lie between years 1 and 9999 in UTC") from None


def _a_number(value: Any) -> Any:
    # JSON has no truthy numbers: `true` is a boolean, "5" a string, and neither is read as 5.
    if isinstance(value, bool | str | bytes):
        raise ValueError("must be a number")
    return value


def _at_most_bytes(limit_setting: str) -> Any:
    def check(value: str) -> str:
        limit = getattr(settings, limit_setting)
        if len(value.encode()) > limit:
            raise ValueError(f"must be at most {limit} bytes of UTF-8")
        return value

    return AfterValidator(check)


# What str.strip() removes (the services trim text), spelt out so every regex engine (the
# server's, and any client's reading the schema) agrees on what counts as blank. Unicode has
# no white space outside the Basic Multilingual Plane.
_BLANK = "".join(f"\\u{ord(c):04x}" for c in map(chr, range(0x10000)) if c.isspace())
NO_NUL = r"^[^\u0000]*$"
NOT_BLANK = rf"^[^\u0000]*[^\u0000{_BLANK}][^\u0000]*$"


def integer(**limits: Any) -> Any:
    """An integer body field; `limits` are Field's (ge, le), published in the schema and checked."""
    return Annotated[int, Field(**limits), BeforeValidator(_a_number)]


def number(**limits: Any) -> Any:
    """A number body field (an integer is a number too); `limits` as for `integer`."""
    return Annotated[float, Field(**limits), BeforeValidator(_a_number)]


Integer = integer()
Number = number()
Flag = Annotated[bool, Field(strict=True)]


def _a_string(value: Any) -> Any:
    # RFC 3339 is text: a JSON number would be read as seconds since 1970 (0 became 1970-01-01).
    if not isinstance(value, str | datetime):
        raise ValueError("must be an RFC 3339 time (a string with an offset)")
    return value


def _not_in_future(value: datetime) -> datetime:
    if not not_in_future(value, datetime.now(UTC)):
        raise ValueError("must not lie in the future")
    return value


Timestamp = Annotated[AwareDatetime, BeforeValidator(_a_string), AfterValidator(_in_utc)]
# When something was said or seen: in the past, give or take the clocks' skew.
PastTimestamp = Annotated[Timestamp, AfterValidator(_not_in_future)]
AppId = Annotated[
    str,
    Field(pattern=APP_ID_RE, description=f"An id chosen by the app, matching `{APP_ID_RE}`.", examples=["alice"]),
]
Text = Annotated[
    str,
    Field(
        pattern=NOT_BLANK,
        max_length=settings.MAX_MEMORY_TEXT_BYTES,
        description=(
            f"Not blank; at most {settings.MAX_MEMORY_TEXT_BYTES} bytes of UTF-8 once leading and trailing "
            "white space is trimmed."
        ),
    ),
    _at_most_bytes("MAX_MEMORY_TEXT_BYTES"),
]
Reason = Annotated[str, Field(max_length=1000, pattern=NO_NUL)]
RequiredReason = Annotated[
    str, Field(min_length=1, max_length=1000, pattern=NOT_BLANK, description="Why; kept by the audit trail.")
]
Metadata = Annotated[
    dict[str, Any],
    Field(
        description=(
            "Any JSON object the app keeps with it: no NUL in any string, every number strictly between "
            "-2^63 and 2^63, nested at most 32 levels (422 otherwise)."
        )
    ),
    AfterValidator(_reject_nul),
    AfterValidator(_storable),
]
Topics = Annotated[
    list[Annotated[str, Field(max_length=MAX_TOPIC_CHARS, pattern=NO_NUL)]], Field(max_length=MAX_LABELS)
]
Entities = Annotated[
    list[Annotated[str, Field(max_length=MAX_ENTITY_CHARS, pattern=NO_NUL)]], Field(max_length=MAX_LABELS)
]
UserIdPath = Path(..., pattern=APP_ID_RE, description="The app's id of the person.")
Limit = Annotated[int, Field(ge=1, le=MAX_LIMIT)]
BodyLimit = integer(ge=1, le=MAX_LIMIT)
Cursor = Annotated[
    str, Field(max_length=512, pattern=r"^[A-Za-z0-9_-]+$", description="`next_cursor` of the previous page.")
]

# The models' choices, so a value the model gains is one the contract accepts.
MemoryType = Literal[tuple(models.MemoryType.values)]  # type: ignore[valid-type]
MemoryStatus = Literal[tuple(models.MemoryStatus.values)]  # type: ignore[valid-type]
DatePrecision = Literal[tuple(models.DatePrecision.values)]  # type: ignore[valid-type]


class FieldError(Schema):
    field: str = Field(description="Where the problem is: `text`, `messages[0].content`, `policy.budget`.")
    message: str


class ErrorDetail(Schema):
    code: str = Field(
        examples=["validation_error"],
        description=(
            "Stable, for programs. 400: `bad_request`, `invalid_id`, `invalid_cursor` (a cursor from another "
            "list or query, or altered), `invalid_precondition`, `user_id_required`; 404 `not_found`; "
            "409: `conflict`, `duplicate`, `tombstoned`, `pinned`, `session_deleted`; 412 `precondition_failed`; "
            "422 `validation_error`; the rest are named in docs/api.md."
        ),
    )
    message: str
    details: dict[str, Any] = Field(
        default_factory=dict,
        description="For 400 `invalid_id` and 422 `validation_error`: `fields`, a list of `FieldError`.",
    )


class ErrorOut(Schema):
    error: ErrorDetail


# --- sessions and messages ------------------------------------------------------------------------


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


Role = Literal["system", "user", "assistant", "tool"]
Kind = Literal["message", "instruction", "commentary", "supporting_context"]


class MessageIn(Body):
    role: Role
    content: Annotated[
        str,
        Field(
            pattern=NO_NUL,
            max_length=settings.MAX_MESSAGE_CONTENT_BYTES,
            description=f"At most {settings.MAX_MESSAGE_CONTENT_BYTES} bytes of UTF-8.",
        ),
        _at_most_bytes("MAX_MESSAGE_CONTENT_BYTES"),
    ] = ""
    kind: Kind = "message"
    name: Annotated[str, Field(max_length=128, pattern=NO_NUL)] | None = None
    run_id: AppId | None = None
    tool_calls: Annotated[Any, AfterValidator(_reject_nul), AfterValidator(_storable)] = None
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


# --- working memory -------------------------------------------------------------------------------


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
    subject: str | None = Field(description="Who the memory is about, when a conversation names them.")
    attribute: str | None = Field(
        description="The single-valued attribute it states (residence, car…): a newer one supersedes it."
    )
    event_date: date | None = Field(
        description="When the event it records happened, when known: the first day of its week, month or year "
        "when only that is known (see event_date_precision)."
    )
    event_date_precision: DatePrecision | None = Field(description="How much of event_date is known.")
    stated_at: datetime | None = Field(description="When it was said: its newest evidence, or as the app gave it.")
    superseded_by: str | None = Field(description="The memory that replaced it (status superseded).")
    superseded_at: datetime | None


class MemoryPage(Schema):
    items: list[MemoryOut]
    next_cursor: str | None


class MemoryIn(Body):
    text: Text
    user_id: AppId
    session_id: AppId | None = None
    agent_id: AppId | None = None
    memory_type: MemoryType = "semantic"
    topics: Topics | None = None
    entities: Entities | None = None
    metadata: Metadata | None = None
    pinned: Flag = False
    stated_at: Timestamp | None = Field(
        default=None,
        description="When it was said (an app importing history gives the conversation's time); defaults to now. "
        'Relative dates in the text ("yesterday", "last week") are read against it for `event_date`.',
    )
    event_date: date | None = Field(
        default=None, description="When the event it records happened (the first day of its week, month or year)."
    )
    event_date_precision: DatePrecision | None = Field(
        default=None, description="How much of event_date is known; `day` when event_date is given alone."
    )


class MemoryPatchIn(Body):
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


class ReasonIn(Body):
    reason: Reason = ""


BulkAction = Literal["pin", "unpin", "forget", "approve", "reject"]


class BulkIn(Body):
    action: BulkAction
    ids: list[Annotated[str, Field(max_length=64)]] = Field(
        min_length=1,
        max_length=1000,
        description="Memory ids. Each is reported done or failed on its own: `invalid_id` for one that is not "
        "a memory id at all, `not_found` for one that names no memory of this namespace.",
    )
    reason: Reason = ""


class BulkFailure(Schema):
    id: str
    error: ErrorDetail


class BulkOut(Schema):
    done: list[str]
    failed: list[BulkFailure]


class RecencyIn(Body):
    enabled: Flag = True
    access_half_life_days: number(gt=0, le=36500) = Field(7.0, description="Half-life of the last-access decay.")
    freshness_half_life_days: number(gt=0, le=36500) = Field(30.0, description="Half-life of the creation decay.")
    access_weight: number(ge=0, le=1000) = Field(0.6, description="Weight of the last-access decay in recency.")
    creation_weight: number(ge=0, le=1000) = Field(0.4, description="Weight of the creation decay in recency.")
    text_weight: number(ge=0, le=1000) = Field(0.8, description="Weight of the text rank in the score.")
    recency_weight: number(ge=0, le=1000) = Field(0.2, description="Weight of recency in the score.")


class SearchIn(Body):
    query: Annotated[
        str,
        Field(
            min_length=1,
            max_length=MAX_QUERY_CHARS,
            pattern=NOT_BLANK,
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
    status: Literal["active", "candidate", "superseded", "any"] | None = Field(
        default=None,
        description="Defaults to active: candidates and superseded memories are left out unless asked for.",
    )
    pinned: Flag | None = None
    created_after: Timestamp | None = None
    created_before: Timestamp | None = None
    stated_after: Timestamp | None = Field(default=None, description="Said at or after this time.")
    stated_before: Timestamp | None = Field(default=None, description="Said before this time.")
    event_after: date | None = Field(default=None, description="Events on or after this day (memories with one).")
    event_before: date | None = Field(default=None, description="Events before this day (memories with one).")
    as_of: Timestamp | None = Field(
        default=None,
        description="Answer as of this time: memories said by then (superseded ones included when their "
        'replacement was said later), and the query\'s relative dates ("last week") counted from it. '
        "Defaults to now.",
    )
    limit: BodyLimit = 10
    cursor: Cursor | None = None
    recency: RecencyIn | None = None


class SearchMatchOut(Schema):
    query: str = Field(description="A word of the query.")
    memory: str = Field(description="The memory's word closest to it.")
    similarity: float = Field(description="1.0 for the same word; shown from 0.5.")


class SearchExplainOut(Schema):
    fulltext: float = Field(description="Share of the query's words the memory contains, weighted by rarity (0-1).")
    vector: float | None = Field(
        description="Cosine similarity of the memory's embedding and the query's, the query's moved towards its "
        "3 best hits' (pseudo-relevance feedback); null when either has none."
    )
    vector_query: float | None = Field(
        description="Cosine similarity of the memory's embedding and the query's own, before feedback."
    )
    terms: float = Field(description="How close the memory's words come to each query word (word vectors, 0-1).")
    dates: float | None = Field(
        default=None,
        description="How near the query's dates or periods the memory was said or happened (0-1); null when the "
        "query names none.",
    )
    relevance: float = Field(
        description="0.3 fulltext + 0.2 vector + 0.5 terms (without vectors: 0.375 + 0.625), times "
        "1 - 0.5 (1 - dates) when the query names dates, times 0.85 for an utterance."
    )
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
# (413), a request target too long (414), invalid fields (422), a rate limit reached
# (429), headers too large (431), a dependency down (503).
COMMON_ERRORS = (400, 401, 403, 413, 414, 422, 429, 431, 503)


def responses(ok: dict[int, Any], *errors: int) -> dict[int, Any]:
    answers: dict[int, Any] = dict(ok)
    for status in sorted({*COMMON_ERRORS, *errors}):
        answers[status] = ErrorOut
    return answers
