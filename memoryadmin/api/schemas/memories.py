"""Long-term memories: their shape, edits, bulk actions and search (the `memories` router)."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Any, Literal

from ninja import Schema
from pydantic import Field

from memoryadmin.api.schemas.common import (
    NO_NUL,
    NOT_BLANK,
    AppId,
    Body,
    BodyLimit,
    Cursor,
    Day,
    Entities,
    ErrorDetail,
    Flag,
    Metadata,
    Reason,
    Text,
    Timestamp,
    Topics,
    number,
)
from memoryadmin.memories import enums
from memoryadmin.memories.search.query import MAX_QUERY_CHARS, SYNTAXES
from memoryadmin.memories.search.scope import STATUS_ANY
from memoryadmin.memories.search.scoring import MAX_HALF_LIFE_DAYS, MAX_WEIGHT, Recency
from memoryadmin.memories.services import BULK_ACTIONS, MAX_BULK_IDS

# The models' choices, so a value the model gains is one the contract accepts.
MemoryType = Literal[tuple(enums.MemoryType.values)]  # type: ignore[valid-type]
MemoryStatus = Literal[tuple(enums.MemoryStatus.values)]  # type: ignore[valid-type]
DatePrecision = Literal[tuple(enums.DatePrecision.values)]  # type: ignore[valid-type]
# What a list or a search may ask for: one status, or every one.
StatusFilter = Literal[(*enums.MemoryStatus.values, STATUS_ANY)]  # type: ignore[valid-type]


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
    event_date: Day | None = Field(
        default=None, description="When the event it records happened (the first day of its week, month or year)."
    )
    event_date_precision: DatePrecision | None = Field(
        default=None, description="How much of event_date is known; `day` when event_date is given alone."
    )
    attribute: str | None = Field(
        default=None,
        max_length=100,
        pattern=NO_NUL,
        description="The single-valued attribute it states (`residence`, `employer`, `car`…): of the person's "
        "memories stating it (about the same `subject`), the one said last is current and the others superseded, "
        "as extraction keeps them.",
        examples=["residence"],
    )
    subject: str | None = Field(
        default=None,
        max_length=200,
        pattern=NO_NUL,
        description="Who the attribute is of, when not the person themselves (`Alice's brother Luis`); "
        "empty for the person.",
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


BulkAction = Literal[BULK_ACTIONS]  # type: ignore[valid-type]


class BulkIn(Body):
    action: BulkAction
    ids: list[Annotated[str, Field(max_length=64)]] = Field(
        min_length=1,
        max_length=MAX_BULK_IDS,
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


# The bounds and defaults are the scoring's own (memoryadmin.memories.search.scoring.Recency).
HalfLife = number(gt=0, le=MAX_HALF_LIFE_DAYS)
Weight = number(ge=0, le=MAX_WEIGHT)


class RecencyIn(Body):
    enabled: Flag = Recency.enabled
    access_half_life_days: HalfLife = Field(
        Recency.access_half_life_days, description="Half-life of the last-access decay."
    )
    freshness_half_life_days: HalfLife = Field(
        Recency.freshness_half_life_days, description="Half-life of the creation decay."
    )
    access_weight: Weight = Field(Recency.access_weight, description="Weight of the last-access decay in recency.")
    creation_weight: Weight = Field(Recency.creation_weight, description="Weight of the creation decay in recency.")
    text_weight: Weight = Field(Recency.text_weight, description="Weight of the text rank in the score.")
    recency_weight: Weight = Field(Recency.recency_weight, description="Weight of recency in the score.")

    def as_recency(self) -> Recency:
        return Recency(**self.model_dump())


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
    syntax: Literal[SYNTAXES] = Field(  # type: ignore[valid-type]
        default=SYNTAXES[0],
        description=(
            "`natural`: any word may match (stemmed) and meaning counts (embeddings); `websearch`: "
            '`"quoted phrases"`, `or`, `-excluded`, and only matches are returned.'
        ),
    )
    explain: Flag = Field(default=False, description="Give each hit the components of its score.")
    user_id: AppId | None = None
    session_id: AppId | None = None
    agent_id: AppId | None = None
    memory_types: list[MemoryType] | None = None
    topics: Topics | None = Field(default=None, description="Matches memories with any of these topics.")
    entities: Entities | None = Field(default=None, description="Matches memories with any of these entities.")
    status: StatusFilter | None = Field(
        default=None,
        description="Defaults to active: candidates and superseded memories are left out unless asked for.",
    )
    pinned: Flag | None = None
    created_after: Timestamp | None = None
    created_before: Timestamp | None = None
    stated_after: Timestamp | None = Field(default=None, description="Said at or after this time.")
    stated_before: Timestamp | None = Field(default=None, description="Said before this time.")
    event_after: Day | None = Field(default=None, description="Events on or after this day (memories with one).")
    event_before: Day | None = Field(default=None, description="Events before this day (memories with one).")
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
        description="0.3 fulltext + 0.2 vector + 0.5 terms (without vectors: 0.375 + 0.625), plus 0.15 when "
        "attribute_asked; times 1 - 0.5 (1 - dates) when the query names dates (times dates when it asks for a "
        "time alone), times 0.85 for an utterance, times 0.8 when about_other, times 0.6 when opposite_sentiment, "
        "times 0.5 when own_name; plus 0.05 sitting; plus 0.15 times the best hit's relevance when context."
    )
    recency: float | None = Field(description="The recency blend's value; null when recency is off.")
    about_other: bool = Field(
        default=False,
        description="The query names a person the memories are about, and this memory leads with another of them.",
    )
    opposite_sentiment: bool = Field(
        default=False,
        description="The query asks what someone likes (or dislikes), and this memory says the opposite.",
    )
    attribute_asked: bool = Field(
        default=False,
        description='The memory states an attribute the query asks about ("Where does she work?": employer); '
        "the words that asked it count as matched in fulltext and terms.",
    )
    own_name: bool = Field(
        default=False,
        description="The memory gives the person's own name (attribute `name`) and the query asks for no name.",
    )
    context: bool = Field(
        default=False,
        description="Said within an hour of the best hit (it included), when not every candidate was.",
    )
    sitting: float = Field(
        default=0.0,
        description="The relevance of the best other candidate said within an hour of it (0 when every candidate "
        "was said within one hour).",
    )
    matches: list[SearchMatchOut] = Field(description="The query words the memory comes close to, closest first.")


class SearchHitOut(Schema):
    memory: MemoryOut
    score: float = Field(description="text_weight * relevance + recency_weight * recency (relevance alone without).")
    explain: SearchExplainOut | None = Field(default=None, description="With `explain: true`.")


class SearchOut(Schema):
    items: list[SearchHitOut]
    next_cursor: str | None
