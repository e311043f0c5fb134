"""Sessions, their messages, working memory and prompt context."""

from __future__ import annotations

from typing import Literal

from django.http import HttpRequest
from ninja import Path, Query, Router, Status

from memoryadmin.api.auth import actor_of, namespace_of, read_auth, write_auth
from memoryadmin.api.operations.sessions import (
    MAX_MEMORY_LIMIT,
    MAX_TOKEN_BUDGET,
    MEMORY_LIMIT,
    TOKEN_BUDGET,
    session_context_answer,
    session_messages_append,
    session_state_delete,
    session_state_merge,
    session_state_read,
    session_state_replace,
)
from memoryadmin.api.pages import page_answer
from memoryadmin.api.renderers import rendered
from memoryadmin.api.schemas.common import NO_NUL, AppId, Cursor, Limit, Reason, responses
from memoryadmin.api.schemas.sessions import (
    AppendIn,
    AppendOut,
    ContextOut,
    DeletedOut,
    MessagePage,
    SessionIn,
    SessionOut,
    SessionPage,
    StateOut,
    StatePatchIn,
    StatePutIn,
)
from memoryadmin.conversations.queries import messages_page, session_get, sessions_page
from memoryadmin.conversations.representations import message_dict, session_dict
from memoryadmin.conversations.services import (
    messages_delete_run,
    session_delete,
    session_upsert,
)
from memoryadmin.core.app_ids import APP_ID_RE
from memoryadmin.core.replicas import lag_tolerant_view
from memoryadmin.memories.search.query import MAX_QUERY_CHARS
from memoryadmin.memories.services import session_delete_with_memories

router = Router(tags=["sessions"])

SessionIdPath = Path(..., pattern=APP_ID_RE, description="The app's id of the session.")
MAX_SEQ = 2**31 - 1


@router.put(
    "/sessions/{session_id}",
    auth=write_auth,
    response=responses({200: SessionOut, 201: SessionOut}, 409),
    summary="Create or update a session",
    description="201 when created, 200 when updated. A session's user never changes (409 `user_mismatch`).",
)
def session_put(request: HttpRequest, payload: SessionIn, session_id: str = SessionIdPath):
    session, created = session_upsert(
        namespace=namespace_of(request),
        session_id=session_id,
        user_id=payload.user_id,
        agent_id=payload.agent_id or "",
        metadata=payload.metadata,
    )
    return Status(201 if created else 200, session_dict(session))


@router.get("/sessions/{session_id}", auth=read_auth, response=responses({200: SessionOut}, 404), summary="A session")
def session_read(request: HttpRequest, session_id: str = SessionIdPath):
    return session_dict(session_get(namespace_of(request), session_id))


@router.get(
    "/sessions", auth=read_auth, response=responses({200: SessionPage}), summary="Sessions, newest activity first"
)
@lag_tolerant_view
def session_list(
    request: HttpRequest,
    user_id: AppId | None = None,
    agent_id: AppId | None = None,
    limit: Limit = 50,
    cursor: Cursor | None = None,
):
    page = sessions_page(namespace_of(request), user_id=user_id, agent_id=agent_id, cursor=cursor, limit=limit)
    return page_answer(page, session_dict)


@router.delete(
    "/sessions/{session_id}",
    auth=write_auth,
    response=responses({204: None}, 404),
    summary="Delete a session, its messages and its working memory",
    description=(
        "Memories taken from the session stay (their evidence links go) unless `memories=delete`, which "
        "forgets them with tombstones; pinned ones are kept then too unless `force=true`."
    ),
)
def session_remove(
    request: HttpRequest,
    session_id: str = SessionIdPath,
    memories: Literal["keep", "delete"] = "keep",
    force: bool = False,
    reason: Reason = "",
):
    namespace = namespace_of(request)
    session = session_get(namespace, session_id)
    actor = actor_of(request)
    if memories == "delete":
        session_delete_with_memories(namespace=namespace, session=session, actor=actor, reason=reason, force=force)
    else:
        session_delete(session=session, actor=actor, reason=reason)
    return Status(204, None)


@router.post(
    "/sessions/{session_id}/messages",
    auth=write_auth,
    response=responses({201: AppendOut}, 409),
    summary="Append messages",
    description=(
        "Appends atomically and in order; seqs start at 1 and never repeat or skip. Creates the session when "
        "missing, which needs `user_id` (400 without it)."
    ),
)
def messages_append(request: HttpRequest, payload: AppendIn, session_id: str = SessionIdPath):
    answer = session_messages_append(
        namespace=namespace_of(request),
        session_id=session_id,
        user_id=payload.user_id,
        agent_id=payload.agent_id,
        messages=payload.messages,
    )
    # For a batch of a hundred, validating through the response schema cost more than the insert.
    return rendered(answer, status=201)


@router.get(
    "/sessions/{session_id}/messages",
    auth=read_auth,
    response=responses({200: MessagePage}, 404),
    summary="Messages in seq order",
)
@lag_tolerant_view
def messages_list(
    request: HttpRequest,
    session_id: str = SessionIdPath,
    after_seq: int = Query(0, ge=0, le=MAX_SEQ),
    limit: Limit = 50,
    include_injected: bool = False,
    cursor: Cursor | None = None,
):
    session = session_get(namespace_of(request), session_id)
    page = messages_page(session, after_seq=after_seq, include_injected=include_injected, cursor=cursor, limit=limit)
    return page_answer(page, message_dict)


@router.delete(
    "/sessions/{session_id}/messages",
    auth=write_auth,
    response=responses({200: DeletedOut}, 404),
    summary="Delete the messages of one run",
)
def messages_remove_run(request: HttpRequest, run_id: AppId, session_id: str = SessionIdPath, reason: Reason = ""):
    session = session_get(namespace_of(request), session_id)
    deleted = messages_delete_run(session=session, run_id=run_id, actor=actor_of(request), reason=reason)
    return {"deleted": deleted}


@router.get(
    "/sessions/{session_id}/state",
    auth=read_auth,
    response=responses({200: StateOut}, 404),
    summary="Working memory of a session",
)
def state_read(request: HttpRequest, session_id: str = SessionIdPath):
    return session_state_read(namespace_of(request), session_id)


@router.put(
    "/sessions/{session_id}/state",
    auth=write_auth,
    response=responses({200: StateOut}, 404),
    summary="Replace working memory",
    description="Starts a fresh TTL (`ttl_seconds`, or the namespace's default).",
)
def state_replace(request: HttpRequest, payload: StatePutIn, session_id: str = SessionIdPath):
    return session_state_replace(
        namespace_of(request), session_id, state=payload.state, ttl_seconds=payload.ttl_seconds
    )


@router.patch(
    "/sessions/{session_id}/state",
    auth=write_auth,
    response=responses({200: StateOut}, 404),
    summary="Merge into working memory",
    description="A null value removes a key. The remaining TTL is kept: an update never extends it.",
)
def state_merge(request: HttpRequest, payload: StatePatchIn, session_id: str = SessionIdPath):
    return session_state_merge(namespace_of(request), session_id, changes=payload.state)


@router.delete(
    "/sessions/{session_id}/state",
    auth=write_auth,
    response=responses({204: None}, 404),
    summary="Delete working memory",
)
def state_remove(request: HttpRequest, session_id: str = SessionIdPath):
    session_state_delete(namespace_of(request), session_id)
    return Status(204, None)


@router.get(
    "/sessions/{session_id}/context",
    auth=read_auth,
    response=responses({200: ContextOut}, 404),
    summary="Context for a prompt",
    description=(
        "The newest messages that fit `token_budget` (estimated at four characters a token), a summary "
        "standing for older ones when one exists, and the user's memories most relevant to `query` "
        "(or to the last user message), found as `POST /memories/search` finds them in natural syntax."
    ),
)
def context_read(
    request: HttpRequest,
    session_id: str = SessionIdPath,
    query: str | None = Query(None, max_length=MAX_QUERY_CHARS, pattern=NO_NUL),
    token_budget: int = Query(TOKEN_BUDGET, ge=0, le=MAX_TOKEN_BUDGET),
    memory_limit: int = Query(MEMORY_LIMIT, ge=0, le=MAX_MEMORY_LIMIT),
    include_injected: bool = False,
):
    return session_context_answer(
        namespace_of(request),
        session_id,
        query=query,
        token_budget=token_budget,
        memory_limit=memory_limit,
        include_injected=include_injected,
    )
