"""Timestamps as the API writes them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

# How far ahead of this server's clock a client's time may be: clocks drift, the future does not come in.
CLOCK_SKEW = timedelta(minutes=5)


def not_in_future(value: datetime, now: datetime) -> bool:
    return value <= now + CLOCK_SKEW


def in_utc(value: datetime) -> datetime:
    """A time as stored: it must exist in UTC (years 1 to 9999), or ValueError.

    `0001-01-01T00:00:00+14:00` is a valid RFC 3339 time whose UTC instant falls before year 1:
    PostgreSQL would store it, and no read of it could turn it back into a Python datetime.
    """
    try:
        return value.astimezone(UTC)
    except OverflowError:
        raise ValueError("must lie between years 1 and 9999 in UTC") from None


def rfc3339(value: datetime | None) -> str | None:
    """UTC, microseconds kept, `Z` suffix: `2026-01-31T09:15:00.123456Z`."""
    if value is None:
        return None
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")
