"""Optimistic concurrency for memories: an ETag names the revision, If-Match asks for it.

A memory's ETag is its content revision as a strong entity tag (`"3"`). A change
sent with `If-Match: "3"` is made only while the memory is still at revision 3,
else 412 `precondition_failed` with the current revision, so two editors who
started from the same revision cannot silently overwrite each other. `If-Match: *`
asks only that the memory exists. Pins and approvals do not change the revision:
the ETag guards the content.
"""

from __future__ import annotations

import re

from django.http import HttpResponse
from ninja import Header

from memoryadmin.api.errors import ApiError
from memoryadmin.memories.models import Memory

IF_MATCH_DESCRIPTION = (
    'The `ETag` of the revision this change was made from (`"3"`); 412 `precondition_failed` when the memory '
    "has moved on. `*` asks only that it exists."
)
IF_MATCH_PATTERN = r'^(\*|"\d{1,10}")$'
IfMatch = Header(None, alias="If-Match", description=IF_MATCH_DESCRIPTION, pattern=IF_MATCH_PATTERN)
_TAG = re.compile(r'^"(\d{1,10})"$')
ETAG_HEADER = {
    "ETag": {"description": "The memory's revision as an entity tag, for `If-Match`.", "schema": {"type": "string"}}
}


def etag_of(revision: int) -> str:
    return f'"{revision}"'


def with_etag(response: HttpResponse, memory: Memory | dict) -> None:
    revision = memory["revision"] if isinstance(memory, dict) else memory.revision
    response["ETag"] = etag_of(revision)


def expected_revision(if_match: str | None) -> int | None:
    """The revision an If-Match header names; None when there is no header or it is `*`."""
    if if_match is None:
        return None
    value = if_match.strip()
    if value == "*":
        return None
    match = _TAG.match(value)
    if match is None:
        raise ApiError(
            400,
            "invalid_precondition",
            'If-Match takes one ETag of the memory as it was sent, such as "3" (quotes included), or *.',
        )
    return int(match.group(1))
