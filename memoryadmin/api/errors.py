"""One error body for every failure of the API: {"error": {"code", "message", "details"}}.

`failure_of` is the one mapping from an exception to that answer; the REST handlers and the MCP
tools (memoryadmin.mcp.errors) both answer with it, so a failure reads the same on either transport.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import DatabaseError, InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from kombu.exceptions import OperationalError as KombuOperationalError
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, HttpError
from ninja.errors import ValidationError as NinjaValidationError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from memoryadmin.api.schemas.common import NO_NUL, NOT_BLANK
from memoryadmin.core.app_ids import APP_ID_RE
from memoryadmin.core.errors import PreconditionFailed, ServiceError

logger = logging.getLogger(__name__)


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = details or {}


@dataclass(frozen=True)
class Failure:
    """What a failed operation answers: its HTTP status and the error body's fields."""

    status: int
    code: str
    message: str
    details: dict[str, Any] = field(default_factory=dict)

    def body(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message, "details": self.details}}


def error_response(status: int, code: str, message: str, details: dict[str, Any] | None = None) -> JsonResponse:
    return JsonResponse(
        {"error": {"code": code, "message": message, "details": details or {}}},
        status=status,
    )


INVALID_ID = "invalid_id"
APP_ID_FIELDS = frozenset({"session_id", "user_id", "agent_id", "run_id"})
# Where a parameter came from; the field named to the client starts after it.
_SOURCES = {"body", "payload", "query", "path", "header"}
# Pydantic's names for the members of a union ("list[any]", "function-after[check(), str]") and for a dict's key.
_UNION_MEMBER = re.compile(r"[\w-]+\[.*\]|\[key\]")
_SCALAR_MEMBERS = frozenset({"str", "int", "float", "bool", "none", "bytes", "decimal"})
_SHAPE_ERRORS = {"string_pattern_mismatch", "string_too_long", "string_too_short", "uuid_parsing", "uuid_type"}
_MESSAGES = {"extra_forbidden": "is not a field of this request body"}
# The schema's patterns, said in words.
_PATTERNS = {
    NOT_BLANK: "must not be blank nor contain NUL characters",
    NO_NUL: "must not contain NUL characters",
    APP_ID_RE: f"must match {APP_ID_RE}",
}


def _message(err: dict[str, Any]) -> str:
    kind = err.get("type", "")
    if kind in _MESSAGES:
        return _MESSAGES[kind]
    if kind == "string_pattern_mismatch":
        pattern = (err.get("ctx") or {}).get("pattern", "")
        if pattern in _PATTERNS:
            return _PATTERNS[pattern]
    return str(err.get("msg", "")).removeprefix("Value error, ")


def field_name(loc: Sequence[Any]) -> str:
    """A pydantic location as the services name fields: `messages[0].content`, `policy.budget`, `query`.

    The location starts with where the parameter came from and, for a body, the view's name for it; a union's
    member ("dict[str,any]") or a key's check ("[key]") in it is no field.
    """
    parts = list(loc)
    if parts and parts[0] in _SOURCES:
        source = parts.pop(0)
        if source in ("body", "payload") and parts and parts[0] in ("body", "payload"):
            parts.pop(0)
    parts = [part for part in parts if not (isinstance(part, str) and _UNION_MEMBER.fullmatch(part))]
    if len(parts) > 1 and parts[-1] in _SCALAR_MEMBERS:
        parts.pop()
    name = ""
    for part in parts:
        if isinstance(part, int):
            name += f"[{part}]"
        else:
            name += ("." if name else "") + str(part)
    return name


def field_errors(errors: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The one shape of validation details: {"fields": [{"field", "message"}]}, a field named once (a value no
    member of a union takes is one error)."""
    named: dict[str, list[str]] = {}
    for err in errors:
        messages = named.setdefault(field_name(err.get("loc", ())), [])
        if (message := _message(err)) not in messages:
            messages.append(message)
    return {"fields": [{"field": field, "message": _one_of(messages)} for field, messages in named.items()]}


def _one_of(messages: list[str]) -> str:
    """The messages of a union's members as one: "Input should be a valid dictionary, string or boolean"."""
    kinds = [m.removeprefix(_VALID) for m in messages if m.startswith(_VALID)]
    if len(messages) < 2 or len(kinds) < len(messages):
        return messages[0]
    return _VALID + ", ".join(kinds[:-1]) + " or " + kinds[-1]


_VALID = "Input should be a valid "


def service_details(exc: ServiceError) -> dict[str, Any]:
    """A service names the field it refused as `details.field`; the API says it as `details.fields`."""
    details = dict(exc.details)
    field = details.pop("field", None)
    if field is not None and "fields" not in details:
        details = {"fields": [{"field": str(field), "message": exc.message}], **details}
    return details


def is_bad_id(err: dict[str, Any], *, id_fields: Collection[str] = APP_ID_FIELDS) -> bool:
    """Whether a validation error is a malformed id: a path parameter, or an id field of the wrong shape.

    Another transport (MCP) whose ids are arguments rather than path parameters names them in `id_fields`.
    """
    loc = list(err.get("loc", ()))
    if not loc:
        return False
    if loc[0] == "path":
        # Every path parameter is an id: one that cannot be one is a malformed id, not a missing object.
        return True
    return err.get("type") in _SHAPE_ERRORS and str(loc[-1]) in id_fields


def _id_rule(err: dict[str, Any]) -> str:
    """What the id should have been, from what the validator expected of it."""
    kind = str(err.get("type", ""))
    if kind.startswith("uuid"):
        return "a UUID"
    if kind.startswith("int"):
        return "an integer"
    return f"an id matching {APP_ID_RE}"


def invalid_id_error(errors: Sequence[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    """The message and details of the 400 `invalid_id` answer for these malformed ids."""
    details = field_errors(errors)
    rules = "; ".join(
        f"{field['field']} must be {_id_rule(err)}" for field, err in zip(details["fields"], errors, strict=True)
    )
    return f"Malformed id: {rules}.", details


# The exceptions `failure_of` explains; any other is a bug, answered 500 without its details.
EXPLAINED: tuple[type[Exception], ...] = (
    ApiError,
    ServiceError,
    Http404,
    RedisConnectionError,
    RedisTimeoutError,
    KombuOperationalError,
    DatabaseError,
)


INTERNAL_ERROR = Failure(500, "internal_error", "The server failed to answer this call.")


def failure_of(exc: Exception) -> Failure | None:
    """The answer to this exception, or None for a failure the API would not explain (a bug)."""
    if isinstance(exc, ServiceError):
        # The contract answers a malformed app-chosen id with 400, wherever it is checked.
        return Failure(400 if exc.code == INVALID_ID else exc.status, exc.code, exc.message, service_details(exc))
    if isinstance(exc, ApiError):
        return Failure(exc.status, exc.code, exc.message, exc.details)
    if isinstance(exc, Http404):
        return Failure(404, "not_found", "Not found.")
    if isinstance(exc, RedisConnectionError | RedisTimeoutError):
        logger.warning("redis unavailable: %s", exc)
        return Failure(503, "redis_unavailable", "Working memory is unavailable right now; try again shortly.")
    if isinstance(exc, KombuOperationalError):
        # Raised once the request's own transaction has committed: what was asked is recorded,
        # only its background task could not be queued. Asking again queues it.
        logger.warning("task queue unavailable: %s", exc)
        return Failure(
            503, "queue_unavailable", "The task queue is unavailable right now; send the request again shortly."
        )
    if isinstance(exc, OperationalError | InterfaceError):
        logger.warning("database unavailable: %s", exc)
        return Failure(503, "database_unavailable", "The database is unavailable right now; try again shortly.")
    if isinstance(exc, DatabaseError):
        # Input that slips past validation and that PostgreSQL refuses (NUL bytes,
        # out-of-range numbers) is the client's to fix, not a server failure.
        logger.info("database refused input: %s", exc)
        return Failure(400, "invalid_input", "The database refused this input.")
    return None


def install_error_handlers(api: NinjaAPI) -> None:
    def on_failure(request: HttpRequest, exc: Exception) -> HttpResponse:
        # Every kind registered below has an answer; the fallback only keeps the types honest.
        failure = failure_of(exc) or INTERNAL_ERROR
        response = error_response(failure.status, failure.code, failure.message, failure.details)
        if isinstance(exc, PreconditionFailed) and "revision" in exc.details:
            # The current revision's ETag, for the client to fetch it or retry from it.
            response["ETag"] = f'"{exc.details["revision"]}"'
        return response

    for kind in EXPLAINED:
        api.add_exception_handler(kind, on_failure)

    @api.exception_handler(NinjaValidationError)
    def on_validation_error(request: HttpRequest, exc: NinjaValidationError) -> HttpResponse:
        errors = list(exc.errors)
        if any(err.get("type") == "json_invalid" or "JSON" in str(err.get("msg", "")) for err in errors):
            return error_response(400, "malformed_json", "The request body is not valid JSON.")
        if any(tuple(err.get("loc", ()))[:1] == ("header",) for err in errors):
            # The only header a handler reads is If-Match.
            return error_response(
                400,
                "invalid_precondition",
                'If-Match takes one ETag of the memory as it was sent, such as "3" (quotes included), or *.',
                field_errors(errors),
            )
        bad_ids = [err for err in errors if is_bad_id(err)]
        if bad_ids:
            return error_response(400, INVALID_ID, *invalid_id_error(bad_ids))
        return error_response(422, "validation_error", "The request is not valid.", field_errors(errors))

    @api.exception_handler(AuthenticationError)
    def on_auth_error(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
        return error_response(401, "unauthorized", "A valid API key is required: Authorization: Bearer <key>.")

    @api.exception_handler(HttpError)
    def on_http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
        code = {
            400: "bad_request",
            401: "unauthorized",
            403: "forbidden",
            404: "not_found",
            405: "method_not_allowed",
            413: "payload_too_large",
            429: "rate_limited",
        }.get(exc.status_code, "error")
        message = str(exc) or code.replace("_", " ")
        if exc.status_code == 400 and message.startswith("Cannot parse request body"):
            return error_response(400, "malformed_json", "The request body is not valid JSON.")
        return error_response(exc.status_code, code, message)
