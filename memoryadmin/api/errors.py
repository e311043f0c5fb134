"""One error body for every failure of the API: {"error": {"code", "message", "details"}}."""

from __future__ import annotations

import logging
from typing import Any

from django.db import DatabaseError, InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from kombu.exceptions import OperationalError as KombuOperationalError
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, HttpError
from ninja.errors import ValidationError as NinjaValidationError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from memoryadmin.core.app_ids import APP_ID_RE
from memoryadmin.core.errors import ServiceError

logger = logging.getLogger(__name__)


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = details or {}


def error_response(status: int, code: str, message: str, details: dict[str, Any] | None = None) -> JsonResponse:
    return JsonResponse(
        {"error": {"code": code, "message": message, "details": details or {}}},
        status=status,
    )


INVALID_ID = "invalid_id"
_ID_FIELDS = {"session_id", "user_id", "agent_id", "run_id"}


def _is_bad_app_id(err: dict[str, Any]) -> bool:
    loc = [str(part) for part in err.get("loc", ())]
    return err.get("type") in ("string_pattern_mismatch", "string_too_long") and bool(loc) and loc[-1] in _ID_FIELDS


def _field_errors(errors: list[dict[str, Any]]) -> dict[str, Any]:
    fields = []
    for err in errors:
        loc = [str(part) for part in err.get("loc", ()) if part not in ("body", "payload")]
        fields.append({"field": ".".join(loc), "message": err.get("msg", "invalid"), "type": err.get("type", "")})
    return {"fields": fields}


def install_error_handlers(api: NinjaAPI) -> None:
    @api.exception_handler(ApiError)
    def on_api_error(request: HttpRequest, exc: ApiError) -> HttpResponse:
        return error_response(exc.status, exc.code, exc.message, exc.details)

    @api.exception_handler(ServiceError)
    def on_service_error(request: HttpRequest, exc: ServiceError) -> HttpResponse:
        # The contract answers a malformed app-chosen id with 400, wherever it is checked.
        status = 400 if exc.code == INVALID_ID else exc.status
        return error_response(status, exc.code, exc.message, exc.details)

    @api.exception_handler(NinjaValidationError)
    def on_validation_error(request: HttpRequest, exc: NinjaValidationError) -> HttpResponse:
        errors = list(exc.errors)
        if any(err.get("type") == "json_invalid" or "JSON" in str(err.get("msg", "")) for err in errors):
            return error_response(400, "malformed_json", "The request body is not valid JSON.")
        bad_ids = [err for err in errors if _is_bad_app_id(err)]
        if bad_ids:
            return error_response(400, INVALID_ID, f"Ids must match {APP_ID_RE}.", _field_errors(bad_ids))
        return error_response(422, "validation_error", "The request is not valid.", _field_errors(errors))

    @api.exception_handler(AuthenticationError)
    def on_auth_error(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
        return error_response(401, "unauthorized", "A valid API key is required: Authorization: Bearer <key>.")

    @api.exception_handler(Http404)
    def on_not_found(request: HttpRequest, exc: Http404) -> HttpResponse:
        return error_response(404, "not_found", "Not found.")

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

    @api.exception_handler(RedisConnectionError)
    @api.exception_handler(RedisTimeoutError)
    def on_redis_down(request: HttpRequest, exc: Exception) -> HttpResponse:
        logger.warning("redis unavailable: %s", exc)
        return error_response(503, "redis_unavailable", "Working memory is unavailable right now; try again shortly.")

    @api.exception_handler(KombuOperationalError)
    def on_queue_down(request: HttpRequest, exc: Exception) -> HttpResponse:
        # Raised once the request's own transaction has committed: what was asked is recorded,
        # only its background task could not be queued. Asking again queues it.
        logger.warning("task queue unavailable: %s", exc)
        return error_response(
            503, "queue_unavailable", "The task queue is unavailable right now; send the request again shortly."
        )

    @api.exception_handler(OperationalError)
    @api.exception_handler(InterfaceError)
    def on_database_down(request: HttpRequest, exc: Exception) -> HttpResponse:
        logger.warning("database unavailable: %s", exc)
        return error_response(503, "database_unavailable", "The database is unavailable right now; try again shortly.")

    @api.exception_handler(DatabaseError)
    def on_database_error(request: HttpRequest, exc: DatabaseError) -> HttpResponse:
        # Input that slips past validation and that PostgreSQL refuses (NUL bytes,
        # out-of-range numbers) is the client's to fix, not a server failure.
        logger.info("database refused input: %s", exc)
        return error_response(400, "invalid_input", "The database refused this input.")
