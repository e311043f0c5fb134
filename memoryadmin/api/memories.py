"""Long-term memories: the write path, reads, search, pins, review and forgetting."""

from __future__ import annotations

import uuid
from typing import Any

from django.http import HttpRequest, HttpResponse
from ninja import Router, Status

from memoryadmin.api.auth import actor_of, namespace_of, read_auth, write_auth
from memoryadmin.api.errors import service_details
from memoryadmin.api.operations.memories import (
    memory_answer,
    memory_forget_one,
    memory_pin_set,
    memory_remember,
    search_answer,
)
from memoryadmin.api.pages import page_answer
from memoryadmin.api.preconditions import ETAG_HEADER, IfMatch, expected_revision, with_etag
from memoryadmin.api.renderers import rendered
from memoryadmin.api.schemas.common import AppId, Cursor, Day, Limit, Reason, Timestamp, responses
from memoryadmin.api.schemas.memories import (
    BulkIn,
    BulkOut,
    EvidenceList,
    MemoryIn,
    MemoryOut,
    MemoryPage,
    MemoryPatchIn,
    MemoryType,
    ReasonIn,
    RevisionList,
    SearchIn,
    SearchOut,
    StatusFilter,
)
from memoryadmin.core.errors import NotFound
from memoryadmin.core.replicas import lag_tolerant_view
from memoryadmin.memories.queries import (
    TimeFilters,
    memories_page,
    memory_evidence,
    memory_get,
    memory_revisions,
)
from memoryadmin.memories.representations import evidence_dict, memory_dict, revision_dict
from memoryadmin.memories.services import (
    Outcome,
    memories_bulk_apply,
    memory_approve,
    memory_reject,
    memory_update,
)
from memoryadmin.tenancy.models import Namespace

router = Router(tags=["memories"])
# Answers that carry the memory document its ETag.
WITH_ETAG = {"responses": {200: {"headers": ETAG_HEADER}}}


def _answer(namespace: Namespace, memory: Any, response: HttpResponse) -> dict:
    """The memory as this request left it, with `pinned` as it is now; its ETag set.

    It is read again for `pinned` and what the service does not return; but another editor may have written
    the next revision since this one committed, and an answer reports the revision it wrote, not theirs.
    """
    try:
        fresh = memory_get(namespace, memory.pk)
    except NotFound:
        fresh = None  # forgotten since: the answer is still what was written
    shown = fresh if fresh is not None and fresh.revision == memory.revision else memory
    pinned = fresh.pinned if fresh is not None else getattr(memory, "pinned", False)
    with_etag(response, shown)
    return memory_dict(shown, pinned=pinned)


@router.post(
    "/memories",
    auth=write_auth,
    response=responses({201: MemoryOut, 200: MemoryOut}, 409),
    summary="Remember something",
    description=(
        "201 with the new memory; 200 with the existing one and `X-Deduplicated: true` when the same text "
        "(after normalisation) is already stored for that user; 409 `tombstoned` when it was forgotten or "
        "rejected before."
    ),
)
def memory_add(request: HttpRequest, payload: MemoryIn, response: HttpResponse):
    namespace = namespace_of(request)
    result = memory_remember(namespace=namespace, actor=actor_of(request), args=payload)
    body = _answer(namespace, result.memory, response)
    if result.outcome is Outcome.CREATED:
        return Status(201, body)
    response["X-Deduplicated"] = "true"
    return Status(200, body)


@router.get("/memories", auth=read_auth, response=responses({200: MemoryPage}), summary="Memories, newest first")
@lag_tolerant_view
def memory_list(
    request: HttpRequest,
    user_id: AppId | None = None,
    session_id: AppId | None = None,
    agent_id: AppId | None = None,
    memory_type: MemoryType | None = None,
    status: StatusFilter | None = None,
    pinned: bool | None = None,
    stated_after: Timestamp | None = None,
    stated_before: Timestamp | None = None,
    event_after: Day | None = None,
    event_before: Day | None = None,
    limit: Limit = 50,
    cursor: Cursor | None = None,
):
    page = memories_page(
        namespace_of(request),
        user_id=user_id,
        session_id=session_id,
        agent_id=agent_id,
        memory_type=memory_type,
        status=status,
        pinned=pinned,
        cursor=cursor,
        limit=limit,
        times=TimeFilters(
            stated_after=stated_after, stated_before=stated_before, event_after=event_after, event_before=event_before
        ),
    )
    return page_answer(page, memory_answer)


@router.post(
    "/memories/search",
    auth=read_auth,
    response=responses({200: SearchOut}),
    summary="Search memories",
    description=(
        "Questions as people write them: full text (any word, stemmed) and embedding similarity fused, then "
        "blended with recency (`syntax: websearch` for web-search operators). Filters are applied as given and "
        "never relaxed: an empty result is an answer. Candidates are left out unless `status` asks for them. "
        "`explain: true` gives each hit its score's components. Returned memories count as accessed (at most "
        "once per memory per 15 minutes)."
    ),
)
@lag_tolerant_view
def memory_search(request: HttpRequest, payload: SearchIn):
    return rendered(search_answer(namespace_of(request), payload))


@router.post(
    "/memories/bulk",
    auth=write_auth,
    response=responses({200: BulkOut}),
    summary="One action on many memories",
    description="At most 1,000 ids; each succeeds or fails on its own.",
)
def memory_bulk(request: HttpRequest, payload: BulkIn):
    result = memories_bulk_apply(
        namespace=namespace_of(request),
        action=payload.action,
        ids=payload.ids,
        actor=actor_of(request),
        reason=payload.reason,
    )
    return {
        "done": result.done,
        "failed": [
            {"id": raw, "error": {"code": exc.code, "message": exc.message, "details": service_details(exc)}}
            for raw, exc in result.failed
        ],
    }


@router.get(
    "/memories/{memory_id}",
    auth=read_auth,
    response=responses({200: MemoryOut}, 404),
    summary="A memory",
    description="The `ETag` header names the revision, for `If-Match` on a later PATCH or DELETE.",
    openapi_extra=WITH_ETAG,
)
def memory_read(request: HttpRequest, memory_id: uuid.UUID, response: HttpResponse):
    memory = memory_get(namespace_of(request), memory_id)
    with_etag(response, memory)
    return memory_answer(memory)


@router.patch(
    "/memories/{memory_id}",
    auth=write_auth,
    response=responses({200: MemoryOut}, 404, 409, 412),
    summary="Edit a memory",
    description=(
        "Each change appends a revision (`revision` + 1). 409 `tombstoned` when the new text is forbidden for "
        "the user, `duplicate` when another memory of the user already has it. With `If-Match`, 412 "
        "`precondition_failed` (and the current `ETag`) when the memory is no longer at that revision."
    ),
    openapi_extra=WITH_ETAG,
)
def memory_edit(
    request: HttpRequest,
    memory_id: uuid.UUID,
    payload: MemoryPatchIn,
    response: HttpResponse,
    if_match: str = IfMatch,
):
    namespace = namespace_of(request)
    expected = expected_revision(if_match)
    memory = memory_update(
        memory=memory_get(namespace, memory_id),
        actor=actor_of(request),
        text=payload.text,
        memory_type=payload.memory_type,
        topics=payload.topics,
        entities=payload.entities,
        metadata=payload.metadata,
        reason=payload.reason,
        expected_revision=expected,
    )
    return _answer(namespace, memory, response)


@router.delete(
    "/memories/{memory_id}",
    auth=write_auth,
    response=responses({204: None}, 404, 409, 412),
    summary="Forget a memory",
    description=(
        "The memory goes and a tombstone keeps the same text from coming back for that user. A pinned memory "
        "answers 409 `pinned` unless `force=true`. With `If-Match`, 412 `precondition_failed` when the memory "
        "is no longer at that revision."
    ),
)
def memory_remove(
    request: HttpRequest,
    memory_id: uuid.UUID,
    reason: Reason = "",
    force: bool = False,
    if_match: str = IfMatch,
):
    memory_forget_one(
        namespace=namespace_of(request),
        memory_id=memory_id,
        actor=actor_of(request),
        reason=reason,
        force=force,
        expected_revision=expected_revision(if_match),
    )
    return Status(204, None)


@router.get(
    "/memories/{memory_id}/revisions",
    auth=read_auth,
    response=responses({200: RevisionList}, 404),
    summary="Revisions of a memory, oldest first",
)
def memory_revision_list(request: HttpRequest, memory_id: uuid.UUID):
    memory = memory_get(namespace_of(request), memory_id)
    return {"items": [revision_dict(r) for r in memory_revisions(memory)]}


@router.get(
    "/memories/{memory_id}/evidence",
    auth=read_auth,
    response=responses({200: EvidenceList}, 404),
    summary="The messages a memory was taken from",
)
def memory_evidence_list(request: HttpRequest, memory_id: uuid.UUID):
    memory = memory_get(namespace_of(request), memory_id)
    return {"items": [evidence_dict(e) for e in memory_evidence(memory)]}


@router.post(
    "/memories/{memory_id}/pin",
    auth=write_auth,
    response=responses({200: MemoryOut}, 404),
    summary="Pin a memory",
    description="Pinned memories are never removed by a forgetting policy and need `force` to be forgotten.",
)
def memory_pin_add(request: HttpRequest, memory_id: uuid.UUID, response: HttpResponse, payload: ReasonIn | None = None):
    namespace = namespace_of(request)
    memory = memory_pin_set(
        namespace=namespace,
        memory_id=memory_id,
        pinned=True,
        actor=actor_of(request),
        reason=payload.reason if payload else "",
    )
    return _answer(namespace, memory, response)


@router.delete(
    "/memories/{memory_id}/pin",
    auth=write_auth,
    response=responses({200: MemoryOut}, 404),
    summary="Unpin a memory",
)
def memory_pin_remove(request: HttpRequest, memory_id: uuid.UUID, response: HttpResponse, reason: Reason = ""):
    namespace = namespace_of(request)
    memory = memory_pin_set(
        namespace=namespace, memory_id=memory_id, pinned=False, actor=actor_of(request), reason=reason
    )
    return _answer(namespace, memory, response)


@router.post(
    "/memories/{memory_id}/approve",
    auth=write_auth,
    response=responses({200: MemoryOut}, 404, 409),
    summary="Approve a candidate",
    description="The candidate becomes active; 409 `not_candidate` for a memory that is not awaiting review.",
)
def memory_approve_one(
    request: HttpRequest, memory_id: uuid.UUID, response: HttpResponse, payload: ReasonIn | None = None
):
    namespace = namespace_of(request)
    memory = memory_approve(
        memory=memory_get(namespace, memory_id), actor=actor_of(request), reason=payload.reason if payload else ""
    )
    return _answer(namespace, memory, response)


@router.post(
    "/memories/{memory_id}/reject",
    auth=write_auth,
    response=responses({204: None}, 404, 409),
    summary="Reject a candidate",
    description="The candidate goes and a `rejected` tombstone keeps its text from coming back.",
)
def memory_reject_one(request: HttpRequest, memory_id: uuid.UUID, payload: ReasonIn | None = None):
    memory = memory_get(namespace_of(request), memory_id)
    memory_reject(memory=memory, actor=actor_of(request), reason=payload.reason if payload else "")
    return Status(204, None)
