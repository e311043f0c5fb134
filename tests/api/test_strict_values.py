"""Values are read as the contract writes them, never converted from another type: a day is "YYYY-MM-DD", a time
RFC 3339 text, a flag a JSON boolean; a day of a month or year is kept as the first day of it."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("value", [0, 86400, "0", "2026-12-06T00:00:00Z", "20261206", "2026-12-6", True])
def test_an_event_date_is_a_day_as_written(api, value) -> None:
    r = api.post("/api/v1/memories", {"user_id": "alice", "text": "Alice went to Oslo", "event_date": value})
    assert r.status_code == 422, r.content
    assert r.json()["error"]["details"]["fields"][0]["field"] == "event_date"
    r = api.post("/api/v1/memories/search", {"query": "Oslo", "event_after": value})
    assert r.status_code == 422, r.content
    r = api.get(f"/api/v1/memories?event_before={value}")
    assert r.status_code == 422, r.content


@pytest.mark.parametrize("value", ["0", "1700000000", "1700000000.5", "2026-12-06"])
def test_a_time_in_a_query_string_is_rfc_3339_text(api, value) -> None:
    r = api.get(f"/api/v1/memories?stated_after={value}")
    assert r.status_code == 422, r.content
    assert r.json()["error"]["details"]["fields"][0]["field"] == "stated_after"
    assert api.get("/api/v1/memories?stated_after=2026-12-06T00:00:00Z").status_code == 200


@pytest.mark.parametrize("value", ["yes", "on", "1", "true", 1, 0, None])
def test_explain_is_a_boolean(api, value) -> None:
    r = api.post("/api/v1/memories/search", {"query": "Oslo", "explain": value})
    assert r.status_code == 422, r.content
    assert api.post("/api/v1/memories/search", {"query": "Oslo", "explain": True}).status_code == 200


@pytest.mark.parametrize(
    ("given", "precision", "kept"),
    [
        ("2026-05-06", "month", "2026-05-01"),
        ("2026-05-06", "year", "2026-01-01"),
        ("2026-05-06", "week", "2026-05-06"),
        ("2026-05-06", "day", "2026-05-06"),
    ],
)
def test_a_day_of_a_month_or_year_is_kept_as_its_first_day(api, given, precision, kept) -> None:
    r = api.post(
        "/api/v1/memories",
        {
            "user_id": "alice",
            "text": f"Alice went to Oslo ({precision})",
            "event_date": given,
            "event_date_precision": precision,
        },
    )
    assert r.status_code == 201, r.content
    assert (r.json()["event_date"], r.json()["event_date_precision"]) == (kept, precision)
