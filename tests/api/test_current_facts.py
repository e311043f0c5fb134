"""A question in everyday words about a fact that changed finds its current value, whatever its words."""

from __future__ import annotations

from memoryadmin.extraction.models import ExtractionRun
from memoryadmin.extraction.services import extraction_run

HISTORY = [
    ("2026-03-02T09:00:00Z", ["I live in Leeds", "my phone is a pixel 7", "I'm single atm"]),
    ("2026-03-02T09:00:00Z", ["I work at Deloitte as an analyst", "I drive a Fiesta"]),
    ("2026-06-10T09:00:00Z", ["we finally moved into our new place in Headingley!"]),
    ("2026-06-10T09:00:00Z", ["got the iphone 15 yesterday, bye android"]),
    ("2026-09-10T09:00:00Z", ["last day at Deloitte today!! starting at KPMG on monday"]),
    ("2026-09-10T09:00:00Z", ["sold the fiesta, bought a Golf"]),
    ("2026-03-02T09:00:00Z", ["my favourite film is Notting Hill"]),
    ("2026-09-12T09:00:00Z", ["fave film is now Past Lives", "just got a new macbook air"]),
]


def said(api) -> None:
    for i, (when, contents) in enumerate(HISTORY):
        messages = [{"role": "user", "content": content, "created_at": when} for content in contents]
        response = api.post(f"/api/v1/sessions/s{i}/messages", {"user_id": "ana", "messages": messages})
        assert response.status_code == 201, response.content
        run = api.post(f"/api/v1/sessions/s{i}/extract").json()["run_id"]
        extraction_run(run=ExtractionRun.objects.get(pk=run))


def first(api, query: str, **fields) -> tuple[str, dict]:
    response = api.post("/api/v1/memories/search", {"query": query, "user_id": "ana", "explain": True, **fields})
    assert response.status_code == 200, response.content
    items = response.json()["items"]
    assert items, query
    return items[0]["memory"]["text"], items[0]["explain"]


def test_a_question_about_a_changed_fact_finds_its_current_value(api) -> None:
    said(api)
    # What only shares the question's words: the current value comes before it.
    for text in (
        "User worked late on Tuesday",
        "User's work laptop broke again",
        "User's phone screen cracked",
        # What shares "now" with the question too.
        "Assistant: How's the commute? Answer: Cycling to work now instead of the tube",
    ):
        assert api.post("/api/v1/memories", {"text": text, "user_id": "ana"}).status_code == 201
    for query, value in (
        ("where does she work?", "KPMG"),
        ("where does she work now?", "KPMG"),
        ("where does she currently live?", "Headingley"),
        ("what phone does she have?", "iphone 15"),
        ("what car does she drive now?", "Golf"),
        ("where does she live?", "Headingley"),
        ("who does she work for?", "KPMG"),
        ("what's her favourite movie?", "Past Lives"),
        ("what laptop does she use?", "macbook air"),
        ("what does she do for a living?", "KPMG"),
    ):
        text, explain = first(api, query)
        assert value in text, (query, text)
        assert explain["attribute_asked"], query
    # As of before the changes, the value then.
    text, _ = first(api, "where does she work?", as_of="2026-05-01T00:00:00Z")
    assert "Deloitte" in text


def test_a_question_about_no_attribute_finds_nothing_by_attribute(api) -> None:
    said(api)
    response = api.post("/api/v1/memories/search", {"query": "what is her favourite colour?", "user_id": "ana"})
    assert response.status_code == 200
    assert response.json()["items"] == []
