"""Request bodies sent without a length (`Transfer-Encoding: chunked`), given one before Django reads them.

Django reads as many bytes of a request body as its Content-Length says, and a chunked body has none: through
the WSGI bridge it would read nothing, and a valid request would be answered as if it had no body. Here such a
body is read first, into a spooled file (in memory while small), up to the size the path may take; it then
reaches the application with its length, read back a chunk at a time. A body past the limit is answered 413
with the API's error body, as a declared length past it is.
"""

from __future__ import annotations

import tempfile
from collections.abc import Awaitable, Callable
from typing import Any

from django.conf import settings

from memoryadmin.api.middleware import LARGE_BODY_PATHS
from memoryadmin.web_worker import error_body

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

CHUNK_BYTES = 64 * 1024
# Held in memory up to this much, then in a temporary file.
SPOOL_BYTES = 1024 * 1024


# Where a snapshot is uploaded: the API's restore and the console's form.
SNAPSHOT_PATHS = (*LARGE_BODY_PATHS, "/snapshots/restore/")


def body_limit(path: str) -> int:
    """The most bytes a body sent to `path` may hold: a snapshot's where one is uploaded, a request's elsewhere."""
    return settings.MAX_SNAPSHOT_UPLOAD_BYTES if path.startswith(SNAPSHOT_PATHS) else settings.MAX_REQUEST_BYTES


class SizedBodies:
    """Gives every HTTP request body a Content-Length before the application sees the request."""

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not _chunked(scope["headers"]):
            await self.app(scope, receive, send)
            return
        limit = body_limit(scope["path"])
        spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES)  # noqa: SIM115 - closed below
        try:
            size = 0
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    return
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > limit:
                    await _too_large(send, limit)
                    return
                spool.write(chunk)
                if not message.get("more_body", False):
                    break
            spool.seek(0)
            headers = [(k, v) for k, v in scope["headers"] if k.lower() != b"transfer-encoding"]
            headers.append((b"content-length", str(size).encode()))
            await self.app({**scope, "headers": headers}, _replay(spool, size, receive), send)
        finally:
            spool.close()


def _chunked(headers: list[tuple[bytes, bytes]]) -> bool:
    """Whether a body comes without a length: chunked, and no Content-Length beside it."""
    chunked = False
    for name, value in headers:
        name = name.lower()
        if name == b"content-length":
            return False
        if name == b"transfer-encoding" and b"chunked" in value.lower():
            chunked = True
    return chunked


def _replay(spool: Any, size: int, receive: Receive) -> Receive:
    """The body read back a chunk at a time, then whatever the connection says next (a disconnect)."""
    sent = 0
    done = False

    async def replay() -> Message:
        nonlocal sent, done
        if done:
            return await receive()
        chunk = spool.read(CHUNK_BYTES)
        sent += len(chunk)
        done = sent >= size
        return {"type": "http.request", "body": chunk, "more_body": not done}

    return replay


async def _too_large(send: Send, limit: int) -> None:
    body = error_body("payload_too_large", f"The request body exceeds {limit} bytes.", {"limit_bytes": limit})
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 413, "headers": [*headers, (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})
