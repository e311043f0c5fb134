"""A tool call's failure as the REST API would answer it: the same status, code, message and details.

The API's one mapping (memoryadmin.api.errors.failure_of) turns an exception into a `Failure`;
a tool call has no HTTP response of its own, so the failure's body goes into the tool's result.
What only a tool call can meet (arguments refused by their schema, a scope the key lacks) is said
here in the same words.
"""

from __future__ import annotations

from pydantic import ValidationError

from memoryadmin.api.errors import (
    APP_ID_FIELDS,
    INVALID_ID,
    Failure,
    failure_of,
    field_errors,
    invalid_id_error,
    is_bad_id,
)

# The REST API takes a memory's id in its path; a tool takes it as an argument, and a malformed one is the
# same 400 `invalid_id`.
_ID_ARGUMENTS = APP_ID_FIELDS | {"memory_id"}


def forbidden(scope: str) -> Failure:
    return Failure(403, "forbidden", f"This API key lacks the '{scope}' scope.")


def invalid_arguments(exc: ValidationError) -> Failure:
    """Arguments refused by their schema, said as the API says a refused request body."""
    errors = exc.errors(include_url=False, include_input=False)
    bad_ids = [err for err in errors if is_bad_id(err, id_fields=_ID_ARGUMENTS)]
    if bad_ids:
        message, details = invalid_id_error(bad_ids)
        return Failure(400, INVALID_ID, message, details)
    return Failure(422, "validation_error", "The arguments are not valid.", field_errors(errors))


def tool_error(exc: Exception) -> Failure | None:
    """The API's answer to this exception, or None for a failure the API would not explain (a bug)."""
    if isinstance(exc, ValidationError):
        return invalid_arguments(exc)
    return failure_of(exc)
