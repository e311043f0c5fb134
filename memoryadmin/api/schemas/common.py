"""What every part of the contract shares: the field types, their limits, and the error body.

The schema is the contract: what it allows, the server accepts, and what it
forbids, the server refuses with 422 (400 for a malformed id). So request
bodies refuse fields they do not know, numbers and booleans are not read out
of other types (`true` is not the integer 1), and every limit the services
check is published here too, taken from where the data is defined.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from typing import Annotated, Any

from django.conf import settings
from ninja import Path, Schema
from pydantic import AfterValidator, AwareDatetime, BeforeValidator, ConfigDict, Field

from memoryadmin.core.app_ids import APP_ID_RE
from memoryadmin.core.pagination import MAX_LIMIT
from memoryadmin.core.storable_json import json_problem
from memoryadmin.core.timestamps import not_in_future
from memoryadmin.memories.models import MAX_ENTITY_CHARS, MAX_LABELS, MAX_TOPIC_CHARS


class Body(Schema):
    """A request body. A field it does not know is refused (422 naming it): a misspelt
    `tpoics` must not store nothing and say nothing."""

    model_config = ConfigDict(extra="forbid")


def reject_nul(value: Any) -> Any:
    """PostgreSQL cannot store NUL in text or JSONB; say so as a validation error, not a crash."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                raise ValueError("must not contain NUL characters")
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return value


def storable(value: Any) -> Any:
    """A JSON value PostgreSQL can store and give back unchanged (nesting, numbers)."""
    if problem := json_problem(value):
        raise ValueError(problem)
    return value


def _in_utc(value: datetime) -> datetime:
    """Stored and shown in UTC, so a time must exist in UTC (year 1 to 9999)."""
    try:
        return value.astimezone(UTC)
    except OverflowError:
        raise ValueError("must lie between years 1 and 9999 in UTC") from None


def _a_number(value: Any) -> Any:
    # JSON has no truthy numbers: `true` is a boolean, "5" a string, and neither is read as 5.
    if isinstance(value, bool | str | bytes):
        raise ValueError("must be a number")
    return value


def at_most_bytes(limit_setting: str) -> Any:
    """A check that text fits the byte limit the setting names, read when the check runs."""

    def check(value: str) -> str:
        limit = getattr(settings, limit_setting)
        if len(value.encode()) > limit:
            raise ValueError(f"must be at most {limit} bytes of UTF-8")
        return value

    return AfterValidator(check)


# What str.strip() removes (the services trim text), spelt out so every regex engine (the
# server's, and any client's reading the schema) agrees on what counts as blank. Unicode has
# no white space outside the Basic Multilingual Plane.
_BLANK = "".join(f"\\u{ord(c):04x}" for c in map(chr, range(0x10000)) if c.isspace())
NO_NUL = r"^[^\u0000]*$"
NOT_BLANK = rf"^[^\u0000]*[^\u0000{_BLANK}][^\u0000]*$"


def integer(**limits: Any) -> Any:
    """An integer body field; `limits` are Field's (ge, le), published in the schema and checked."""
    return Annotated[int, Field(**limits), BeforeValidator(_a_number)]


def number(**limits: Any) -> Any:
    """A number body field (an integer is a number too); `limits` as for `integer`."""
    return Annotated[float, Field(**limits), BeforeValidator(_a_number)]


Integer = integer()
Number = number()
Flag = Annotated[bool, Field(strict=True)]


_RFC_3339_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def _a_string(value: Any) -> Any:
    # RFC 3339 is text: a JSON number, or a query string's digits, would be read as seconds since 1970 (0 became
    # 1970-01-01).
    if isinstance(value, datetime):
        return value
    if not isinstance(value, str) or not _RFC_3339_DAY.match(value) or value[10:11] not in ("T", "t", " "):
        raise ValueError("must be an RFC 3339 time (a string with an offset)")
    return value


def _a_day(value: Any) -> Any:
    # A day is its date alone ("2026-05-06"): not a number of seconds since 1970, not a time of that day.
    if isinstance(value, date) and not isinstance(value, datetime):
        return value
    if not isinstance(value, str) or not _RFC_3339_DAY.fullmatch(value):
        raise ValueError("must be a date (YYYY-MM-DD)")
    return value


def _not_in_future(value: datetime) -> datetime:
    if not not_in_future(value, datetime.now(UTC)):
        raise ValueError("must not lie in the future")
    return value


Timestamp = Annotated[AwareDatetime, BeforeValidator(_a_string), AfterValidator(_in_utc)]
Day = Annotated[date, BeforeValidator(_a_day)]
# When something was said or seen: in the past, give or take the clocks' skew.
PastTimestamp = Annotated[Timestamp, AfterValidator(_not_in_future)]
AppId = Annotated[
    str,
    Field(pattern=APP_ID_RE, description=f"An id chosen by the app, matching `{APP_ID_RE}`.", examples=["alice"]),
]
Text = Annotated[
    str,
    Field(
        pattern=NOT_BLANK,
        max_length=settings.MAX_MEMORY_TEXT_BYTES,
        description=(
            f"Not blank; at most {settings.MAX_MEMORY_TEXT_BYTES} bytes of UTF-8 once leading and trailing "
            "white space is trimmed."
        ),
    ),
    at_most_bytes("MAX_MEMORY_TEXT_BYTES"),
]
Reason = Annotated[str, Field(max_length=1000, pattern=NO_NUL)]
RequiredReason = Annotated[
    str, Field(min_length=1, max_length=1000, pattern=NOT_BLANK, description="Why; kept by the audit trail.")
]
Metadata = Annotated[
    dict[str, Any],
    Field(
        description=(
            "Any JSON object the app keeps with it: no NUL in any string, every number strictly between "
            "-2^63 and 2^63, nested at most 32 levels (422 otherwise)."
        )
    ),
    AfterValidator(reject_nul),
    AfterValidator(storable),
]
Topics = Annotated[
    list[Annotated[str, Field(max_length=MAX_TOPIC_CHARS, pattern=NO_NUL)]], Field(max_length=MAX_LABELS)
]
Entities = Annotated[
    list[Annotated[str, Field(max_length=MAX_ENTITY_CHARS, pattern=NO_NUL)]], Field(max_length=MAX_LABELS)
]
UserIdPath = Path(..., pattern=APP_ID_RE, description="The app's id of the person.")
Limit = Annotated[int, Field(ge=1, le=MAX_LIMIT)]
BodyLimit = integer(ge=1, le=MAX_LIMIT)
Cursor = Annotated[
    str, Field(max_length=512, pattern=r"^[A-Za-z0-9_-]+$", description="`next_cursor` of the previous page.")
]


class FieldError(Schema):
    field: str = Field(description="Where the problem is: `text`, `messages[0].content`, `policy.budget`.")
    message: str


class ErrorDetail(Schema):
    code: str = Field(
        examples=["validation_error"],
        description=(
            "Stable, for programs. 400: `bad_request`, `invalid_id`, `invalid_cursor` (a cursor from another "
            "list or query, or altered), `invalid_precondition`, `user_id_required`; 404 `not_found`; "
            "409: `conflict`, `duplicate`, `tombstoned`, `pinned`, `session_deleted`; 412 `precondition_failed`; "
            "422 `validation_error`; the rest are named in docs/api.md."
        ),
    )
    message: str
    details: dict[str, Any] = Field(
        default_factory=dict,
        description="For 400 `invalid_id` and 422 `validation_error`: `fields`, a list of `FieldError`.",
    )


class ErrorOut(Schema):
    error: ErrorDetail


# What any authenticated operation may answer besides its own outcomes: a bad id,
# body or cursor (400), no key (401), a missing scope (403), a body over the limit
# (413), a request target too long (414), invalid fields (422), a rate limit reached
# (429), headers too large (431), a dependency down (503).
COMMON_ERRORS = (400, 401, 403, 413, 414, 422, 429, 431, 503)


def responses(ok: dict[int, Any], *errors: int) -> dict[int, Any]:
    answers: dict[int, Any] = dict(ok)
    for status in sorted({*COMMON_ERRORS, *errors}):
        answers[status] = ErrorOut
    return answers
