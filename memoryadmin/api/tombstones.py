"""Tombstones: what must not come back, listed and lifted under the `tombstones` scope."""

from __future__ import annotations

from typing import Annotated, Literal

from django.http import HttpRequest
from ninja import Path, Router, Status

from memoryadmin.api.auth import actor_of, namespace_of, tombstones_auth
from memoryadmin.api.pages import page_answer
from memoryadmin.api.schemas.common import AppId, Cursor, Limit, RequiredReason, responses
from memoryadmin.api.schemas.tombstones import TombstonePage
from memoryadmin.core.replicas import lag_tolerant_view
from memoryadmin.memories.enums import TombstoneReason
from memoryadmin.memories.models import Tombstone
from memoryadmin.memories.queries import tombstone_get, tombstones_page
from memoryadmin.memories.services import tombstone_lift

router = Router(tags=["tombstones"], auth=tombstones_auth)

TombstoneId = Annotated[int, Path(ge=1, le=2**63 - 1, description="The id of a tombstone, from the list.")]


def tombstone_dict(tombstone: Tombstone) -> dict:
    return {
        "id": tombstone.pk,
        "user_id": tombstone.user_id,
        "reason": tombstone.reason,
        # Only a rejection keeps its text; never show one for what a person asked to forget.
        "text": (tombstone.text or None) if tombstone.reason == TombstoneReason.REJECTED else None,
        "memory_type": tombstone.memory_type or None,
        "actor": tombstone.actor,
        "created_at": tombstone.created_at,
    }


@router.get(
    "/tombstones",
    response=responses({200: TombstonePage}),
    summary="Tombstones, newest first",
    description="Needs the `tombstones` scope. Filter by person and by reason.",
)
@lag_tolerant_view
def tombstone_list(
    request: HttpRequest,
    user_id: AppId | None = None,
    reason: Literal["rejected", "forgotten", "policy"] | None = None,
    limit: Limit = 50,
    cursor: Cursor | None = None,
):
    page = tombstones_page(namespace_of(request), user_id=user_id, reason=reason, cursor=cursor, limit=limit)
    return page_answer(page, tombstone_dict)


@router.delete(
    "/tombstones/{tombstone_id}",
    response=responses({204: None}, 404),
    summary="Lift a tombstone",
    description=(
        "Needs the `tombstones` scope and a `reason`, which the audit trail keeps. The same text may then be "
        "stored again for that person."
    ),
)
def tombstone_lift_one(request: HttpRequest, tombstone_id: TombstoneId, reason: RequiredReason):
    tombstone = tombstone_get(namespace_of(request), tombstone_id)
    tombstone_lift(tombstone=tombstone, actor=actor_of(request), reason=reason)
    return Status(204, None)
