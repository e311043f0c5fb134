"""Typed models of every object the API returns, and of the messages it takes.

Fields the server adds later are kept (``model_extra``) rather than refused, so an
older client keeps working against a newer server.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

T = TypeVar("T")

MemoryType = Literal["semantic", "episodic", "preference", "summary", "utterance"]
# A kind or state the API answers with: one this client knows, or one a newer server added (kept as the text).
AnsweredMemoryType = MemoryType | str
Role = Literal["system", "user", "assistant", "tool"]
Kind = Literal["message", "instruction", "commentary", "supporting_context"]
# What a privacy link lets the person do: see and download, forget one memory, erase everything.
Right = Literal["read", "forget", "erase"]
# How precisely a memory's event date is known.
DatePrecision = Literal["day", "week", "month", "year"]
# Why a text must not come back: rejected in review, forgotten on request, or removed by a forgetting policy.
TombstoneReason = Literal["rejected", "forgotten", "policy"]


class Model(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)


class Page(Model, Generic[T]):
    """One page of a list. Pass ``next_cursor`` back as ``cursor`` for the next; ``None`` on the last page."""

    items: list[T]
    next_cursor: str | None = None


# --- conversations ----------------------------------------------------------------------------------


class Session(Model):
    session_id: str
    user_id: str
    agent_id: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    message_count: int
    created_at: datetime
    updated_at: datetime
    last_message_at: datetime | None = None


class Message(Model):
    id: str
    seq: int
    role: Role
    kind: Kind
    content: str
    name: str | None = None
    run_id: str | None = None
    tool_calls: Any = None
    tool_call_id: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    created_at: datetime
    persisted_at: datetime


class NewMessage(BaseModel):
    """A message to append."""

    model_config = ConfigDict(extra="forbid")

    role: Role
    content: str = ""
    kind: Kind = "message"
    name: str | None = None
    run_id: str | None = None
    tool_calls: Any = None
    tool_call_id: str | None = None
    metadata: dict[str, Any] | None = None
    created_at: datetime | None = None


class WorkingMemory(Model):
    state: dict[str, Any]
    ttl_seconds: int | None = None


# --- memories -------------------------------------------------------------------------------------------


class Memory(Model):
    id: str
    text: str
    user_id: str
    session_id: str | None = None
    agent_id: str | None = None
    memory_type: AnsweredMemoryType
    status: Literal["active", "candidate", "superseded"] | str
    topics: list[str] = Field(default_factory=list)
    entities: list[str] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)
    pinned: bool
    source: str
    created_at: datetime
    updated_at: datetime
    last_accessed_at: datetime | None = None
    revision: int
    subject: str | None = None
    attribute: str | None = None
    event_date: date | None = None
    event_date_precision: DatePrecision | None = None
    stated_at: datetime | None = None
    superseded_by: str | None = None
    superseded_at: datetime | None = None


class AddedMemory(Model):
    """The answer to `memories.add`: the memory, and whether it was already held (nothing new stored)."""

    memory: Memory
    deduplicated: bool


class SearchHit(Model):
    memory: Memory
    score: float


class Revision(Model):
    revision: int
    text: str
    memory_type: AnsweredMemoryType
    topics: list[str] = Field(default_factory=list)
    entities: list[str] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)
    actor: str
    reason: str = ""
    created_at: datetime


class Evidence(Model):
    session_id: str
    message_id: str
    seq: int
    role: str
    content: str


class ErrorDetail(Model):
    code: str
    message: str
    details: dict[str, Any] = Field(default_factory=dict)


class BulkFailure(Model):
    id: str
    error: ErrorDetail


class BulkResult(Model):
    done: list[str]
    failed: list[BulkFailure]


class Context(Model):
    """What to put in a prompt: relevant memories, a summary of older messages when one exists, the newest messages."""

    summary: str | None = None
    messages: list[Message]
    memories: list[Memory]
    token_estimate: int


# --- extraction -----------------------------------------------------------------------------------------


class RunCounts(Model):
    candidates: int
    created: int
    updated: int
    duplicates: int
    suppressed: int


class ExtractionRun(Model):
    id: str
    status: Literal["queued", "running", "succeeded", "failed"]
    strategy: str
    from_seq: int | None = None
    to_seq: int | None = None
    counts: RunCounts
    error: str | None = None
    created_at: datetime
    started_at: datetime | None = None
    finished_at: datetime | None = None
    duration_ms: int | None = None


# --- governance ------------------------------------------------------------------------------------------


class ForgettingPolicy(BaseModel):
    """Which memories a forgetting run selects (see docs/governance.md)."""

    model_config = ConfigDict(extra="forbid")

    max_age_days: float | None = None
    max_inactive_days: float | None = None
    budget: int | None = None
    memory_type_allowlist: list[MemoryType] | None = None
    hard_age_multiplier: float = 12.0


class Selected(Model):
    id: str
    reason: str


class ForgetResult(Model):
    dry_run: bool
    scanned: int
    selected: list[Selected]
    deleted: int
    run_id: str | None = None


class RestoreCounts(Model):
    created: int
    updated: int
    unchanged: int
    suppressed: int
    skipped_erased: int
    skipped: int


class RestoreResult(Model):
    dry_run: bool
    records: int
    counts: RestoreCounts
    by_type: dict[str, RestoreCounts]


class ErasureAccepted(Model):
    erasure_id: str
    status: str


class Erasure(Model):
    erasure_id: str
    status: Literal["pending", "running", "completed", "failed"] | str
    counts: dict[str, int]
    receipt: dict[str, Any] | None = None
    created_at: datetime
    completed_at: datetime | None = None
    error: str | None = None


class PrivacyLink(Model):
    """A new link: `url` is shown this once; the server keeps only what the link allows."""

    link_id: str
    url: str
    rights: list[Right]
    expires_at: datetime


class PrivacyLinkInfo(Model):
    """A link as listed with its person: never its URL."""

    link_id: str
    rights: list[Right]
    status: Literal["active", "expired", "revoked"]
    created_by: str
    created_at: datetime
    expires_at: datetime
    revoked_at: datetime | None = None
    last_used_at: datetime | None = None


class Tombstone(Model):
    """What was forgotten or rejected and must not come back; `text` only for an operator's rejection."""

    id: int
    user_id: str
    reason: TombstoneReason
    text: str | None = None
    memory_type: str | None = None
    actor: str
    created_at: datetime


class Health(Model):
    status: str
    database: str
    redis: str
