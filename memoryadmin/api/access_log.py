"""Counts each API call in its key's access log (memoryadmin.tenancy.access_log).

Sits outside the rate limiter so it also sees the 429s. The endpoint is the route
(`GET /api/v1/memories/{memory_id}`), never the path, so a key's log has one line
per endpoint and status however many ids it touched.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.urls import Resolver404, resolve

from memoryadmin.api.ratelimit import API_PREFIX, EXEMPT_PATHS, bearer_token
from memoryadmin.tenancy.access_log import access_record
from memoryadmin.tenancy.models import hash_api_key

_CONVERTER = re.compile(r"<(?:[^:>]+:)?([^>]+)>")


HTTP_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


def endpoint_of(request: HttpRequest) -> str:
    match = request.resolver_match
    if match is None:
        # Refused before routing (over the rate limit): name the endpoint all the same.
        try:
            match = resolve(request.path_info)
        except Resolver404:
            match = None
    route = _CONVERTER.sub(r"{\1}", match.route) if match is not None else "(no route)"
    # Any token is a method to HTTP: one no route answers is named once, so a client cannot add labels at will.
    method = request.method if request.method in HTTP_METHODS else "OTHER"
    return f"{method} /{route.lstrip('/')}"


class AccessLogMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if not request.path.startswith(API_PREFIX) or request.path.startswith(EXEMPT_PATHS):
            return response
        key = getattr(request, "api_key", None)
        if key is not None:
            access_record(key_hash=key.key_hash, endpoint=endpoint_of(request), status=response.status_code)
        elif response.status_code == 429 and (token := bearer_token(request)) is not None:
            access_record(key_hash=hash_api_key(token), endpoint=endpoint_of(request), status=429, only_if_active=True)
        return response
