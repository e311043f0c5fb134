"""Guards in front of the API: body size before parsing, and the error body for
what never reaches a handler (unknown routes, wrong methods); and the split that
keeps the browser pages' middleware off API requests."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from django.conf import settings
from django.core.exceptions import MiddlewareNotUsed
from django.core.handlers.exception import convert_exception_to_response
from django.http import HttpRequest, HttpResponse
from django.utils.module_loading import import_string

from memoryadmin.api.errors import ApiError, error_response

API_PREFIX = "/api/"
# Snapshot restore uploads are large by nature and have their own limit.
LARGE_BODY_PATHS = ("/api/v1/snapshots/restore",)


class ApiGuardMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not request.path.startswith(API_PREFIX):
            return self.get_response(request)
        if refused := _oversized_head(request):
            return refused
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
        if request.method == "HEAD":
            return _head_of(request, self.get_response)
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


def _head_of(request: HttpRequest, get_response: Callable[[HttpRequest], HttpResponse]) -> HttpResponse:
    """HEAD answers as GET would, without the body (RFC 9110): the same status and headers, its length included."""
    request.method = "GET"
    try:
        response = ApiGuardMiddleware(get_response)(request)
    finally:
        request.method = "HEAD"
    if response.streaming:
        response.streaming_content = []
    else:
        length = len(response.content)
        response.content = b""
        response["Content-Length"] = str(length)
    return response


def _oversized_head(request: HttpRequest) -> HttpResponse | None:
    target = len(request.META.get("PATH_INFO", "")) + len(request.META.get("QUERY_STRING", "")) + 1
    headers = (
        (name, str(value))
        for name, value in request.META.items()
        if name.startswith("HTTP_") or name in ("CONTENT_TYPE", "CONTENT_LENGTH")
    )
    refusal = head_refusal(target_bytes=target, headers=headers)
    return None if refusal is None else error_response(refusal.status, refusal.code, refusal.message, refusal.details)


def head_refusal(*, target_bytes: int, headers: Iterable[tuple[str, str]]) -> ApiError | None:
    """414 for a request target over MAX_REQUEST_LINE_BYTES, 431 for a header over MAX_HEADER_BYTES or all of
    them over MAX_HEADERS_BYTES. The web server's own limits are set above these (`memoryadmin.web_worker`),
    so these answers, with the error body, are the ones a client meets.

    `headers` are named as in a WSGI environ (`HTTP_X_TRACE`, `CONTENT_TYPE`), so a request counts the same
    whether Django or the MCP endpoint (memoryadmin.mcp.http) checks it.
    """
    limit = settings.MAX_REQUEST_LINE_BYTES
    if target_bytes > limit:
        return ApiError(414, "uri_too_long", f"The request target exceeds {limit} bytes.", {"limit_bytes": limit})
    one, total = settings.MAX_HEADER_BYTES, settings.MAX_HEADERS_BYTES
    size = 0
    for name, value in headers:
        field = len(name) + len(value) + 4
        if field > one:
            header = name.removeprefix("HTTP_").replace("_", "-").title()
            return ApiError(
                431,
                "headers_too_large",
                f"The {header} header exceeds {one} bytes.",
                {"header": header, "limit_bytes": one},
            )
        size += field
    if size > total:
        return ApiError(
            431, "headers_too_large", f"The request's headers exceed {total} bytes.", {"limit_bytes": total}
        )
    return None


class BrowserMiddleware:
    """Runs `settings.BROWSER_MIDDLEWARE`, in order, for every request outside the API.

    API requests carry a key and answer JSON: sessions, CSRF, authentication by
    cookie, messages, the CSP nonce, htmx and the sign-in throttle have nothing to do
    for them, and together they cost a noticeable share of a small API request. The
    stack is built the way Django builds `MIDDLEWARE`, and its view, exception and
    template-response hooks (CSRF's `process_view` among them) are forwarded for
    browser requests only.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.api_response = get_response
        handler: Callable[[HttpRequest], HttpResponse] = get_response
        inner: list[object] = []
        for path in reversed(settings.BROWSER_MIDDLEWARE):
            try:
                instance = import_string(path)(handler)
            except MiddlewareNotUsed:
                continue
            inner.insert(0, instance)
            handler = convert_exception_to_response(instance)
        self.browser_response = handler
        # Django runs view hooks top-down, exception and template-response hooks bottom-up.
        self.view_hooks = [m.process_view for m in inner if hasattr(m, "process_view")]
        self.exception_hooks = [m.process_exception for m in reversed(inner) if hasattr(m, "process_exception")]
        self.template_hooks = [
            m.process_template_response for m in reversed(inner) if hasattr(m, "process_template_response")
        ]

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path_info.startswith(API_PREFIX):
            return self.api_response(request)
        return self.browser_response(request)

    def process_view(self, request: HttpRequest, view_func, view_args, view_kwargs) -> HttpResponse | None:
        if request.path_info.startswith(API_PREFIX):
            return None
        for hook in self.view_hooks:
            response = hook(request, view_func, view_args, view_kwargs)
            if response is not None:
                return response
        return None

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if request.path_info.startswith(API_PREFIX):
            return None
        for hook in self.exception_hooks:
            response = hook(request, exception)
            if response is not None:
                return response
        return None

    def process_template_response(self, request: HttpRequest, response):
        if request.path_info.startswith(API_PREFIX):
            return response
        for hook in self.template_hooks:
            response = hook(request, response)
        return response
