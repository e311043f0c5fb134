"""Forgetting policies, snapshots, erasures and privacy links (the `governance` router)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, Literal

from ninja import Schema
from pydantic import Field

from memoryadmin.api.schemas.common import AppId, Body, Flag, Reason, integer, number
from memoryadmin.api.schemas.memories import MemoryType
from memoryadmin.governance.enums import PrivacyRight
from memoryadmin.governance.privacy_links import MAX_TTL_SECONDS, MIN_TTL_SECONDS


class PolicyIn(Body):
    # A misspelt rule must not quietly select nothing: unknown keys are refused like everywhere.
    max_age_days: number(ge=0, le=1_000_000) | None = None
    max_inactive_days: number(ge=0, le=1_000_000) | None = None
    budget: integer(ge=0, le=2**31 - 1) | None = None
    memory_type_allowlist: list[MemoryType] | None = Field(None, max_length=10)
    hard_age_multiplier: number(ge=1, le=1_000_000) = 12.0


class ForgetIn(Body):
    policy: PolicyIn
    user_id: AppId | None = None
    session_id: AppId | None = None
    dry_run: Flag = True


class SelectedOut(Schema):
    id: uuid.UUID
    reason: str = Field(description="age | inactive | inactive_and_age | hard_age | budget")


class ForgetOut(Schema):
    dry_run: bool
    scanned: int
    selected: list[SelectedOut]
    deleted: int
    run_id: uuid.UUID | None = None


class RestoreCounts(Schema):
    created: int
    updated: int
    unchanged: int
    suppressed: int
    skipped_erased: int
    skipped: int


class RestoreOut(Schema):
    dry_run: bool
    records: int
    counts: RestoreCounts
    by_type: dict[str, RestoreCounts]


class ErasureAccepted(Schema):
    erasure_id: uuid.UUID
    status: str


class ErasureOut(Schema):
    erasure_id: uuid.UUID
    status: str = Field(description="pending | running | completed | failed")
    counts: dict[str, int]
    receipt: dict[str, Any] | None
    created_at: datetime
    completed_at: datetime | None
    error: str | None = None


class ErasureIn(Body):
    reason: Reason = ""


Right = Literal[tuple(PrivacyRight.values)]  # type: ignore[valid-type]


class PrivacyLinkIn(Body):
    ttl_seconds: integer(ge=MIN_TTL_SECONDS, le=MAX_TTL_SECONDS) = 86400
    rights: list[Right] | None = Field(
        default=None,
        min_length=1,
        description=(
            "What the link lets the person do: `read` (see and download), `forget` (one memory at a time), "
            "`erase` (everything). Each needs the key's matching scope (`read`, `write`, `erase`); left out, "
            "the link gets every right the key can grant."
        ),
    )


class PrivacyLinkOut(Schema):
    link_id: uuid.UUID
    url: str
    rights: list[Right]
    expires_at: datetime


class PrivacyLinkInfo(Schema):
    link_id: uuid.UUID
    rights: list[Right]
    status: Literal["active", "expired", "revoked"]
    created_by: str
    created_at: datetime
    expires_at: datetime
    revoked_at: datetime | None
    last_used_at: datetime | None


class PrivacyLinkPage(Schema):
    items: list[PrivacyLinkInfo]
    next_cursor: str | None
