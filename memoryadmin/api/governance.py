"""Governance: forgetting policies, data subjects (export, erasure, privacy links) and snapshots."""

from __future__ import annotations

import tempfile
import uuid
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import orjson
from django.conf import settings
from django.db import transaction
from django.http import HttpRequest, StreamingHttpResponse
from django.utils import timezone
from ninja import Router, Status

from memoryadmin.api.auth import actor_of, erase_auth, namespace_of, read_auth, write_auth
from memoryadmin.api.errors import ApiError
from memoryadmin.api.pages import page_answer
from memoryadmin.api.schemas.common import (
    AppId,
    Cursor,
    Limit,
    Reason,
    UserIdPath,
    responses,
)
from memoryadmin.api.schemas.governance import (
    ErasureAccepted,
    ErasureIn,
    ErasureOut,
    ForgetIn,
    ForgetOut,
    PrivacyLinkIn,
    PrivacyLinkOut,
    PrivacyLinkPage,
    RestoreOut,
)
from memoryadmin.core.app_ids import validate_app_id
from memoryadmin.core.pagination import Page
from memoryadmin.core.replicas import lag_tolerant_stream
from memoryadmin.core.timestamps import rfc3339
from memoryadmin.governance.erasure import erasure_receipt, erasure_request
from memoryadmin.governance.forgetting import ForgettingTrigger, forgetting_run, forgetting_select, policy_of
from memoryadmin.governance.models import PrivacyLink
from memoryadmin.governance.privacy_links import (
    privacy_link_create,
    privacy_link_in,
    privacy_link_revoke,
)
from memoryadmin.governance.queries import erasure_in, privacy_links_made_by, privacy_links_page
from memoryadmin.governance.snapshots import snapshot_export_stream, snapshot_restore

router = Router(tags=["governance"])

NDJSON = "application/x-ndjson"
# Exports stream JSON Lines, not JSON: documented by hand so the schema names the media type actually sent.
NDJSON_OK = {
    "responses": {
        "200": {
            "description": "JSON Lines: a header, one record a line, a trailer with the SHA-256.",
            "content": {NDJSON: {"schema": {"type": "string"}}},
        }
    }
}
READ_CHUNK = 1024 * 1024
STREAM_CHUNK_BYTES = 64 * 1024
SPOOL_BYTES = 8 * 1024 * 1024


# --- forgetting ---------------------------------------------------------------------------------


def _stream_selection(scanned: int, rows: Iterator[tuple[uuid.UUID, str]]) -> Iterator[bytes]:
    # Selections can be as long as the namespace: stream them, in chunks of about 64 KiB.
    parts = [b'{"dry_run":true,"scanned":' + str(scanned).encode() + b',"deleted":0,"selected":[']
    size = 0
    for index, (memory_id, reason) in enumerate(rows):
        part = (b"," if index else b"") + orjson.dumps({"id": str(memory_id), "reason": reason})
        parts.append(part)
        size += len(part)
        if size >= STREAM_CHUNK_BYTES:
            yield b"".join(parts)
            parts, size = [], 0
    parts.append(b"]}")
    yield b"".join(parts)


@router.post(
    "/memories/forget",
    auth=write_auth,
    response=responses({200: ForgetOut}),
    summary="Forget by policy (dry run by default)",
    description=(
        "Selects by age, inactivity, the hard-age multiplier and the recency budget (never pinned memories, "
        "never types outside the allow-list). A dry run lists every selected id with its reason; a real run "
        "deletes them, leaving `policy` tombstones."
    ),
)
def forget(request: HttpRequest, payload: ForgetIn):
    namespace = namespace_of(request)
    policy = policy_of(payload.policy)
    if payload.dry_run:
        # The ids and policy were validated above; the selection runs as the response is sent,
        # in its own transaction (its settings for sorting apply only inside one).
        def stream() -> Iterator[bytes]:
            with transaction.atomic():
                selection = forgetting_select(
                    namespace=namespace, policy=policy, user_id=payload.user_id, session_id=payload.session_id
                )
                yield from _stream_selection(selection.scanned, selection.rows)

        return StreamingHttpResponse(stream(), content_type="application/json")
    result = forgetting_run(
        namespace=namespace,
        policy=policy,
        actor=actor_of(request),
        trigger=ForgettingTrigger.API,
        user_id=payload.user_id,
        session_id=payload.session_id,
    )
    return {
        "dry_run": False,
        "scanned": result.run.scanned,
        "selected": [{"id": memory_id, "reason": reason} for memory_id, reason in result.selected],
        "deleted": result.run.deleted,
        "run_id": result.run.pk,
    }


# --- snapshots and data subjects ----------------------------------------------------------------


def _snapshot_response(lines: Iterator[bytes], filename: str) -> StreamingHttpResponse:
    response = StreamingHttpResponse(lines, content_type=NDJSON)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _export(request: HttpRequest, user_id: str | None) -> StreamingHttpResponse:
    namespace = namespace_of(request)
    if user_id is not None:
        validate_app_id(user_id, "user_id")
    # The id was checked above, so the stream (which opens its transaction lazily, once the
    # response is being sent) cannot fail on its arguments half-way.
    stem = f"{namespace.slug}-{user_id}" if user_id else namespace.slug
    lines = lag_tolerant_stream(request, snapshot_export_stream(namespace=namespace, user_id=user_id))
    return _snapshot_response(lines, f"{stem}.jsonl")


@router.get(
    "/snapshots/export",
    auth=read_auth,
    summary="Export a snapshot (JSON Lines)",
    description="Header, one record a line, trailer with the SHA-256 of everything before it. Streamed.",
    response=responses({}),
    openapi_extra=NDJSON_OK,
)
def snapshot_export(request: HttpRequest, user_id: AppId | None = None):
    return _export(request, user_id)


@router.get(
    "/subjects/{user_id}/export",
    auth=read_auth,
    summary="Everything held about one person (JSON Lines)",
    response=responses({}),
    openapi_extra=NDJSON_OK,
)
def subject_export(request: HttpRequest, user_id: str = UserIdPath):
    return _export(request, user_id)


def _spooled_body(request: HttpRequest) -> Any:
    """The request body in a temporary file (in memory while small), read in chunks, never whole."""
    spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES)  # noqa: SIM115 - closed by the caller
    limit = settings.MAX_SNAPSHOT_UPLOAD_BYTES
    size = 0
    while chunk := request.read(READ_CHUNK):
        size += len(chunk)
        if size > limit:
            spool.close()
            raise ApiError(413, "payload_too_large", f"The snapshot exceeds {limit} bytes.", {"limit_bytes": limit})
        spool.write(chunk)
    spool.seek(0)
    return spool


@router.post(
    "/snapshots/restore",
    auth=write_auth,
    response=responses({200: RestoreOut}, 409, 413),
    openapi_extra={"requestBody": {"required": True, "content": {NDJSON: {"schema": {"type": "string"}}}}},
    summary="Restore a snapshot (dry run by default)",
    description=(
        "Send the JSON Lines file as the body. Everything is validated (format, version, every record, the "
        "checksum) as it is applied, in one transaction: the header before anything is written, and a refusal "
        "anywhere rolls back all that was written, so a file that fails leaves nothing. A tombstone or a later "
        "erasure always wins over the snapshot; restoring the same file twice changes nothing the second time."
    ),
)
def snapshot_restore_view(request: HttpRequest, dry_run: bool = True):
    namespace = namespace_of(request)
    with _spooled_body(request) as source:
        result = snapshot_restore(namespace=namespace, source=source, actor=actor_of(request), dry_run=dry_run)
    return {"dry_run": result.dry_run, "records": result.records, "counts": result.counts, "by_type": result.by_type}


# --- erasure ------------------------------------------------------------------------------------


@router.post(
    "/subjects/{user_id}/erasure",
    auth=erase_auth,
    response=responses({202: ErasureAccepted}),
    summary="Erase everything about one person (right to be forgotten)",
    description=(
        "Needs the `erase` scope. A worker deletes the person's sessions, messages, memories, revisions, "
        "evidence, pins, working memory and scheduled extraction, verifies nothing remains and writes a "
        "receipt. A request already open for the person is returned instead of a second one."
    ),
)
def subject_erase(request: HttpRequest, user_id: str = UserIdPath, payload: ErasureIn | None = None):
    erasure = erasure_request(
        namespace=namespace_of(request),
        user_id=user_id,
        actor=actor_of(request),
        reason=payload.reason if payload else "",
    )
    return Status(202, {"erasure_id": erasure.pk, "status": erasure.status})


@router.get(
    "/erasures/{erasure_id}",
    auth=read_auth,
    response=responses({200: ErasureOut}, 404),
    summary="An erasure: status, counts and receipt",
)
def erasure_get(request: HttpRequest, erasure_id: uuid.UUID):
    erasure = erasure_in(namespace_of(request), erasure_id)
    return {
        "erasure_id": erasure.pk,
        "status": erasure.status,
        "counts": erasure.counts,
        "receipt": erasure_receipt(erasure),
        "created_at": erasure.created_at,
        "completed_at": erasure.completed_at,
        "error": erasure.error or None,
    }


# --- privacy links ------------------------------------------------------------------------------


def _link_info(link: PrivacyLink, now: datetime) -> dict[str, Any]:
    status = "revoked" if link.revoked_at else "expired" if link.expires_at <= now else "active"
    return {
        "link_id": link.pk,
        "rights": link.rights,
        "status": status,
        "created_by": link.created_by,
        "created_at": link.created_at,
        "expires_at": link.expires_at,
        "revoked_at": link.revoked_at,
        "last_used_at": link.last_used_at,
    }


def _link_page(page: Page[PrivacyLink]) -> dict[str, Any]:
    now = timezone.now()  # once, so every link of the page is judged at the same moment
    return page_answer(page, lambda link: _link_info(link, now))


@router.post(
    "/subjects/{user_id}/privacy-link",
    auth=write_auth,
    response=responses({200: PrivacyLinkOut}),
    summary="A link for the person to see, download, forget or erase their own memory",
    description=(
        "Its rights are fixed now and never exceed this key's scopes: 403 `forbidden` when `rights` asks for more. "
        "At every use they are bounded again by the key: once the key is revoked the link no longer opens. "
        "The URL's token is random and names nothing; only its hash is kept. The link is listed with the person "
        "and with this key (`GET /privacy-links`) and can be revoked on its own; every use is audited."
    ),
)
def privacy_link(request: HttpRequest, user_id: str = UserIdPath, payload: PrivacyLinkIn | None = None):
    payload = payload or PrivacyLinkIn()
    url, link = privacy_link_create(
        namespace=namespace_of(request),
        user_id=user_id,
        actor=actor_of(request),
        key=request.auth,  # type: ignore[arg-type]
        rights=payload.rights,
        ttl_seconds=payload.ttl_seconds,
    )
    if url.startswith("/"):
        url = request.build_absolute_uri(url)
    return {"link_id": link.pk, "url": url, "rights": link.rights, "expires_at": rfc3339(link.expires_at)}


@router.get(
    "/subjects/{user_id}/privacy-links",
    auth=read_auth,
    response=responses({200: PrivacyLinkPage}),
    summary="A person's privacy links, newest first",
    description="The links themselves are not kept and not shown, only what each allows and whether it still works.",
)
def privacy_link_list(request: HttpRequest, user_id: str = UserIdPath, limit: Limit = 50, cursor: Cursor | None = None):
    return _link_page(privacy_links_page(namespace=namespace_of(request), user_id=user_id, cursor=cursor, limit=limit))


@router.get(
    "/privacy-links",
    auth=write_auth,
    response=responses({200: PrivacyLinkPage}),
    summary="The privacy links this key made, newest first",
    description=(
        "Every person's, so the links a key handed out can be found and revoked should the key leak. "
        "Revoking the key (in the console) ends them all."
    ),
)
def privacy_link_list_mine(request: HttpRequest, limit: Limit = 50, cursor: Cursor | None = None):
    return _link_page(privacy_links_made_by(key=request.auth, cursor=cursor, limit=limit))  # type: ignore[arg-type]


@router.delete(
    "/privacy-links/{link_id}",
    auth=write_auth,
    response=responses({204: None}, 404),
    summary="Revoke one privacy link",
    description="The link stops working at once; the person's other links stay. Revoking twice changes nothing.",
)
def privacy_link_remove(request: HttpRequest, link_id: uuid.UUID, reason: Reason = ""):
    link = privacy_link_in(namespace_of(request), link_id)
    privacy_link_revoke(link=link, actor=actor_of(request), reason=reason)
    return Status(204, None)
