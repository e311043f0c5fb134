"""Every endpoint as a description of its request and of how its answer is read.

The sync and the async client send the same descriptions, so both speak the API
the same way; only how they wait differs.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Literal, TypeVar
from urllib.parse import quote

import httpx
from pydantic import TypeAdapter

from memoryadmin_client.errors import parse_retry_after
from memoryadmin_client.models import (
    AddedMemory,
    BulkResult,
    Context,
    Erasure,
    ErasureAccepted,
    Evidence,
    ExtractionRun,
    ForgetResult,
    ForgettingPolicy,
    Health,
    Memory,
    Message,
    NewMessage,
    Page,
    PrivacyLink,
    PrivacyLinkInfo,
    RestoreResult,
    Revision,
    SearchHit,
    Session,
    Tombstone,
    WorkingMemory,
)

T = TypeVar("T")
API = "/api/v1"


@dataclass
class Call:
    method: str
    path: str
    read: Callable[[httpx.Response], Any]
    params: dict[str, Any] | None = None
    json: Any = None
    content: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class RetryPolicy:
    """How 429 and 503 answers (and connections that could not be made) are retried.

    The wait is the server's ``Retry-After`` when it gives one, else an exponential
    backoff with jitter; a ``Retry-After`` longer than ``max_wait`` is not waited
    for: the error is raised at once, with ``retry_after`` on it.
    """

    max_retries: int = 3
    backoff: float = 0.5
    max_backoff: float = 8.0
    max_wait: float = 60.0

    def delay(self, attempt: int, response: httpx.Response | None) -> float | None:
        """Seconds to wait before attempt ``attempt + 1``, or None to stop retrying."""
        if attempt >= self.max_retries:
            return None
        if response is not None:
            asked = parse_retry_after(response.headers.get("Retry-After"))
            if asked is not None:
                return asked if asked <= self.max_wait else None
        wait = min(self.max_backoff, self.backoff * 2**attempt)
        return wait / 2 + random.uniform(0, wait / 2)  # noqa: S311 - jitter, not security


RETRIED_STATUSES = frozenset({429, 503})


def _clean(params: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in params.items():
        if value is None:
            continue
        if isinstance(value, bool):
            out[name] = "true" if value else "false"
        elif isinstance(value, datetime):
            out[name] = value.isoformat()
        else:
            out[name] = value
    return out


def _body(**fields: Any) -> dict[str, Any]:
    return {
        name: value.isoformat() if isinstance(value, datetime | date) else value
        for name, value in fields.items()
        if value is not None
    }


def _listed(values: Iterable[str] | None) -> list[str] | None:
    """A sequence argument as the JSON list it is sent as (a tuple, a set or a generator will do)."""
    return None if values is None else list(values)


def _seg(value: str) -> str:
    return quote(str(value), safe="")


def _model(model: Any) -> Callable[[httpx.Response], Any]:
    adapter = TypeAdapter(model)
    return lambda response: adapter.validate_python(response.json())


def _items(model: Any) -> Callable[[httpx.Response], Any]:
    adapter = TypeAdapter(list[model])
    return lambda response: adapter.validate_python(response.json()["items"])


def _nothing(response: httpx.Response) -> None:
    return None


def _messages(messages: Iterable[NewMessage | Mapping[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for message in messages:
        item = message if isinstance(message, NewMessage) else NewMessage.model_validate(message)
        out.append(item.model_dump(mode="json", exclude_none=True))
    return out


# --- health ----------------------------------------------------------------------------------------------


def health() -> Call:
    return Call("GET", f"{API}/health", _model(Health))


# --- sessions, messages, working memory, context -----------------------------------------------------------


def session_put(session_id: str, *, user_id: str, agent_id: str | None, metadata: dict[str, Any] | None) -> Call:
    return Call(
        "PUT",
        f"{API}/sessions/{_seg(session_id)}",
        _model(Session),
        json=_body(user_id=user_id, agent_id=agent_id, metadata=metadata),
    )


def session_get(session_id: str) -> Call:
    return Call("GET", f"{API}/sessions/{_seg(session_id)}", _model(Session))


def sessions_list(*, user_id: str | None, agent_id: str | None, limit: int | None, cursor: str | None) -> Call:
    return Call(
        "GET",
        f"{API}/sessions",
        _model(Page[Session]),
        params=_clean({"user_id": user_id, "agent_id": agent_id, "limit": limit, "cursor": cursor}),
    )


def session_delete(session_id: str, *, memories: Literal["keep", "delete"], force: bool, reason: str | None) -> Call:
    return Call(
        "DELETE",
        f"{API}/sessions/{_seg(session_id)}",
        _nothing,
        params=_clean({"memories": memories, "force": force, "reason": reason}),
    )


def messages_append(
    session_id: str,
    messages: Iterable[NewMessage | Mapping[str, Any]],
    *,
    user_id: str | None,
    agent_id: str | None,
) -> Call:
    adapter = TypeAdapter(list[Message])
    return Call(
        "POST",
        f"{API}/sessions/{_seg(session_id)}/messages",
        lambda response: adapter.validate_python(response.json()["messages"]),
        json=_body(user_id=user_id, agent_id=agent_id, messages=_messages(messages)),
    )


def messages_list(
    session_id: str, *, after_seq: int | None, include_injected: bool | None, limit: int | None, cursor: str | None
) -> Call:
    return Call(
        "GET",
        f"{API}/sessions/{_seg(session_id)}/messages",
        _model(Page[Message]),
        params=_clean({"after_seq": after_seq, "include_injected": include_injected, "limit": limit, "cursor": cursor}),
    )


def messages_delete_run(session_id: str, *, run_id: str, reason: str | None) -> Call:
    return Call(
        "DELETE",
        f"{API}/sessions/{_seg(session_id)}/messages",
        lambda response: int(response.json()["deleted"]),
        params=_clean({"run_id": run_id, "reason": reason}),
    )


def state_get(session_id: str) -> Call:
    return Call("GET", f"{API}/sessions/{_seg(session_id)}/state", _model(WorkingMemory))


def state_put(session_id: str, state: Mapping[str, Any], *, ttl_seconds: int | None) -> Call:
    return Call(
        "PUT",
        f"{API}/sessions/{_seg(session_id)}/state",
        _model(WorkingMemory),
        json=_body(state=dict(state), ttl_seconds=ttl_seconds),
    )


def state_patch(session_id: str, changes: Mapping[str, Any]) -> Call:
    return Call(
        "PATCH", f"{API}/sessions/{_seg(session_id)}/state", _model(WorkingMemory), json={"state": dict(changes)}
    )


def state_delete(session_id: str) -> Call:
    return Call("DELETE", f"{API}/sessions/{_seg(session_id)}/state", _nothing)


def context_get(
    session_id: str,
    *,
    query: str | None,
    token_budget: int | None,
    memory_limit: int | None,
    include_injected: bool | None,
) -> Call:
    return Call(
        "GET",
        f"{API}/sessions/{_seg(session_id)}/context",
        _model(Context),
        params=_clean(
            {
                "query": query,
                "token_budget": token_budget,
                "memory_limit": memory_limit,
                "include_injected": include_injected,
            }
        ),
    )


# --- extraction --------------------------------------------------------------------------------------------


def extraction_start(session_id: str) -> Call:
    return Call("POST", f"{API}/sessions/{_seg(session_id)}/extract", lambda response: str(response.json()["run_id"]))


def extraction_runs(session_id: str, *, limit: int | None, cursor: str | None) -> Call:
    return Call(
        "GET",
        f"{API}/sessions/{_seg(session_id)}/extraction",
        _model(Page[ExtractionRun]),
        params=_clean({"limit": limit, "cursor": cursor}),
    )


# --- memories ------------------------------------------------------------------------------------------------


def memory_add(
    *,
    user_id: str,
    text: str,
    session_id: str | None,
    agent_id: str | None,
    memory_type: str | None,
    topics: Sequence[str] | None,
    entities: Sequence[str] | None,
    metadata: dict[str, Any] | None,
    pinned: bool | None,
    stated_at: datetime | None = None,
    event_date: date | None = None,
    event_date_precision: str | None = None,
    attribute: str | None = None,
    subject: str | None = None,
) -> Call:
    memory = TypeAdapter(Memory)

    def read(response: httpx.Response) -> AddedMemory:
        return AddedMemory(
            memory=memory.validate_python(response.json()),
            deduplicated=response.headers.get("X-Deduplicated") == "true",
        )

    return Call(
        "POST",
        f"{API}/memories",
        read,
        json=_body(
            user_id=user_id,
            text=text,
            session_id=session_id,
            agent_id=agent_id,
            memory_type=memory_type,
            topics=_listed(topics),
            entities=_listed(entities),
            metadata=metadata,
            pinned=pinned,
            stated_at=stated_at,
            event_date=event_date,
            event_date_precision=event_date_precision,
            attribute=attribute,
            subject=subject,
        ),
    )


def memories_list(
    *,
    user_id: str | None,
    session_id: str | None,
    agent_id: str | None,
    memory_type: str | None,
    status: str | None,
    pinned: bool | None,
    limit: int | None,
    cursor: str | None,
) -> Call:
    return Call(
        "GET",
        f"{API}/memories",
        _model(Page[Memory]),
        params=_clean(
            {
                "user_id": user_id,
                "session_id": session_id,
                "agent_id": agent_id,
                "memory_type": memory_type,
                "status": status,
                "pinned": pinned,
                "limit": limit,
                "cursor": cursor,
            }
        ),
    )


def memories_search(query: str, *, cursor: str | None, **filters: Any) -> Call:
    for name in ("topics", "entities", "memory_types"):
        filters[name] = _listed(filters.get(name))
    return Call(
        "POST", f"{API}/memories/search", _model(Page[SearchHit]), json=_body(query=query, cursor=cursor, **filters)
    )


def memory_get(memory_id: str) -> Call:
    return Call("GET", f"{API}/memories/{_seg(memory_id)}", _model(Memory))


def _if_match(revision: int | None) -> dict[str, str]:
    """The memory's ETag is its revision: `If-Match: "3"` makes the change only while it is at revision 3."""
    return {} if revision is None else {"If-Match": f'"{int(revision)}"'}


def memory_update(memory_id: str, *, if_revision: int | None, **changes: Any) -> Call:
    for name in ("topics", "entities"):
        changes[name] = _listed(changes.get(name))
    return Call(
        "PATCH",
        f"{API}/memories/{_seg(memory_id)}",
        _model(Memory),
        json=_body(**changes),
        headers=_if_match(if_revision),
    )


def memory_forget(memory_id: str, *, reason: str | None, force: bool, if_revision: int | None) -> Call:
    return Call(
        "DELETE",
        f"{API}/memories/{_seg(memory_id)}",
        _nothing,
        params=_clean({"reason": reason, "force": force}),
        headers=_if_match(if_revision),
    )


def memory_revisions(memory_id: str) -> Call:
    return Call("GET", f"{API}/memories/{_seg(memory_id)}/revisions", _items(Revision))


def memory_evidence(memory_id: str) -> Call:
    return Call("GET", f"{API}/memories/{_seg(memory_id)}/evidence", _items(Evidence))


def memory_pin(memory_id: str, *, reason: str | None) -> Call:
    return Call("POST", f"{API}/memories/{_seg(memory_id)}/pin", _model(Memory), json=_body(reason=reason))


def memory_unpin(memory_id: str, *, reason: str | None) -> Call:
    return Call("DELETE", f"{API}/memories/{_seg(memory_id)}/pin", _model(Memory), params=_clean({"reason": reason}))


def memory_approve(memory_id: str, *, reason: str | None) -> Call:
    return Call("POST", f"{API}/memories/{_seg(memory_id)}/approve", _model(Memory), json=_body(reason=reason))


def memory_reject(memory_id: str, *, reason: str | None) -> Call:
    return Call("POST", f"{API}/memories/{_seg(memory_id)}/reject", _nothing, json=_body(reason=reason))


def memories_bulk(action: str, ids: Iterable[str], *, reason: str | None) -> Call:
    return Call(
        "POST", f"{API}/memories/bulk", _model(BulkResult), json=_body(action=action, ids=list(ids), reason=reason)
    )


# --- governance --------------------------------------------------------------------------------------------------


def forget_by_policy(
    policy: ForgettingPolicy | Mapping[str, Any], *, user_id: str | None, session_id: str | None, dry_run: bool
) -> Call:
    rules = policy if isinstance(policy, ForgettingPolicy) else ForgettingPolicy.model_validate(policy)
    return Call(
        "POST",
        f"{API}/memories/forget",
        _model(ForgetResult),
        json=_body(policy=rules.model_dump(exclude_none=True), user_id=user_id, session_id=session_id, dry_run=dry_run),
    )


def snapshot_export(user_id: str | None) -> Call:
    return Call("GET", f"{API}/snapshots/export", _nothing, params=_clean({"user_id": user_id}))


def subject_export(user_id: str) -> Call:
    return Call("GET", f"{API}/subjects/{_seg(user_id)}/export", _nothing)


def snapshot_restore(content: bytes, *, dry_run: bool) -> Call:
    return Call(
        "POST",
        f"{API}/snapshots/restore",
        _model(RestoreResult),
        params=_clean({"dry_run": dry_run}),
        content=content,
        headers={"Content-Type": "application/x-ndjson"},
    )


def subject_erase(user_id: str, *, reason: str | None) -> Call:
    return Call("POST", f"{API}/subjects/{_seg(user_id)}/erasure", _model(ErasureAccepted), json=_body(reason=reason))


def erasure_get(erasure_id: str) -> Call:
    return Call("GET", f"{API}/erasures/{_seg(erasure_id)}", _model(Erasure))


def privacy_link(user_id: str, *, ttl_seconds: int | None, rights: Sequence[str] | None) -> Call:
    return Call(
        "POST",
        f"{API}/subjects/{_seg(user_id)}/privacy-link",
        _model(PrivacyLink),
        json=_body(ttl_seconds=ttl_seconds, rights=_listed(rights)),
    )


def privacy_links_list(user_id: str, *, limit: int | None, cursor: str | None) -> Call:
    return Call(
        "GET",
        f"{API}/subjects/{_seg(user_id)}/privacy-links",
        _model(Page[PrivacyLinkInfo]),
        params=_clean({"limit": limit, "cursor": cursor}),
    )


def privacy_links_made(*, limit: int | None, cursor: str | None) -> Call:
    return Call(
        "GET", f"{API}/privacy-links", _model(Page[PrivacyLinkInfo]), params=_clean({"limit": limit, "cursor": cursor})
    )


def privacy_link_revoke(link_id: str, *, reason: str | None) -> Call:
    return Call("DELETE", f"{API}/privacy-links/{_seg(link_id)}", _nothing, params=_clean({"reason": reason}))


# --- tombstones (the `tombstones` scope) ---------------------------------------------------------------


def tombstones_list(*, user_id: str | None, reason: str | None, limit: int | None, cursor: str | None) -> Call:
    return Call(
        "GET",
        f"{API}/tombstones",
        _model(Page[Tombstone]),
        params=_clean({"user_id": user_id, "reason": reason, "limit": limit, "cursor": cursor}),
    )


def tombstone_lift(tombstone_id: int, *, reason: str) -> Call:
    return Call("DELETE", f"{API}/tombstones/{int(tombstone_id)}", _nothing, params={"reason": reason})
