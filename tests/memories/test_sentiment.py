"""A question about what someone likes is not answered by what they dislike, and the reverse."""

from __future__ import annotations

import pytest

from memoryadmin.memories.queries import memories_search
from memoryadmin.memories.search import scoring
from memoryadmin.memories.search.sentiment import sentiment
from tests.memories.test_queries import remember


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("What food does Alice like?", 1),
        ("Alice likes pop music", 1),
        ("Alice's favorite band is Muse", 1),
        ("Alice is a fan of the Lakers", 1),
        ("Alice is into jazz", 1),
        ("Alice enjoys hiking", 1),
        ("What music does Alice dislike?", -1),
        ("Alice dislikes spicy food", -1),
        ("Alice can't stand jazz", -1),
        ("Alice cannot stand jazz", -1),
        ("Alice doesn’t like jazz", -1),
        ("Alice does not really like jazz", -1),
        ("Alice is not a fan of jazz", -1),
        ("Alice isn't into jazz", -1),
        ("Alice no longer likes coffee", -1),
        ("Alice didn't enjoy the movie", -1),
        ("Alice lives in Lyon", 0),
        ("Alice moved into a flat", 0),
        ("It looks likely to rain", 0),
        ("Alice hates cilantro but loves sushi", 0),
    ],
)
def test_a_text_speaks_of_liking_disliking_or_neither(text, expected) -> None:
    assert sentiment(text) == expected


@pytest.fixture
def tastes(namespace) -> None:
    for text in ["Alice dislikes spicy food", "Alice loves sushi", "Alice adores pizza", "Alice can't stand jazz"]:
        remember(namespace, text)


def _ranked(namespace, query: str) -> list[tuple[str, bool]]:
    page = memories_search(namespace, query=query, user_id="alice", explain=True, touch=False)
    return [(hit.memory.text, hit.explain["opposite_sentiment"]) for hit in page.items]


def test_what_someone_dislikes_ranks_below_what_they_like_for_a_question_about_likes(
    namespace, tastes, monkeypatch
) -> None:
    ranked = _ranked(namespace, "What food does Alice like?")
    assert ranked[0][0] != "Alice dislikes spicy food"
    assert {text for text, opposite in ranked if opposite} == {"Alice dislikes spicy food", "Alice can't stand jazz"}
    # Without the rule, the food the question names wins, whatever Alice thinks of it.
    monkeypatch.setattr(scoring, "OPPOSITE_SENTIMENT_WEIGHT", 1.0)
    assert _ranked(namespace, "What food does Alice like?")[0][0] == "Alice dislikes spicy food"


def test_a_question_about_dislikes_lowers_what_is_liked_and_a_neutral_one_lowers_nothing(namespace, tastes) -> None:
    ranked = _ranked(namespace, "What does Alice dislike?")
    assert {text for text, opposite in ranked if opposite} == {"Alice loves sushi", "Alice adores pizza"}
    assert not any(opposite for _, opposite in _ranked(namespace, "What food does Alice eat?"))
