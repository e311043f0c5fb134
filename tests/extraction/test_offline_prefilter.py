"""The words a pattern's matches must contain, looked for before the pattern is searched, never skip a
pattern that matches: every labelled sentence and update pair, searched by every list of patterns the
offline strategy tries, finds the same matches as searching each pattern."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from memoryadmin.extraction.strategies.offline import facts, gone, milestones, news
from memoryadmin.extraction.strategies.offline.prefilter import DIGIT, Patterns, needles
from tests.extraction.offline_cases import CASES

DATA = Path(__file__).parent / "data"
LISTS = {
    "cues": news._CUES,
    "in passing": news._IN_PASSING,
    "facts": facts._SEARCHED,
    "gone": gone._SEARCHED,
    "milestones": milestones._MILESTONES,
    "said in passing": milestones._PASSING,
}


def texts() -> list[str]:
    said = [sentence for _, sentence, _ in CASES]
    for path in sorted(DATA.glob("update_pairs*.json")):
        for pair in json.loads(path.read_text())["pairs"]:
            said += [pair["before"], pair["after"]]
    # Each also in other cases, and cut into its clauses' worth of words.
    return [variant for text in said for variant in (text, text.upper(), text.title(), *text.split(","))]


@pytest.mark.parametrize("name", LISTS)
def test_a_list_searched_through_its_words_finds_what_each_pattern_finds(name) -> None:
    patterns = LISTS[name]
    matched = 0
    for text in texts():
        expected = [(m.span(), value) for pattern, value in patterns.pairs if (m := pattern.search(text))]
        assert [(m.span(), value) for m, value in patterns.search(text)] == expected, text
        matched += bool(expected)
    assert matched >= min(20, 2 * len(patterns.pairs))  # the texts do exercise the patterns


@pytest.mark.parametrize("name", LISTS)
def test_the_patterns_a_text_may_match_hold_every_one_that_does(name) -> None:
    patterns = LISTS[name]
    for text in texts():
        possible = {id(pattern) for pattern, _ in patterns.possible(text)}
        for pattern, _ in patterns.pairs:
            assert pattern.search(text) is None or id(pattern) in possible, (text, pattern.pattern[:60])


def test_the_words_are_those_every_match_must_hold() -> None:
    assert needles(re.compile(r"\bi\s+(?:moved|relocated)\s+to\b", re.IGNORECASE)) == (
        {"moved", "relocated"},
        {"to"},
    )
    # Each requirement, the most telling first: a word of three letters before shorter ones, one word before a
    # choice of words.
    assert needles(re.compile(r"\b(?:first|second)\s+day\s+at\b|\bnew\s+job\b")) == ({"day", "job"},)
    assert needles(re.compile(r"\bmy\s+(?:gp|doctor)\s+is\s+dr\b")) == ({"dr"}, {"is"}, {"my"}, {"doctor", "gp"})
    # A digit, wherever the pattern needs one; a class of letters and digits is none.
    assert needles(re.compile(r"\bturned\s+(?P<age>\d{2})\b")) == ({"turned"}, {DIGIT})
    assert needles(re.compile(r"(?:^|\s)[1-9][0-9]?(?:st|nd|rd|th)\b")) == ({DIGIT}, {"nd", "rd", "st", "th"})
    assert needles(re.compile(r"\bflat\s+[a-z0-9]+\b")) == ({"flat"},)
    # Nothing optional, negated or looked around is required; nor is a single letter.
    assert needles(re.compile(r"(?:very\s+)?(?!never)(?=at)\w+\s+a\b")) is None


def test_a_pattern_is_tried_only_where_the_text_holds_every_requirement() -> None:
    patterns = Patterns([(re.compile(r"\bmy\s+(?:gp|doctor)\s+is\s+dr\.?\s+\w+", re.IGNORECASE), "doctor")])
    assert patterns.possible("my GP is Dr Osei now") != []
    # "dr" and "my" are there ("drive", "my"), but neither "gp" nor "doctor" is.
    assert patterns.possible("my sister can drive us, is that ok?") == []
    digits = Patterns([(re.compile(r"\bturned\s+\d+\b"), "age")])
    assert [value for _, value in digits.search("I turned 30 today")] == ["age"]
    assert digits.possible("I turned thirty today") == []


def test_a_text_outside_ascii_is_searched_by_every_pattern() -> None:
    # Under IGNORECASE a long s is an "s": the words looked for are ASCII, the pattern still finds it.
    patterns = Patterns([(re.compile(r"\bsecurity\s+code\b", re.IGNORECASE), "secret")])
    assert [value for _, value in patterns.search("my ſecurity code")] == ["secret"]
    assert [value for _, value in patterns.search("my SECURITY code")] == ["secret"]
    assert list(patterns.search("my safety code")) == []
