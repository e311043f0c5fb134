"""Extraction runs of a session: start one now, list them."""

from __future__ import annotations

from django.http import HttpRequest
from ninja import Router, Status

from memoryadmin.api.auth import namespace_of, read_auth, write_auth
from memoryadmin.api.pages import page_answer
from memoryadmin.api.schemas.common import Cursor, Limit, responses
from memoryadmin.api.schemas.extraction import RunIdOut, RunPage
from memoryadmin.api.sessions import SessionIdPath
from memoryadmin.conversations.queries import session_get
from memoryadmin.core.errors import NotFound
from memoryadmin.core.replicas import lag_tolerant_view
from memoryadmin.extraction.queries import runs_page
from memoryadmin.extraction.representations import run_dict
from memoryadmin.extraction.services import extraction_schedule

router = Router(tags=["extraction"])


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
    return page_answer(page, run_dict)
