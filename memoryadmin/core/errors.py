"""Errors a service raises when a request cannot be honoured.

They carry the code and status of the API's error body, so the API and the
console report them the same way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from django.db.models import Model, QuerySet


class ServiceError(Exception):
    status = 400
    code = "bad_request"

    def __init_subclass__(cls, *, status: int | None = None, code: str | None = None, **kwargs: Any) -> None:
        # A kind of error is named on its class line, `class Gone(ServiceError, status=410, code="gone")`,
        # and keeps its parent's status or code where it names none.
        super().__init_subclass__(**kwargs)
        if status is not None:
            cls.status = status
        if code is not None:
            cls.code = code

    def __init__(self, message: str, *, code: str | None = None, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code:
            self.code = code
        self.details = details or {}


class InvalidInput(ServiceError, status=422, code="validation_error"): ...


class NotFound(ServiceError, status=404, code="not_found"): ...


class Conflict(ServiceError, status=409, code="conflict"): ...


class PreconditionFailed(ServiceError, status=412, code="precondition_failed"):
    """The caller changed what it saw, and what it saw is no longer current (a lost update averted)."""


def found[M: Model](qs: QuerySet[M], message: str) -> M:
    """The first row of `qs`, or NotFound. `qs` starts from what the caller may see, so a row outside it
    is answered exactly as one that does not exist."""
    row = qs.first()
    if row is None:
        raise NotFound(message)
    return row
