"""Guards in front of the API: body size before parsing, and the error body for
what never reaches a handler (unknown routes, wrong methods)."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from memoryadmin.api.errors import error_response

API_PREFIX = "/api/"
# Snapshot restore uploads are large by nature and have their own limit.
LARGE_BODY_PATHS = ("/api/v1/snapshots/restore",)


class ApiGuardMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not request.path.startswith(API_PREFIX):
            return self.get_response(request)
        limit = (
            settings.MAX_SNAPSHOT_UPLOAD_BYTES
            if request.path.startswith(LARGE_BODY_PATHS)
            else settings.MAX_REQUEST_BYTES
        )
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return error_response(400, "bad_request", "Content-Length is not a number.")
        if length > limit:
            return error_response(
                413, "payload_too_large", f"The request body exceeds {limit} bytes.", {"limit_bytes": limit}
            )
        response = self.get_response(request)
        if response.status_code in (404, 405) and not response.get("Content-Type", "").startswith("application/json"):
            if response.status_code == 404:
                return error_response(404, "not_found", "No such endpoint.")
            allowed = response.get("Allow", "")
            fixed = error_response(
                405,
                "method_not_allowed",
                f"Method {request.method} is not allowed here.",
                {"allowed": [m.strip() for m in allowed.split(",") if m.strip()]},
            )
            if allowed:
                fixed["Allow"] = allowed
            return fixed
        return response
