"""The console's middleware: pages never kept by the browser, and one page for an address that names nothing.

Going back to a memory after editing it elsewhere must show it as it is now, not as the
browser's back/forward cache kept it; and what an operator saw must not stay on a shared
computer after signing out.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils.cache import add_never_cache_headers

from memoryadmin.console.error_views import not_found


class NoStoreMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated and not response.has_header("Cache-Control"):
            add_never_cache_headers(response)
        return response


class NotFoundMiddleware:
    """An address no route matches is answered with the console's 404 page, whatever DEBUG is.

    A view's own 404 is already that page (`access.role_required`); an address that matched no
    route never reached a view, and with DEBUG on Django would list every route instead.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code == 404 and getattr(request, "resolver_match", None) is None:
            return not_found(request)
        return response
