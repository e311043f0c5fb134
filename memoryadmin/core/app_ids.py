"""Ids chosen by apps (session, user, agent and run ids): one pattern for the API, the console and snapshots."""

from __future__ import annotations

import re

from memoryadmin.core.errors import InvalidInput

APP_ID_RE = r"^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$"
_APP_ID = re.compile(APP_ID_RE)


def validate_app_id(value: str, name: str) -> str:
    # fullmatch: `$` alone would let a trailing newline through.
    if not isinstance(value, str) or not _APP_ID.fullmatch(value):
        raise InvalidInput(f"{name} must match {APP_ID_RE}", code="invalid_id", details={"field": name})
    return value
