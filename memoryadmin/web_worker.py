"""The web process's worker: gunicorn supervising uvicorn, serving `memoryadmin.asgi:application`.

    gunicorn memoryadmin.asgi:application --worker-class memoryadmin.web_worker.UvicornWorker

It differs from uvicorn-worker's own class in three ways. The lifespan protocol
is required ("on", not uvicorn's "auto"): the MCP server at /mcp runs for the
life of the process (memoryadmin.asgi), so a worker whose startup fails exits
instead of serving /mcp as unavailable. And two are about what a client or a
log sees of requests the application never handles:
- a request whose head (request line and headers) is malformed or larger than
  MAX_HEAD_BYTES is answered by the server itself, so that answer carries the
  API's error body (`{"error": {...}}`, 400 or 431) instead of plain text; the
  limit sits above the application's own (settings.MAX_REQUEST_LINE_BYTES,
  MAX_HEADER_BYTES, MAX_HEADERS_BYTES), so up to it Django answers first, with
  414 or 431 and the error body;
- the server's access and error logs pass through the filter that keeps privacy
  links out of every log line.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn_worker import UvicornWorker as BaseUvicornWorker

from memoryadmin.privacy.log_filters import RedactPrivacyLinks

MAX_HEAD_BYTES = 64 * 1024
SERVER_LOGGERS = ("uvicorn.access", "uvicorn.error", "gunicorn.access", "gunicorn.error")


def error_body(code: str, message: str, details: dict[str, Any] | None = None) -> bytes:
    return json.dumps({"error": {"code": code, "message": message, "details": details or {}}}).encode()


class _Connection(h11.Connection):
    """Remembers the status h11 suggests for the last protocol error (431 for a head too large)."""

    error_status = 400

    def next_event(self) -> Any:
        try:
            return super().next_event()
        except h11.RemoteProtocolError as exc:
            self.error_status = exc.error_status_hint
            raise


class JsonErrorsH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, answering requests it cannot parse with the API's error body."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.conn = _Connection(h11.SERVER, MAX_HEAD_BYTES)

    def send_400_response(self, msg: str) -> None:
        status = getattr(self.conn, "error_status", 400)
        if status == 431:
            body = error_body(
                "headers_too_large",
                f"The request line and headers exceed {MAX_HEAD_BYTES} bytes.",
                {"limit_bytes": MAX_HEAD_BYTES},
            )
        else:
            status, body = 400, error_body("bad_request", "The request is not valid HTTP.")
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
        ]
        # The connection is in an error state for h11; the answer is written as bytes.
        reason = {400: b"Bad Request", 431: b"Request Header Fields Too Large"}[status]
        head = b"HTTP/1.1 %d %s\r\n" % (status, reason) + b"".join(b"%s: %s\r\n" % pair for pair in headers)
        self.transport.write(head + b"\r\n" + body)
        self.transport.close()


class UvicornWorker(BaseUvicornWorker):
    CONFIG_KWARGS: dict[str, Any] = {
        "loop": "auto",
        "lifespan": "on",
        "http": JsonErrorsH11Protocol,
        "h11_max_incomplete_event_size": MAX_HEAD_BYTES,
    }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        redact = RedactPrivacyLinks()
        for name in SERVER_LOGGERS:
            for handler in logging.getLogger(name).handlers:
                handler.addFilter(redact)
        for handler in (*self.log.access_log.handlers, *self.log.error_log.handlers):
            handler.addFilter(redact)
