"""Tombstones (the `tombstones` router)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from ninja import Schema
from pydantic import Field

from memoryadmin.memories.enums import TombstoneReason


class TombstoneOut(Schema):
    id: int
    user_id: str
    reason: Literal[tuple(TombstoneReason.values)] = Field(  # type: ignore[valid-type]
        description="rejected by an operator's review, forgotten on request (by the app, an operator or the "
        "person), or removed by a forgetting policy"
    )
    text: str | None = Field(
        description="Kept only for an operator's rejection; a forgotten memory leaves nothing but its fingerprint."
    )
    memory_type: str | None
    actor: str
    created_at: datetime


class TombstonePage(Schema):
    items: list[TombstoneOut]
    next_cursor: str | None
