"""One exception class per error code of the API.

Every error the API answers has the body ``{"error": {"code", "message", "details"}}``;
the client raises the class of that code, a subclass of the class of its HTTP
status family, so a caller can catch as broadly or as narrowly as it likes::

    try:
        client.memories.add(user_id="alice", text="Alice is allergic to peanuts")
    except TombstonedError:
        ...  # forgotten before: it will not be stored again
    except ConflictError:
        ...  # any other 409
"""

from __future__ import annotations

from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Any

import httpx


class MemoryAdminError(Exception):
    """Anything this client raises."""


class TransportError(MemoryAdminError):
    """The request got no answer: the server could not be reached, or the connection failed."""


class RequestTimeoutError(TransportError):
    """No answer within the client's timeout."""


class APIError(MemoryAdminError):
    """The API answered with an error body."""

    status: int = 0
    code: str = "error"

    def __init__(
        self,
        message: str,
        *,
        status: int,
        code: str,
        details: dict[str, Any] | None = None,
        response: httpx.Response | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code
        self.details = details or {}
        self.response = response

    def __str__(self) -> str:
        return f"{self.status} {self.code}: {self.message}"

    @property
    def retry_after(self) -> float | None:
        """Seconds the server asked to wait before trying again (429 and 503), if it said."""
        if self.response is None:
            return None
        return parse_retry_after(self.response.headers.get("Retry-After"))


# --- families, by HTTP status -----------------------------------------------------------------------


class BadRequestError(APIError):
    """400: a malformed id, body or cursor."""


class UnauthorizedError(APIError):
    """401: no key, or a revoked or unknown one."""


class ForbiddenError(APIError):
    """403: the key lacks the scope for this call."""


class NotFoundError(APIError):
    """404: no such object, or one of another namespace (which, for this key, does not exist)."""


class MethodNotAllowedError(APIError):
    """405."""


class ConflictError(APIError):
    """409: the request conflicts with what is stored."""


class GoneError(APIError):
    """410."""


class PreconditionFailedError(APIError):
    """412: ``if_revision`` (If-Match) names a revision the memory is no longer at; nothing was changed.

    ``current_revision`` is the memory's revision now: read it again, merge, and retry from there.
    """

    @property
    def current_revision(self) -> int | None:
        revision = self.details.get("revision")
        return revision if isinstance(revision, int) else None


class PayloadTooLargeError(APIError):
    """413: the body exceeds the server's limit."""


class UriTooLongError(APIError):
    """414: the request target (path and query) exceeds the server's limit."""


class UnprocessableError(APIError):
    """422: fields that are not valid; ``details["fields"]`` says which."""


class RateLimitedError(APIError):
    """429: the key made too many requests this minute, or its address sent too many unknown keys; see
    ``retry_after``."""


class HeadersTooLargeError(APIError):
    """431: one header, or all of them, exceed the server's limit; ``details["header"]`` names the one."""


class ServerError(APIError):
    """5xx."""


class ServiceUnavailableError(ServerError):
    """503: the database, Redis or the task queue is down; the request can be sent again."""


# --- one class per code ----------------------------------------------------------------------------------


class MalformedJsonError(BadRequestError):
    """The body is not valid JSON."""


class InvalidIdError(BadRequestError):
    """A malformed id: one chosen by the app (session_id, user_id, agent_id, run_id) that does not match the id
    pattern, or a memory, erasure or privacy link id that is not a UUID, a tombstone id that is not a positive
    integer. ``details["fields"]`` names it. (A well-formed id that names nothing is NotFoundError.)"""


class InvalidCursorError(BadRequestError):
    """The cursor is not one the server gave out."""


class InvalidPreconditionError(BadRequestError):
    """An If-Match that is not one of the memory's entity tags (``"3"``) nor ``*``."""


class InvalidInputError(BadRequestError):
    """The database refused this input."""


class UserIdRequiredError(BadRequestError):
    """The first append to a session must name its user."""


class ValidationError(UnprocessableError):
    """Fields that are not valid."""


class UrlNotAllowedError(UnprocessableError):
    """A webhook URL this server does not send to (not http(s), credentials in it, or a private address)."""


class InvalidSnapshotError(UnprocessableError):
    """The snapshot is not a valid memoryadmin snapshot."""


class ChecksumMismatchError(UnprocessableError):
    """The snapshot's trailer does not match its content."""


class TombstonedError(ConflictError):
    """This text was forgotten or rejected for this user and will not be stored again."""


class PinnedError(ConflictError):
    """The memory is pinned; forget it with ``force=True``."""


class DuplicateError(ConflictError):
    """Another memory of the user already has this text."""


class NotCandidateError(ConflictError):
    """The memory is not awaiting review."""


class UserMismatchError(ConflictError):
    """A session's user never changes."""


class ExistsError(ConflictError):
    """It exists already."""


class EndpointPausedError(ConflictError):
    """The webhook endpoint is paused; resume it to send to it."""


class DeliveryPendingError(ConflictError):
    """The delivery is still pending: it will be sent."""


class TooManyEndpointsError(ConflictError):
    """The namespace has as many webhook endpoints as it may."""


class SessionDeletedError(ConflictError):
    """The session was deleted."""


class NotReadyError(ConflictError):
    """Not ready yet."""


class NamespaceMismatchError(ConflictError):
    """The snapshot belongs to another namespace."""


class LinkInvalidError(ForbiddenError):
    """The privacy link is not valid."""


class LinkExpiredError(GoneError):
    """The privacy link expired."""


class LinkRevokedError(GoneError):
    """The privacy link was revoked."""


class RedisUnavailableError(ServiceUnavailableError):
    """Working memory (Redis) is unavailable."""


class QueueUnavailableError(ServiceUnavailableError):
    """The task queue is unavailable; what was asked is recorded, ask again to queue its task."""


class DatabaseUnavailableError(ServiceUnavailableError):
    """The database is unavailable."""


BY_CODE: dict[str, type[APIError]] = {
    "bad_request": BadRequestError,
    "malformed_json": MalformedJsonError,
    "invalid_id": InvalidIdError,
    "invalid_cursor": InvalidCursorError,
    "invalid_precondition": InvalidPreconditionError,
    "invalid_input": InvalidInputError,
    "user_id_required": UserIdRequiredError,
    "unauthorized": UnauthorizedError,
    "forbidden": ForbiddenError,
    "link_invalid": LinkInvalidError,
    "not_found": NotFoundError,
    "method_not_allowed": MethodNotAllowedError,
    "conflict": ConflictError,
    "tombstoned": TombstonedError,
    "pinned": PinnedError,
    "duplicate": DuplicateError,
    "not_candidate": NotCandidateError,
    "user_mismatch": UserMismatchError,
    "exists": ExistsError,
    "paused": EndpointPausedError,
    "pending": DeliveryPendingError,
    "too_many_endpoints": TooManyEndpointsError,
    "session_deleted": SessionDeletedError,
    "not_ready": NotReadyError,
    "namespace_mismatch": NamespaceMismatchError,
    "link_expired": LinkExpiredError,
    "link_revoked": LinkRevokedError,
    "precondition_failed": PreconditionFailedError,
    "payload_too_large": PayloadTooLargeError,
    "uri_too_long": UriTooLongError,
    "validation_error": ValidationError,
    "url_not_allowed": UrlNotAllowedError,
    "invalid_snapshot": InvalidSnapshotError,
    "checksum_mismatch": ChecksumMismatchError,
    "rate_limited": RateLimitedError,
    "headers_too_large": HeadersTooLargeError,
    "redis_unavailable": RedisUnavailableError,
    "queue_unavailable": QueueUnavailableError,
    "database_unavailable": DatabaseUnavailableError,
}

BY_STATUS: dict[int, type[APIError]] = {
    400: BadRequestError,
    401: UnauthorizedError,
    403: ForbiddenError,
    404: NotFoundError,
    405: MethodNotAllowedError,
    409: ConflictError,
    410: GoneError,
    412: PreconditionFailedError,
    413: PayloadTooLargeError,
    414: UriTooLongError,
    422: UnprocessableError,
    429: RateLimitedError,
    431: HeadersTooLargeError,
    503: ServiceUnavailableError,
}


def error_from_response(response: httpx.Response) -> APIError:
    """The exception for an error answer: by its code, else by its status."""
    code, message, details = "error", response.reason_phrase or "error", {}
    try:
        body = response.json()
        error = body["error"]
        code, message, details = str(error["code"]), str(error.get("message", "")), error.get("details") or {}
    except (ValueError, KeyError, TypeError):
        pass
    cls = BY_CODE.get(code) or BY_STATUS.get(response.status_code)
    if cls is None:
        cls = ServerError if response.status_code >= 500 else APIError
    return cls(message, status=response.status_code, code=code, details=details, response=response)


def parse_retry_after(value: str | None) -> float | None:
    """Retry-After as seconds: a number of seconds or an HTTP date."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())
