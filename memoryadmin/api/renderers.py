from __future__ import annotations

from typing import Any

import orjson
from django.http import HttpRequest, HttpResponse
from ninja.parser import Parser
from ninja.renderers import BaseRenderer


class OrjsonRenderer(BaseRenderer):
    media_type = "application/json"
    charset = "utf-8"

    def render(self, request: HttpRequest, data: Any, *, response_status: int) -> bytes:
        return _dumps(data)


def _dumps(data: Any) -> bytes:
    return orjson.dumps(data, default=_default, option=orjson.OPT_UTC_Z | orjson.OPT_NAIVE_UTC)


def _default(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if isinstance(value, set | frozenset):
        return list(value)
    raise TypeError(f"cannot serialise {type(value).__name__}")


FORM_TYPES = ("multipart/form-data", "application/x-www-form-urlencoded")


class OrjsonParser(Parser):
    """orjson refuses what PostgreSQL could not store anyway (lone surrogates) and bounds
    nesting depth, so such bodies end as a 400 instead of an error deeper down."""

    def parse_body(self, request: HttpRequest) -> dict[str, Any]:
        # An empty form (what some clients send for "no body") is no fields at all, as `{}` is:
        # an operation whose body is optional takes its defaults.
        if request.content_type in FORM_TYPES and not request.POST and not request.FILES:
            return {}
        return orjson.loads(request.body)


def rendered(data: Any, status: int = 200) -> HttpResponse:
    """A body rendered as the API renders it, for handlers whose data is already the response schema's shape.

    Django Ninja passes an `HttpResponse` through without validating it against the
    operation's response schema. The hottest handlers (search, append) build their
    bodies from the representation functions, which produce exactly that shape (the
    OpenAPI conformance tests check it), and revalidating a page of results costs more
    than the statement that found them.
    """
    return HttpResponse(
        _dumps(data),
        status=status,
        content_type="application/json; charset=utf-8",
    )
