"""A tool call's failure as the REST API would answer it: the same status, code, message and details.

The API's error handler (memoryadmin.api.errors) turns exceptions into HTTP responses;
a tool call has no HTTP response of its own, so the same mapping yields the error body
that goes into the tool's result.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from django.db import DatabaseError, InterfaceError, OperationalError
from django.http import Http404
from kombu.exceptions import OperationalError as KombuOperationalError
from pydantic import ValidationError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from memoryadmin.api.errors import (
    APP_ID_FIELDS,
    INVALID_ID,
    ApiError,
    field_errors,
    invalid_id_error,
    is_bad_id,
    service_details,
)
from memoryadmin.core.errors import ServiceError

logger = logging.getLogger(__name__)

# The REST API takes a memory's id in its path; a tool takes it as an argument, and a malformed one is the
# same 400 `invalid_id`.
_ID_ARGUMENTS = APP_ID_FIELDS | {"memory_id"}


@dataclass(frozen=True)
class ToolError:
    status: int
    code: str
    message: str
    details: dict[str, Any] = field(default_factory=dict)

    def body(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message, "details": self.details}}


def forbidden(scope: str) -> ToolError:
    return ToolError(403, "forbidden", f"This API key lacks the '{scope}' scope.")


def invalid_arguments(exc: ValidationError) -> ToolError:
    """Arguments refused by their schema, said as the API says a refused request body."""
    errors = exc.errors(include_url=False, include_input=False)
    bad_ids = [err for err in errors if is_bad_id(err, id_fields=_ID_ARGUMENTS)]
    if bad_ids:
        message, details = invalid_id_error(bad_ids)
        return ToolError(400, INVALID_ID, message, details)
    return ToolError(422, "validation_error", "The arguments are not valid.", field_errors(errors))


def tool_error(exc: Exception) -> ToolError | None:
    """The API's answer to this exception, or None for a failure the API would not explain (a bug)."""
    if isinstance(exc, ServiceError):
        # The contract answers a malformed app-chosen id with 400, wherever it is checked.
        return ToolError(400 if exc.code == INVALID_ID else exc.status, exc.code, exc.message, service_details(exc))
    if isinstance(exc, ApiError):
        return ToolError(exc.status, exc.code, exc.message, exc.details)
    if isinstance(exc, ValidationError):
        return invalid_arguments(exc)
    if isinstance(exc, Http404):
        return ToolError(404, "not_found", "Not found.")
    if isinstance(exc, RedisConnectionError | RedisTimeoutError):
        logger.warning("redis unavailable: %s", exc)
        return ToolError(503, "redis_unavailable", "Working memory is unavailable right now; try again shortly.")
    if isinstance(exc, KombuOperationalError):
        logger.warning("task queue unavailable: %s", exc)
        return ToolError(
            503, "queue_unavailable", "The task queue is unavailable right now; send the request again shortly."
        )
    if isinstance(exc, OperationalError | InterfaceError):
        logger.warning("database unavailable: %s", exc)
        return ToolError(503, "database_unavailable", "The database is unavailable right now; try again shortly.")
    if isinstance(exc, DatabaseError):
        logger.info("database refused input: %s", exc)
        return ToolError(400, "invalid_input", "The database refused this input.")
    return None
