"""Extraction runs of a session: start one now, list them."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from django.http import HttpRequest
from ninja import Router, Schema, Status
from pydantic import Field

from memoryadmin.api.auth import namespace_of, read_auth, write_auth
from memoryadmin.api.schemas import Cursor, Limit, responses
from memoryadmin.api.sessions import SessionIdPath
from memoryadmin.conversations.queries import session_get
from memoryadmin.core.errors import NotFound
from memoryadmin.core.replicas import lag_tolerant_view
from memoryadmin.extraction.queries import runs_page
from memoryadmin.extraction.representations import run_dict
from memoryadmin.extraction.services import extraction_schedule

router = Router(tags=["extraction"])


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
    status: Literal["queued", "running", "succeeded", "failed"]
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


@router.post(
    "/sessions/{session_id}/extract",
    auth=write_auth,
    response=responses({202: RunIdOut}, 404),
    summary="Extract now",
    description="Schedules the session's extraction without waiting for the debounce. "
    "A run that has not started yet is shared, so its id may come back more than once.",
)
def extraction_start(request: HttpRequest, session_id: str = SessionIdPath):
    session = session_get(namespace_of(request), session_id)
    run = extraction_schedule(session=session, delay=0)
    if run is None:
        raise NotFound("session not found")
    return Status(202, {"run_id": str(run.pk)})


@router.get(
    "/sessions/{session_id}/extraction",
    auth=read_auth,
    response=responses({200: RunPage}, 404),
    summary="Extraction runs of a session, newest first",
)
@lag_tolerant_view
def extraction_runs(
    request: HttpRequest, session_id: str = SessionIdPath, limit: Limit = 50, cursor: Cursor | None = None
):
    session = session_get(namespace_of(request), session_id)
    page = runs_page(session, limit=limit, cursor=cursor)
    return {"items": [run_dict(run) for run in page.items], "next_cursor": page.next_cursor}
