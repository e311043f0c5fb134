"""Sessions: appending messages, prompt context and working memory, as the contract's operations.

Working memory lives in Redis; the session row is read first, so another namespace's session is
404 here like everywhere else.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memoryadmin.api.operations.memories import memory_answer
from memoryadmin.api.schemas.sessions import MessageIn
from memoryadmin.conversations.queries import session_get
from memoryadmin.conversations.representations import message_dict
from memoryadmin.conversations.services import session_append_messages
from memoryadmin.conversations.working_memory import (
    WorkingMemory,
    working_memory_delete,
    working_memory_get,
    working_memory_patch,
    working_memory_put,
)
from memoryadmin.core.errors import NotFound
from memoryadmin.memories.queries import session_context
from memoryadmin.tenancy.models import Namespace

# A context's defaults and bounds: four characters a token, and a page of memories.
TOKEN_BUDGET = 4000
MAX_TOKEN_BUDGET = 1_000_000
MEMORY_LIMIT = 10
MAX_MEMORY_LIMIT = 100


def session_messages_append(
    *,
    namespace: Namespace,
    session_id: str,
    user_id: str | None,
    agent_id: str | None,
    messages: Sequence[MessageIn],
) -> dict[str, Any]:
    """Append messages in order, creating the session on its first append; the messages as stored."""
    _, created = session_append_messages(
        namespace=namespace,
        session_id=session_id,
        user_id=user_id,
        agent_id=agent_id or "",
        messages=[m.as_new_message() for m in messages],
    )
    return {"messages": [message_dict(m) for m in created]}


def session_context_answer(
    namespace: Namespace,
    session_id: str,
    *,
    query: str | None = None,
    token_budget: int = TOKEN_BUDGET,
    memory_limit: int = MEMORY_LIMIT,
    include_injected: bool = False,
) -> dict[str, Any]:
    """What to put in a prompt for the session: memories, a summary, the newest messages that fit."""
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
        "memories": [memory_answer(m) for m in context.memories],
        "token_estimate": context.token_estimate,
    }


def _state_answer(state: WorkingMemory) -> dict[str, Any]:
    return {"state": state.state, "ttl_seconds": state.ttl_seconds}


def session_state_read(namespace: Namespace, session_id: str) -> dict[str, Any]:
    session = session_get(namespace, session_id)
    state = working_memory_get(namespace_id=namespace.pk, session_id=session.session_id)
    if state is None:
        raise NotFound("the session has no working memory")
    return _state_answer(state)


def session_state_replace(
    namespace: Namespace, session_id: str, *, state: dict[str, Any], ttl_seconds: int | None
) -> dict[str, Any]:
    """Replace the state with a fresh TTL: `ttl_seconds`, or the namespace's."""
    session = session_get(namespace, session_id)
    stored = working_memory_put(
        namespace_id=namespace.pk,
        session_id=session.session_id,
        state=state,
        ttl_seconds=ttl_seconds if ttl_seconds is not None else namespace.working_memory_ttl_seconds,
    )
    return _state_answer(stored)


def session_state_merge(namespace: Namespace, session_id: str, *, changes: dict[str, Any]) -> dict[str, Any]:
    """Merge keys into the state (a null value removes one); the remaining TTL is kept."""
    session = session_get(namespace, session_id)
    stored = working_memory_patch(namespace_id=namespace.pk, session_id=session.session_id, changes=changes)
    if stored is None:
        raise NotFound("the session has no working memory (it may have expired)")
    return _state_answer(stored)


def session_state_delete(namespace: Namespace, session_id: str) -> None:
    session = session_get(namespace, session_id)
    working_memory_delete(namespace_id=namespace.pk, session_id=session.session_id)
