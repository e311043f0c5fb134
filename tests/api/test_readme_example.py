"""The README's own example, through HTTP: what one message says is found by questions about it."""

from __future__ import annotations

import pytest

from memoryadmin.extraction.models import ExtractionRun
from memoryadmin.extraction.services import extraction_run


@pytest.fixture
def told(api) -> None:
    appended = api.post(
        "/api/v1/sessions/chat-1/messages",
        {"user_id": "alice", "messages": [{"role": "user", "content": "I live in Lyon and I love jazz."}]},
    )
    assert appended.status_code == 201, appended.content
    # What the worker does once the append's debounce has passed.
    run = ExtractionRun.objects.get(pk=api.post("/api/v1/sessions/chat-1/extract").json()["run_id"])
    extraction_run(run=run)


@pytest.mark.parametrize(
    ("question", "found"),
    [
        ("What music does Alice like?", "jazz"),
        ("music", "jazz"),
        ("Which city does Alice live in?", "Lyon"),
        ("city", "Lyon"),
    ],
)
def test_a_question_naming_a_category_finds_its_member(api, told, question, found) -> None:
    response = api.post("/api/v1/memories/search", {"query": question, "user_id": "alice"})
    assert response.status_code == 200, response.content
    texts = [item["memory"]["text"] for item in response.json()["items"]]
    assert texts, f"nothing found for {question!r}"
    assert found in texts[0], texts


def test_a_category_does_not_drag_in_what_is_not_a_member(api, told) -> None:
    texts = [
        item["memory"]["text"]
        for item in api.post("/api/v1/memories/search", {"query": "music", "user_id": "alice"}).json()["items"]
    ]
    assert all("Lyon" not in text for text in texts[:1])


@pytest.fixture
def tastes(api) -> None:
    for text in ["Alice hates cilantro", "Alice loves jazz", "Alice lives in Lyon", "Alice is a fan of the Lakers"]:
        assert api.post("/api/v1/memories", {"user_id": "alice", "text": text}).status_code == 201


def test_a_question_about_likes_finds_what_is_loved_before_what_is_hated(api, tastes) -> None:
    items = api.post("/api/v1/memories/search", {"query": "What does Alice like?", "user_id": "alice"}).json()["items"]
    texts = [item["memory"]["text"] for item in items]
    assert set(texts[:2]) == {"Alice loves jazz", "Alice is a fan of the Lakers"}, texts


def test_a_question_about_dislikes_finds_what_is_hated_first(api, tastes) -> None:
    items = api.post("/api/v1/memories/search", {"query": "What does Alice dislike?", "user_id": "alice"}).json()
    assert items["items"][0]["memory"]["text"] == "Alice hates cilantro", items
