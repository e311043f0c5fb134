"""The API docs page (Swagger UI, served from our own static files) under the browser pages' policy.

Requests under /api/ skip the browser pages' middleware, CSP's among them; the docs page is
HTML a browser renders, so it carries the same Content-Security-Policy as the console.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.csp import CSP, build_policy


def with_page_policy(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    @wraps(view)
    def page(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
        response = view(request, *args, **kwargs)
        response.headers.setdefault(str(CSP.HEADER_ENFORCE), build_policy(settings.SECURE_CSP))
        response.headers.setdefault("X-Frame-Options", settings.X_FRAME_OPTIONS)
        return response

    return page
