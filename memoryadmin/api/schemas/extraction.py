"""Extraction runs (the `extraction` router)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from ninja import Schema
from pydantic import Field

from memoryadmin.extraction.enums import RunStatus


class RunIdOut(Schema):
    run_id: str


class RunCounts(Schema):
    candidates: int = Field(description="Memories the strategy proposed.")
    created: int = Field(description="New memories (candidates when the namespace requires review).")
    updated: int = Field(description="Existing memories extended in place (the session summary).")
    duplicates: int = Field(description="Proposals that matched a memory already held (evidence linked to it).")
    suppressed: int = Field(description="Proposals refused by a tombstone: forgotten or rejected text.")
    superseded: int = Field(
        description="Older memories its new statements replaced (same subject and attribute; kept as history)."
    )


class RunOut(Schema):
    id: str
    status: Literal[tuple(RunStatus.values)]  # type: ignore[valid-type]
    strategy: str
    from_seq: int | None
    to_seq: int | None
    counts: RunCounts
    error: str | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    duration_ms: int | None


class RunPage(Schema):
    items: list[RunOut]
    next_cursor: str | None
