"""The `rules` strategy on a table of sentences: what it takes as a fact about the user, and what it must not."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memoryadmin.core.errors import InvalidInput
from memoryadmin.extraction.config import validate_extraction_config
from memoryadmin.extraction.strategies import Batch, SourceMessage
from memoryadmin.extraction.strategies.rules import RulesStrategy, facts_in, third_person

POSITIVES = [
    # names
    ("My name is Anna.", ["User's name is Anna"]),
    ("my name is john and i live in lyon", ["User's name is John", "User lives in Lyon"]),
    ("Call me Sam.", ["User goes by Sam"]),
    ("Hi, I'm Priya!", ["User's name is Priya"]),
    ("Hey! I'm Maria.", ["User's name is Maria"]),
    ("Hello there, I'm Tom and I work at Acme Corp.", ["User's name is Tom", "User works at Acme Corp"]),
    # places
    ("I live in Lyon.", ["User lives in Lyon"]),
    ("I live in Lyon, France.", ["User lives in Lyon, France"]),
    ("Actually, I live in Lyon now.", ["User lives in Lyon"]),
    ("As I said before: I live in Lyon!", ["User lives in Lyon"]),
    ("I'm from São Paulo.", ["User is from São Paulo"]),
    ("I'm originally from Spain", ["User is from Spain"]),
    ("I moved to Berlin last year.", ["User moved to Berlin"]),
    ("I've just moved to New York City with my wife.", ["User moved to New York City"]),
    ("I was born in the Hague.", ["User was born in the Hague"]),
    ("I've been living in Dublin for five years.", ["User lives in Dublin"]),
    ("I'm based in Toronto.", ["User lives in Toronto"]),
    ("I live in London but I work in Cambridge.", ["User lives in London", "User works in Cambridge"]),
    # work
    ("I work at Google as a software engineer.", ["User works at Google as a software engineer"]),
    ("I work for myself.", ["User works for themselves"]),
    ("I work as a nurse at St. Mary's hospital.", ["User works as a nurse at St. Mary's hospital"]),
    ("I am employed by the city of Boston.", ["User is employed by the city of Boston"]),
    # preferences
    ("I love hiking in the Alps.", ["User loves hiking in the Alps"]),
    ("I really don't like mushrooms.", ["User dislikes mushrooms"]),
    ("I can't stand loud music.", ["User dislikes loud music"]),
    ("I prefer tea over coffee.", ["User prefers tea over coffee"]),
    ("I'm a big fan of Radiohead.", ["User likes Radiohead"]),
    ("I'm not a fan of horror movies.", ["User dislikes horror movies"]),
    ("I enjoy reading science fiction novels, especially Asimov.", ["User enjoys reading science fiction novels"]),
    ("I enjoy cooking Italian food and I love red wine.", ["User enjoys cooking Italian food", "User loves red wine"]),
    ("I hate Mondays.", ["User hates Mondays"]),
    ("I love my cat.", ["User loves their cat"]),
    # "my X is Y" and other facts
    ("My favourite colour is blue.", ["User's favourite colour is blue"]),
    ("My birthday is on March 3rd.", ["User's birthday is on March 3rd"]),
    ("By the way, my wife is a doctor.", ["User's wife is a doctor"]),
    ("My sister's name is Anna.", ["User's sister's name is Anna"]),
    ("My hobbies are chess and running.", ["User's hobbies are chess and running"]),
    ("I'm allergic to penicillin.", ["User is allergic to penicillin"]),
    ("I'm vegan.", ["User is vegan"]),
    ("I'm 34 years old.", ["User is 34 years old"]),
    ("I speak fluent Spanish.", ["User speaks fluent Spanish"]),
    # explicit requests to remember
    ("Remember that I'm allergic to peanuts.", ["User is allergic to peanuts"]),
    ("Please remember my anniversary is June 12.", ["User's anniversary is June 12"]),
    ("Can you remember that I prefer window seats?", ["User prefers window seats"]),
    ("Note: I'm left-handed.", ["User is left-handed"]),
    ("For future reference, I prefer metric units.", ["User prefers metric units"]),
]

NEGATIVES = [
    # questions
    "Where do I live?",
    "Do I like jazz?",
    "What's my name?",
    "Is my favourite colour blue?",
    "I live in Lyon?",
    "Do you remember that movie?",
    # hypotheticals, wishes, plans, pretending
    "If I lived in Paris, I would eat croissants every day.",
    "Suppose I live in Tokyo and I work at Sony.",
    "I wish I lived in Hawaii.",
    "I would love to live in Rome someday.",
    "Imagine I'm from Mars.",
    "Let's pretend my name is Batman.",
    "Maybe I'll move to Paris.",
    "I'd like a refund.",
    "I might be allergic to nuts.",
    "I think I like jazz.",
    # other people, and reported speech
    "She said she lives in Madrid.",
    "My friend said, I live in Oslo.",
    "She said: I live in Paris.",
    "He thinks I live in Rome.",
    "My boss says, I work for Initech.",
    "Tom loves football.",
    "My sister lives in Paris.",
    "My brother works at Microsoft.",
    'He told me "I work at Amazon".',
    # negations and the past
    "I don't live in London anymore.",
    "I used to live in Berlin.",
    "I'm not from here.",
    "My name is not Bob.",
    # chit-chat that only looks like a fact
    "Call me later please.",
    "You can call me back tomorrow.",
    "Hi, I'm French.",
    "I hate it when people are late.",
    "I love your answer!",
    "I like that idea.",
    "I like it.",
    "I love you.",
    "I love how you explained that.",
    "Do you like jazz? I love it.",
    "I like to think I'm funny.",
    "I work from home most days.",
    "I work at night.",
    "I'm looking for a new job.",
    "I'm from the marketing team.",
    "My problem is that the code crashes.",
    "Remember to buy milk.",
    # secrets are never kept
    "My password is hunter2.",
    "My credit card number is 4111 1111 1111 1111.",
]


@pytest.mark.parametrize(("sentence", "expected"), POSITIVES, ids=[p[0][:40] for p in POSITIVES])
def test_it_extracts_what_the_user_says_about_themselves(sentence: str, expected: list[str]) -> None:
    assert [fact.text for fact in facts_in(sentence)] == expected


@pytest.mark.parametrize("sentence", NEGATIVES, ids=[n[:40] for n in NEGATIVES])
def test_it_leaves_questions_hypotheticals_and_other_people_alone(sentence: str) -> None:
    assert [fact.text for fact in facts_in(sentence)] == []


def test_the_table_is_large_and_balanced() -> None:
    assert len(POSITIVES) + len(NEGATIVES) >= 40
    assert len(POSITIVES) >= 20 and len(NEGATIVES) >= 20


def test_facts_carry_type_topics_and_entities() -> None:
    (place,) = facts_in("I live in Lyon, France.")
    assert (place.category, place.memory_type, place.topics, place.entities) == (
        "place",
        "semantic",
        ("location",),
        ("Lyon, France",),
    )
    (taste,) = facts_in("I'm a big fan of Radiohead.")
    assert (taste.memory_type, taste.topics, taste.entities) == ("preference", ("preferences",), ("Radiohead",))
    (work,) = facts_in("I work at Google as a software engineer.")
    assert work.entities == ("Google",)
    # Someone else's taste is a fact about the user's family, not the user's preference.
    (brother,) = facts_in("My brother's favourite band is Muse.")
    assert brother.memory_type == "semantic"


@pytest.mark.parametrize(
    ("first_person", "third"),
    [
        ("I'm allergic to peanuts", "User is allergic to peanuts"),
        ("I have two cats and I walk them daily", "User has two cats and they walk them daily"),
        ("I really enjoy long walks", "User really enjoys long walks"),
        ("I watch a movie every Friday", "User watches a movie every Friday"),
        ("I study at night", "User studies at night"),
        ("I can't eat gluten", "User can't eat gluten"),
        ("my son plays the violin", "User's son plays the violin"),
        ("I do yoga with my partner", "User does yoga with their partner"),
    ],
)
def test_third_person_rewrites_the_subject_and_the_verb(first_person: str, third: str) -> None:
    assert third_person(first_person) == third


def message(pk: int, content: str, role: str = "user") -> SourceMessage:
    return SourceMessage(pk=pk, seq=pk, role=role, content=content, created_at=datetime.now(UTC))


def batch(*messages: SourceMessage) -> Batch:
    return Batch(user_id="alice", session_id="s1", agent_id="", messages=list(messages), now=datetime.now(UTC))


def test_the_strategy_reads_only_the_user_and_merges_repeats_with_their_evidence() -> None:
    candidates = RulesStrategy({}).extract(
        batch(
            message(1, "I live in Lyon."),
            message(2, "You live in Lyon, I live in Paris.", role="assistant"),
            message(3, "As I said, I live in Lyon. I love jazz."),
        )
    )
    assert [(c.text, c.evidence, c.metadata) for c in candidates] == [
        ("User lives in Lyon", [1, 3], {"rule": "place"}),
        ("User loves jazz", [3], {"rule": "preference"}),
    ]


def test_the_strategy_can_be_narrowed_to_some_categories() -> None:
    config = validate_extraction_config("rules", {"categories": ["preference"]})
    candidates = RulesStrategy(config).extract(batch(message(1, "I live in Lyon and I love jazz.")))
    assert [c.text for c in candidates] == ["User loves jazz"]


@pytest.mark.parametrize(
    "config",
    [{"categories": []}, {"categories": ["gossip"]}, {"categories": "name"}, {"unknown": True}],
)
def test_it_refuses_a_bad_rules_config(config: dict) -> None:
    with pytest.raises(InvalidInput):
        validate_extraction_config("rules", config)


def test_it_is_deterministic_and_handles_odd_input() -> None:
    text = "I live in Lyon. " * 50 + "\x00 " + "🙂" * 10 + " my   name   is   Zoë"
    assert facts_in(text) == facts_in(text)
    assert list(dict.fromkeys(f.text for f in facts_in(text))) == ["User lives in Lyon", "User's name is Zoë"]
    assert facts_in("") == []
    assert facts_in("....!!!???") == []
