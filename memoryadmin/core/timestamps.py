"""Timestamps as the API writes them."""

from __future__ import annotations

from datetime import UTC, datetime


def rfc3339(value: datetime | None) -> str | None:
    """UTC, microseconds kept, `Z` suffix: `2026-01-31T09:15:00.123456Z`."""
    if value is None:
        return None
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")
