"""Times at the calendar's ends (years 1 and 9999, which the API takes): a relative phrase read from them, or a
period reaching past them, names no date; nothing fails, and the memory is still stored and found."""

from __future__ import annotations

import pytest

PHRASES = [
    "yesterday",
    "the day before yesterday",
    "tomorrow",
    "last week",
    "this week",
    "last weekend",
    "last month",
    "this year",
    "last year",
    "next year",
    "on Monday",
    "last Monday",
    "two days ago",
    "two years ago",
    "in December",
    "in the spring",
    "in the winter",
]
EDGES = ["0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z"]


def test_a_time_said_at_the_calendar_s_start_is_stored_without_a_date_before_it(api) -> None:
    # A client's zero time (Go's time.Time{}) is 1 January of year 1; the future is refused.
    edge = EDGES[0]
    for index, phrase in enumerate(PHRASES):
        text = f"Alice saw her sister {phrase} (note {index})"
        response = api.post("/api/v1/memories", {"user_id": "alice", "text": text, "stated_at": edge})
        assert response.status_code == 201, (phrase, response.content)
        event_date = response.json()["event_date"]
        assert event_date is None or "0001-01-01" <= event_date <= "9999-12-31"


@pytest.mark.parametrize("edge", EDGES)
def test_a_question_asked_as_of_an_end_of_the_calendar_is_answered(api, edge) -> None:
    api.post("/api/v1/memories", {"user_id": "alice", "text": "Alice saw her sister in Leeds"})
    for phrase in PHRASES:
        response = api.post(
            "/api/v1/memories/search", {"query": f"what did Alice do {phrase}?", "user_id": "alice", "as_of": edge}
        )
        assert response.status_code == 200, (phrase, response.content)


@pytest.mark.parametrize("precision", ["day", "week", "month", "year"])
def test_an_event_on_the_calendar_s_last_day_is_found_by_dated_questions(api, precision) -> None:
    created = api.post(
        "/api/v1/memories",
        {
            "user_id": "alice",
            "text": "Alice booked a trip to Oslo",
            "event_date": "9999-12-01" if precision == "month" else "9999-12-31",
            "event_date_precision": precision,
        },
    )
    assert created.status_code == 201, created.content
    memory_id = created.json()["id"]
    for body in ({"user_id": "alice"}, {}):
        for question in ("what trip did Alice book last week?", "which trip did Alice book in 9999?"):
            response = api.post("/api/v1/memories/search", {"query": question, **body})
            assert response.status_code == 200, response.content
            assert memory_id in [hit["memory"]["id"] for hit in response.json()["items"]]
    appended = api.post(
        "/api/v1/sessions/chat-1/messages",
        {"user_id": "alice", "messages": [{"role": "user", "content": "What trip did I book last week?"}]},
    )
    assert appended.status_code == 201, appended.content
    context = api.get("/api/v1/sessions/chat-1/context")
    assert context.status_code == 200, context.content
    assert memory_id in [m["id"] for m in context.json()["memories"]]
