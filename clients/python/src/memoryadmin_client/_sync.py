# Generated from _async.py by `make client-sync` (clients/python/generate_sync.py); edit _async.py instead.
"""The synchronous client."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import date, datetime
from typing import Any, Literal, TypeVar

import httpx

from memoryadmin_client import _calls as calls
from memoryadmin_client._base import (
    ExportTarget,
    SnapshotSource,
    client_options,
    open_target,
    retry_policy,
    snapshot_body,
)
from memoryadmin_client._calls import RETRIED_STATUSES, Call, RetryPolicy
from memoryadmin_client.errors import RequestTimeoutError, TransportError, error_from_response
from memoryadmin_client.models import (
    AddedMemory,
    BulkResult,
    Context,
    DatePrecision,
    Erasure,
    ErasureAccepted,
    Evidence,
    ExtractionRun,
    ForgetResult,
    ForgettingPolicy,
    Health,
    Memory,
    MemoryType,
    Message,
    NewMessage,
    Page,
    PrivacyLink,
    PrivacyLinkInfo,
    RestoreResult,
    Revision,
    Right,
    SearchHit,
    Session,
    Tombstone,
    TombstoneReason,
    WorkingMemory,
)

T = TypeVar("T")
EXPORT_CHUNK = 64 * 1024


def _pages(fetch: Callable[[str | None], Page[T]]) -> Iterator[T]:
    cursor: str | None = None
    while True:
        page = fetch(cursor)
        yield from page.items
        if page.next_cursor is None:
            return
        cursor = page.next_cursor


class MemoryAdmin:
    """A client of one memoryadmin server, as one API key (and so one namespace).

    ``timeout`` is in seconds (or an ``httpx.Timeout``); 429 and 503 answers and
    connections that could not be made are retried ``max_retries`` times, waiting as
    the server's ``Retry-After`` says, else with exponential backoff. Use it as a
    context manager, or call ``close()``, to release its connections.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float | httpx.Timeout | None = None,
        max_retries: int | None = None,
        retry: RetryPolicy | None = None,
        headers: dict[str, str] | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.retry = retry_policy(max_retries, retry)
        self._http = httpx.Client(**client_options(base_url, api_key, timeout, headers), transport=transport)
        self.sessions = Sessions(self)
        self.messages = Messages(self)
        self.state = WorkingMemories(self)
        self.memories = Memories(self)
        self.snapshots = Snapshots(self)
        self.subjects = Subjects(self)
        self.tombstones = Tombstones(self)

    def __enter__(self) -> MemoryAdmin:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def health(self) -> Health:
        return self._run(calls.health())

    def _run(self, call: Call) -> Any:
        response = self._send(call, stream=False)
        return call.read(response)

    def _send(self, call: Call, *, stream: bool) -> httpx.Response:
        attempt = 0
        while True:
            request = self._http.build_request(
                call.method, call.path, params=call.params, json=call.json, content=call.content, headers=call.headers
            )
            try:
                response = self._http.send(request, stream=stream)
            except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
                # Nothing reached the server: trying again cannot do anything twice.
                wait = self.retry.delay(attempt, None)
                if wait is None:
                    raise TransportError(f"cannot reach {request.url.host}: {exc}") from exc
                time.sleep(wait)
                attempt += 1
                continue
            except httpx.TimeoutException as exc:
                raise RequestTimeoutError(f"no answer from {request.url.host} in time: {exc}") from exc
            except httpx.HTTPError as exc:
                raise TransportError(str(exc)) from exc
            if response.status_code in RETRIED_STATUSES:
                wait = self.retry.delay(attempt, response)
                if wait is not None:
                    response.close()
                    time.sleep(wait)
                    attempt += 1
                    continue
            if response.is_error:
                if stream:
                    response.read()
                    response.close()
                raise error_from_response(response)
            return response

    def _stream(self, call: Call) -> Iterator[bytes]:
        response = self._send(call, stream=True)
        try:
            yield from response.iter_bytes(EXPORT_CHUNK)
        except httpx.HTTPError as exc:
            raise TransportError(f"the export broke off: {exc}") from exc
        finally:
            response.close()


class _Resource:
    def __init__(self, client: MemoryAdmin) -> None:
        self._client = client

    def _run(self, call: Call) -> Any:
        return self._client._run(call)


class Sessions(_Resource):
    """Conversations: one user's session, with its context and extraction runs."""

    def put(
        self, session_id: str, *, user_id: str, agent_id: str | None = None, metadata: dict[str, Any] | None = None
    ) -> Session:
        """Create the session or update its agent and metadata (its user never changes)."""
        return self._run(calls.session_put(session_id, user_id=user_id, agent_id=agent_id, metadata=metadata))

    def get(self, session_id: str) -> Session:
        return self._run(calls.session_get(session_id))

    def list(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> Page[Session]:
        """One page, newest activity first."""
        return self._run(calls.sessions_list(user_id=user_id, agent_id=agent_id, limit=limit, cursor=cursor))

    def iter(
        self, *, user_id: str | None = None, agent_id: str | None = None, page_size: int | None = None
    ) -> Iterator[Session]:
        """Every session, page after page."""
        return _pages(lambda cursor: self.list(user_id=user_id, agent_id=agent_id, limit=page_size, cursor=cursor))

    def delete(
        self,
        session_id: str,
        *,
        memories: Literal["keep", "delete"] = "keep",
        force: bool = False,
        reason: str | None = None,
    ) -> None:
        """Delete the session, its messages and working memory; ``memories="delete"`` forgets its memories too."""
        self._run(calls.session_delete(session_id, memories=memories, force=force, reason=reason))

    def context(
        self,
        session_id: str,
        *,
        query: str | None = None,
        token_budget: int | None = None,
        memory_limit: int | None = None,
        include_injected: bool | None = None,
    ) -> Context:
        """What to put in a prompt: relevant memories, a summary of older messages, the newest messages."""
        return self._run(
            calls.context_get(
                session_id,
                query=query,
                token_budget=token_budget,
                memory_limit=memory_limit,
                include_injected=include_injected,
            )
        )

    def extract(self, session_id: str) -> str:
        """Schedule extraction now, without the debounce; the id of the run."""
        return self._run(calls.extraction_start(session_id))

    def extraction_runs(
        self, session_id: str, *, limit: int | None = None, cursor: str | None = None
    ) -> Page[ExtractionRun]:
        return self._run(calls.extraction_runs(session_id, limit=limit, cursor=cursor))

    def iter_extraction_runs(self, session_id: str, *, page_size: int | None = None) -> Iterator[ExtractionRun]:
        return _pages(lambda cursor: self.extraction_runs(session_id, limit=page_size, cursor=cursor))


class Messages(_Resource):
    def append(
        self,
        session_id: str,
        messages: Iterable[NewMessage | Mapping[str, Any]],
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
    ) -> list[Message]:
        """Append in order (a new session needs ``user_id``); extraction follows in the background."""
        return self._run(calls.messages_append(session_id, messages, user_id=user_id, agent_id=agent_id))

    def list(
        self,
        session_id: str,
        *,
        after_seq: int | None = None,
        include_injected: bool | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> Page[Message]:
        return self._run(
            calls.messages_list(
                session_id, after_seq=after_seq, include_injected=include_injected, limit=limit, cursor=cursor
            )
        )

    def iter(
        self,
        session_id: str,
        *,
        after_seq: int | None = None,
        include_injected: bool | None = None,
        page_size: int | None = None,
    ) -> Iterator[Message]:
        return _pages(
            lambda cursor: self.list(
                session_id, after_seq=after_seq, include_injected=include_injected, limit=page_size, cursor=cursor
            )
        )

    def delete_run(self, session_id: str, run_id: str, *, reason: str | None = None) -> int:
        """Delete the messages of one run; how many went."""
        return self._run(calls.messages_delete_run(session_id, run_id=run_id, reason=reason))


class WorkingMemories(_Resource):
    """A session's short-lived key-value state (Redis, with a TTL)."""

    def get(self, session_id: str) -> WorkingMemory:
        return self._run(calls.state_get(session_id))

    def put(self, session_id: str, state: Mapping[str, Any], *, ttl_seconds: int | None = None) -> WorkingMemory:
        """Replace the state; the TTL starts afresh."""
        return self._run(calls.state_put(session_id, state, ttl_seconds=ttl_seconds))

    def patch(self, session_id: str, changes: Mapping[str, Any]) -> WorkingMemory:
        """Merge keys in (``None`` removes one); the remaining TTL is kept."""
        return self._run(calls.state_patch(session_id, changes))

    def delete(self, session_id: str) -> None:
        self._run(calls.state_delete(session_id))


class Memories(_Resource):
    """Long-term memories: the write path, reads, search, pins, review and forgetting."""

    def add(
        self,
        *,
        user_id: str,
        text: str,
        session_id: str | None = None,
        agent_id: str | None = None,
        memory_type: MemoryType | None = None,
        topics: Sequence[str] | None = None,
        entities: Sequence[str] | None = None,
        metadata: dict[str, Any] | None = None,
        pinned: bool | None = None,
        stated_at: datetime | None = None,
        event_date: date | None = None,
        event_date_precision: DatePrecision | None = None,
        attribute: str | None = None,
        subject: str | None = None,
    ) -> AddedMemory:
        """Remember something; ``deduplicated`` when the same text was already held (raises TombstonedError when
        it was forgotten before). ``stated_at``: when it was said (history imported with its own times).
        ``attribute``: the single-valued attribute it states (``residence``…): the one said last is current."""
        return self._run(
            calls.memory_add(
                user_id=user_id,
                text=text,
                session_id=session_id,
                agent_id=agent_id,
                memory_type=memory_type,
                topics=topics,
                entities=entities,
                metadata=metadata,
                pinned=pinned,
                stated_at=stated_at,
                event_date=event_date,
                event_date_precision=event_date_precision,
                attribute=attribute,
                subject=subject,
            )
        )

    def get(self, memory_id: str) -> Memory:
        return self._run(calls.memory_get(memory_id))

    def list(
        self,
        *,
        user_id: str | None = None,
        session_id: str | None = None,
        agent_id: str | None = None,
        memory_type: MemoryType | None = None,
        status: Literal["active", "candidate", "any"] | None = None,
        pinned: bool | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> Page[Memory]:
        """One page, newest first."""
        return self._run(
            calls.memories_list(
                user_id=user_id,
                session_id=session_id,
                agent_id=agent_id,
                memory_type=memory_type,
                status=status,
                pinned=pinned,
                limit=limit,
                cursor=cursor,
            )
        )

    def iter(self, *, page_size: int | None = None, **filters: Any) -> Iterator[Memory]:
        """Every memory matching the filters of `list`, page after page."""
        return _pages(lambda cursor: self.list(limit=page_size, cursor=cursor, **filters))

    def search(self, query: str, *, cursor: str | None = None, **filters: Any) -> Page[SearchHit]:
        """Ranked search of a question as people write it (``syntax="websearch"`` for operators). Filters:
        user_id, session_id, agent_id, memory_types, topics, entities, status, pinned, created_after,
        created_before, stated_after, stated_before, event_after, event_before, limit, recency; never relaxed.
        ``as_of``: answer as of that time."""
        return self._run(calls.memories_search(query, cursor=cursor, **filters))

    def iter_search(self, query: str, *, page_size: int | None = None, **filters: Any) -> Iterator[SearchHit]:
        return _pages(lambda cursor: self.search(query, cursor=cursor, limit=page_size, **filters))

    def update(
        self,
        memory_id: str,
        *,
        text: str | None = None,
        memory_type: MemoryType | None = None,
        topics: Sequence[str] | None = None,
        entities: Sequence[str] | None = None,
        metadata: dict[str, Any] | None = None,
        reason: str | None = None,
        if_revision: int | None = None,
    ) -> Memory:
        """Edit; each change appends a revision. With ``if_revision`` (the ``revision`` it was read at) only if
        nobody changed it since, else PreconditionFailedError (its ``current_revision`` says where it is now)."""
        return self._run(
            calls.memory_update(
                memory_id,
                if_revision=if_revision,
                text=text,
                memory_type=memory_type,
                topics=topics,
                entities=entities,
                metadata=metadata,
                reason=reason,
            )
        )

    def forget(
        self, memory_id: str, *, reason: str | None = None, force: bool = False, if_revision: int | None = None
    ) -> None:
        """Delete it; a tombstone keeps the text from coming back. A pinned memory needs ``force``. With
        ``if_revision``, only if it is still at that revision (else PreconditionFailedError)."""
        self._run(calls.memory_forget(memory_id, reason=reason, force=force, if_revision=if_revision))

    def revisions(self, memory_id: str) -> list[Revision]:
        return self._run(calls.memory_revisions(memory_id))

    def evidence(self, memory_id: str) -> list[Evidence]:
        return self._run(calls.memory_evidence(memory_id))

    def pin(self, memory_id: str, *, reason: str | None = None) -> Memory:
        return self._run(calls.memory_pin(memory_id, reason=reason))

    def unpin(self, memory_id: str, *, reason: str | None = None) -> Memory:
        return self._run(calls.memory_unpin(memory_id, reason=reason))

    def approve(self, memory_id: str, *, reason: str | None = None) -> Memory:
        return self._run(calls.memory_approve(memory_id, reason=reason))

    def reject(self, memory_id: str, *, reason: str | None = None) -> None:
        self._run(calls.memory_reject(memory_id, reason=reason))

    def bulk(
        self,
        action: Literal["pin", "unpin", "forget", "approve", "reject"],
        ids: Iterable[str],
        *,
        reason: str | None = None,
    ) -> BulkResult:
        return self._run(calls.memories_bulk(action, ids, reason=reason))

    def forget_by_policy(
        self,
        policy: ForgettingPolicy | Mapping[str, Any],
        *,
        user_id: str | None = None,
        session_id: str | None = None,
        dry_run: bool = True,
    ) -> ForgetResult:
        """Select by age, inactivity and budget; a dry run (the default) only lists what would go."""
        return self._run(calls.forget_by_policy(policy, user_id=user_id, session_id=session_id, dry_run=dry_run))


class Snapshots(_Resource):
    def iter_export(self, *, user_id: str | None = None) -> Iterator[bytes]:
        """The namespace's snapshot (JSON Lines), streamed in chunks."""
        return self._client._stream(calls.snapshot_export(user_id))

    def export(self, target: ExportTarget, *, user_id: str | None = None) -> int:
        """Write the snapshot to a path or binary file; the number of bytes written."""
        return _write(self.iter_export(user_id=user_id), target)

    def restore(self, source: SnapshotSource, *, dry_run: bool = True) -> RestoreResult:
        """Validate everything, then (unless a dry run) apply it in one transaction."""
        return self._run(calls.snapshot_restore(snapshot_body(source), dry_run=dry_run))


class Subjects(_Resource):
    """The people memories are about: export, erasure, privacy links."""

    def iter_export(self, user_id: str) -> Iterator[bytes]:
        return self._client._stream(calls.subject_export(user_id))

    def export(self, user_id: str, target: ExportTarget) -> int:
        return _write(self.iter_export(user_id), target)

    def erase(self, user_id: str, *, reason: str | None = None) -> ErasureAccepted:
        """Erase everything about the person (needs the erase scope); a worker carries it out."""
        return self._run(calls.subject_erase(user_id, reason=reason))

    def erasure(self, erasure_id: str) -> Erasure:
        return self._run(calls.erasure_get(erasure_id))

    def privacy_link(
        self, user_id: str, *, ttl_seconds: int | None = None, rights: Sequence[Right] | None = None
    ) -> PrivacyLink:
        """A link for the person to see, download, forget or erase their own memory. ``rights`` never
        exceed the key's scopes (ForbiddenError); left out, the link gets every right the key can grant."""
        return self._run(calls.privacy_link(user_id, ttl_seconds=ttl_seconds, rights=rights))

    def privacy_links(
        self, user_id: str, *, limit: int | None = None, cursor: str | None = None
    ) -> Page[PrivacyLinkInfo]:
        """One page of the person's links, newest first (their URLs are not kept)."""
        return self._run(calls.privacy_links_list(user_id, limit=limit, cursor=cursor))

    def iter_privacy_links(self, user_id: str, *, page_size: int | None = None) -> Iterator[PrivacyLinkInfo]:
        return _pages(lambda cursor: self.privacy_links(user_id, limit=page_size, cursor=cursor))

    def privacy_links_made(self, *, limit: int | None = None, cursor: str | None = None) -> Page[PrivacyLinkInfo]:
        """One page of the links this key made, every person's, newest first: what to revoke should it leak."""
        return self._run(calls.privacy_links_made(limit=limit, cursor=cursor))

    def iter_privacy_links_made(self, *, page_size: int | None = None) -> Iterator[PrivacyLinkInfo]:
        return _pages(lambda cursor: self.privacy_links_made(limit=page_size, cursor=cursor))

    def revoke_privacy_link(self, link_id: str, *, reason: str | None = None) -> None:
        """The link stops working at once; the person's other links stay."""
        self._run(calls.privacy_link_revoke(link_id, reason=reason))


class Tombstones(_Resource):
    """What was forgotten or rejected and must not come back (the key needs the ``tombstones`` scope)."""

    def list(
        self,
        *,
        user_id: str | None = None,
        reason: TombstoneReason | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> Page[Tombstone]:
        """One page, newest first."""
        return self._run(calls.tombstones_list(user_id=user_id, reason=reason, limit=limit, cursor=cursor))

    def iter(
        self,
        *,
        user_id: str | None = None,
        reason: TombstoneReason | None = None,
        page_size: int | None = None,
    ) -> Iterator[Tombstone]:
        return _pages(lambda cursor: self.list(user_id=user_id, reason=reason, limit=page_size, cursor=cursor))

    def lift(self, tombstone_id: int, *, reason: str) -> None:
        """Lift it, for a reason the audit trail keeps: the same text may then be stored again for that person."""
        self._run(calls.tombstone_lift(tombstone_id, reason=reason))


def _write(chunks: Iterator[bytes], target: ExportTarget) -> int:
    file, owned = open_target(target)
    written = 0
    try:
        for chunk in chunks:
            file.write(chunk)
            written += len(chunk)
    finally:
        if owned:
            file.close()
    return written
