"""Sessions, their messages, working memory and prompt context."""

from __future__ import annotations

from typing import Literal

from django.db import transaction
from django.http import HttpRequest
from ninja import Path, Query, Router, Status

from memoryadmin.api.auth import actor_of, namespace_of, read_auth, write_auth
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
from memoryadmin.audit.services import audit_last
from memoryadmin.conversations.queries import messages_page, session_get, sessions_page
from memoryadmin.conversations.representations import message_dict, session_dict
from memoryadmin.conversations.services import (
    messages_delete_run,
    session_append_messages,
    session_delete,
    session_upsert,
)
from memoryadmin.conversations.working_memory import (
    working_memory_delete,
    working_memory_get,
    working_memory_patch,
    working_memory_put,
)
from memoryadmin.core.app_ids import APP_ID_RE
from memoryadmin.core.errors import NotFound
from memoryadmin.core.replicas import lag_tolerant_view
from memoryadmin.memories.queries import session_context
from memoryadmin.memories.representations import memory_dict
from memoryadmin.memories.search import MAX_QUERY_CHARS
from memoryadmin.memories.services import session_memories_forget

router = Router(tags=["sessions"])

SessionIdPath = Path(..., pattern=APP_ID_RE, description="The app's id of the session.")
MAX_SEQ = 2**31 - 1


def _state_answer(state: object) -> dict:
    return {"state": state.state, "ttl_seconds": state.ttl_seconds}  # type: ignore[attr-defined]


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
    return {"items": [session_dict(s) for s in page.items], "next_cursor": page.next_cursor}


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
    # session_delete clears the working memory first: if Redis is down, nothing durable changed. Every row
    # is locked before the audit chain (`audit_last`), the order of the writers it may race.
    with transaction.atomic(), audit_last():
        if memories == "delete":
            session_memories_forget(
                namespace=namespace, session_id=session.session_id, actor=actor, reason=reason, force=force
            )
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
    namespace = namespace_of(request)
    _, created = session_append_messages(
        namespace=namespace,
        session_id=session_id,
        user_id=payload.user_id,
        agent_id=payload.agent_id or "",
        messages=[m.as_new_message() for m in payload.messages],
    )
    # For a batch of a hundred, validating through the response schema cost more than the insert.
    return rendered({"messages": [message_dict(m) for m in created]}, status=201)


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
    return {"items": [message_dict(m) for m in page.items], "next_cursor": page.next_cursor}


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


# Working memory lives in Redis; the session row is checked first so another
# namespace's key gets 404 here like everywhere else.


@router.get(
    "/sessions/{session_id}/state",
    auth=read_auth,
    response=responses({200: StateOut}, 404),
    summary="Working memory of a session",
)
def state_read(request: HttpRequest, session_id: str = SessionIdPath):
    namespace = namespace_of(request)
    session = session_get(namespace, session_id)
    state = working_memory_get(namespace_id=namespace.pk, session_id=session.session_id)
    if state is None:
        raise NotFound("the session has no working memory")
    return _state_answer(state)


@router.put(
    "/sessions/{session_id}/state",
    auth=write_auth,
    response=responses({200: StateOut}, 404),
    summary="Replace working memory",
    description="Starts a fresh TTL (`ttl_seconds`, or the namespace's default).",
)
def state_replace(request: HttpRequest, payload: StatePutIn, session_id: str = SessionIdPath):
    namespace = namespace_of(request)
    session = session_get(namespace, session_id)
    state = working_memory_put(
        namespace_id=namespace.pk,
        session_id=session.session_id,
        state=payload.state,
        ttl_seconds=payload.ttl_seconds if payload.ttl_seconds is not None else namespace.working_memory_ttl_seconds,
    )
    return _state_answer(state)


@router.patch(
    "/sessions/{session_id}/state",
    auth=write_auth,
    response=responses({200: StateOut}, 404),
    summary="Merge into working memory",
    description="A null value removes a key. The remaining TTL is kept: an update never extends it.",
)
def state_merge(request: HttpRequest, payload: StatePatchIn, session_id: str = SessionIdPath):
    namespace = namespace_of(request)
    session = session_get(namespace, session_id)
    state = working_memory_patch(namespace_id=namespace.pk, session_id=session.session_id, changes=payload.state)
    if state is None:
        raise NotFound("the session has no working memory (it may have expired)")
    return _state_answer(state)


@router.delete(
    "/sessions/{session_id}/state",
    auth=write_auth,
    response=responses({204: None}, 404),
    summary="Delete working memory",
)
def state_remove(request: HttpRequest, session_id: str = SessionIdPath):
    namespace = namespace_of(request)
    session = session_get(namespace, session_id)
    working_memory_delete(namespace_id=namespace.pk, session_id=session.session_id)
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
    token_budget: int = Query(4000, ge=0, le=1_000_000),
    memory_limit: int = Query(10, ge=0, le=100),
    include_injected: bool = False,
):
    namespace = namespace_of(request)
    session = session_get(namespace, session_id)
    context = session_context(
        namespace,
        session,
        query=query,
        token_budget=token_budget,
        memory_limit=memory_limit,
        include_injected=include_injected,
    )
    return {
        "summary": context.summary,
        "messages": [message_dict(m) for m in context.messages],
        "memories": [memory_dict(m, pinned=m.pinned) for m in context.memories],
        "token_estimate": context.token_estimate,
    }
