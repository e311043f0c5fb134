"""Names typed in lower case, spelt as names before a message is read: "moved to denver", "i bank with chase".

People type chat in lower case, and much of the strategy finds a name by its capital ("I work at Acme", "my flat in
Leeds"). `spelt` gives a message back with the well-known names of `names.txt` (places, employers and services,
schools, teams, cars) spelt as names, so every reading that expects a capital finds one and the memory reads "Sam
lives in Denver". Only a name typed wholly in lower case changes, and only its letters' case: the text keeps its
length, so positions found in it hold in the message. A name that is also an everyday word ("chase", "target",
"reading") is spelt only after a word that introduces a name ("with chase", "moved to reading").
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from pathlib import Path

from memoryadmin.extraction.strategies.offline.lexicon import INSTRUMENTS, STOPWORDS, word_set
from memoryadmin.extraction.strategies.offline.phrases import STATES

LEXICON = Path(__file__).with_name("names.txt")
# The words after which a name that is also an everyday word is one: "with chase", "moved to reading", "a bears fan".
_INTRODUCES = re.compile(
    r"(?:\b(?:with|at|to|in|from|for|on|joined|left|quit|a|an|my|our|fan\s+of|support)\s+"
    r"(?:(?:new|used|old|little|\d{4})\s+)?)$",
    re.IGNORECASE,
)
# Where a name that is an everyday word ends its phrase: "with chase.", "to reading in june", not "a bolt of
# lightning", "crunch bars", "mint tea".
_OF = re.compile(
    r"(?!\s*(?:[^\w\s]|$|\s+(?:in|for|and|now|since|so|but|because|from|last|this|today|lol|tho|instead|too|as|"
    r"yet|again|anymore|then|when|after|before|at|on|with|is|was|are|were|has|had|fan|fans|game|games)\b))",
    re.IGNORECASE,
)
# An employer's name is spelt only where work is at it: "a cashier at kroger", "drive for uber"; "joined netflix" and
# "uber took me the long way" name a service.
_AT_WORK = re.compile(r"\b(?:at|for|with|by)\s+(?:the\s+)?$", re.IGNORECASE)
_SPLIT = re.compile(r"\s*,\s*")


@cache
def groups() -> dict[str, tuple[str, ...]]:
    """Each group of the lexicon ("cities", "banks", ...) and its names as spelt, an everyday word's "?" kept."""
    found: dict[str, tuple[str, ...]] = {}
    for line in LEXICON.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#") or ":" not in line:
            continue
        label, listed = line.split(":", 1)
        found[label.strip()] = tuple(name for name in _SPLIT.split(listed.strip()) if name.removeprefix("?"))
    return found


@cache
def _spellings() -> dict[str, str]:
    """Each name in lower case -> as spelt, the first group's where two groups hold it."""
    spelling: dict[str, str] = {}
    for names in groups().values():
        for name in names:
            spelling.setdefault(name.removeprefix("?").lower(), name.removeprefix("?"))
    return spelling


def canonical(value: str, capital: bool = False) -> str:
    """A value named in a message, as its name is spelt ("fedex" -> "FedEx"); unknown, as typed, or with its capital
    if `capital` (a place's, a person's)."""
    return _spellings().get(value.lower()) or (value[:1].upper() + value[1:] if capital else value)


def named(*labels: str, everyday: bool = True, searched_first: bool = False) -> str:
    """A pattern matching any name of the groups, as a whole word, longest first: "(?:Bank of America|Chase|...)".

    A name that is also an everyday word matches only as spelt ("Chase", not "chase"), or not at all without
    `everyday`. With `searched_first`, names of fewer than three letters ("VW") are left out, so the names themselves
    are the words a text must hold for the pattern to be tried (`prefilter`): for a pattern that has no other word."""
    names = {
        name
        for label in labels
        for name in groups()[label]
        if (everyday or not name.startswith("?")) and not (searched_first and len(name.lstrip("?")) < 3)
    }
    return _alternation(names)


def not_a_provider(*labels: str) -> str:
    """A lookahead that refuses a bank, carrier, provider or gym (or the groups named) where a place or an employer
    is read ("moved to Three last month", "joined PureGym"), unless a place has the name too ("Halifax")."""
    places = {name.lstrip("?").lower() for label in ("cities", "places") for name in groups()[label]}
    names = {
        name
        for label in labels or ("banks", "carriers", "isps", "gyms")
        for name in groups()[label]
        if name.lstrip("?").lower() not in places
    }
    return "(?!" + _alternation(names) + ")"


def _alternation(names: set[str]) -> str:
    alternatives = sorted(
        (
            ("(?-i:" + re.escape(name[1:]) + ")" if name.startswith("?") else re.escape(name)).replace(r"\ ", r"\s+")
            for name in names
        ),
        # Longest first, then in order: the same pattern in every process (a test's id is made of it).
        key=lambda alternative: (-len(alternative), alternative),
    )
    return r"(?<![\w&'+-])(?:" + "|".join(alternatives) + r")(?![\w&+-])"


@cache
def _lexicon() -> tuple[dict[str, tuple[tuple[str, str], ...]], frozenset[str], frozenset[str]]:
    """Each name's first word -> (the name in lower case, as spelt), longest first; the everyday words; and the
    names that are only employers'."""
    everyday: set[str] = set()
    first_group: dict[str, str] = {}
    for label, listed in groups().items():
        for name in listed:
            low = name.removeprefix("?").lower()
            if name.startswith("?"):
                everyday.add(low)
            first_group.setdefault(low, label)
    employers = {low for low, label in first_group.items() if label == "employers"}
    by_first: dict[str, list[tuple[str, str]]] = {}
    for low, name in _spellings().items():
        if len(name) == len(low):
            by_first.setdefault(_WORD.match(low).group(0).rstrip("'"), []).append((low, name))
    ordered = {first: tuple(sorted(names, key=lambda n: -len(n[0]))) for first, names in by_first.items()}
    return ordered, frozenset(everyday), frozenset(employers)


# A word typed in lower case, where a name may start; and what may not follow a name's last letter.
_WORD = re.compile(r"(?<![\w&'+@./-])[a-z0-9][a-z0-9&'+-]*")
_ENDS = re.compile(r"(?![\w&+@-]|'\w|\.\w)")


# Where a home's place is named, typed in lower case: "moved home to galway", "a room in a houseshare in dalston",
# "living in lekki"; the word after is a place unless it is an everyday one ("moved to tears", "living in hope").
_PLACE_AFTER = re.compile(
    r"\b(?:moved|relocated|move|moving|living|live|lives|based|settled|home|flat|house|place|apartment|room|studio|"
    r"condo|houseshare|[1-4]bhk|lease|renting|rent)\s+(?:back\s+|home\s+|up\s+|down\s+|over\s+|out\s+)?(?:in|to|near)\s+"
    r"(?P<place>[a-z][a-z'-]{2,})(?:\s+(?P<kind>city|town|bay|beach|heights|hills?|park|springs|valley|village))?"
    r"(?![\w'-])"
)
_INSTRUMENT = re.compile(INSTRUMENTS)
_NOT_PLACES = word_set(
    """the a an my our his her their this that it them him me you us here there town city work school uni college
    hospital bed home london-ish
    nights days mornings evenings weekends part full remote tech sales finance marketing management admin retail
    nursing teaching law medicine another other new old same next last first second third big small each every
    some any one two three four five six seven eight nine ten few couple while bit lot time now then today tonight
    tomorrow yesterday together alone love luck trouble charge touch person general fact order front case total
    public private advance half stock line progress silence secret shape shock bits pieces debt lockdown quarantine
    isolation"""
) | word_set(STATES)


def _places_typed(text: str) -> str:
    """The places a home is named in, typed in lower case, spelt with capitals; the same length."""

    def spell(match: re.Match[str]) -> str:
        place = match.group("place")
        if place in _NOT_PLACES or place in STOPWORDS or _INSTRUMENT.fullmatch(place):
            return match.group(0)
        start = match.start("place") - match.start()
        head = match.group(0)[:start] + place[:1].upper() + place[1:]
        kind = match.group("kind")
        return head + (match.group(0)[len(head) : len(head) + 1] + kind[:1].upper() + kind[1:] if kind else "")

    return _PLACE_AFTER.sub(spell, text)


@lru_cache(maxsize=1024)
def spelt(text: str) -> str:
    """The text with the lexicon's names typed in lower case spelt as names, and the place a home is named in
    (`_PLACE_AFTER`); the same length."""
    text = _places_typed(text)
    by_first, everyday, employers = _lexicon()
    parts: list[str] = []
    last = 0
    for word in _WORD.finditer(text):
        start = word.start()
        if start < last:
            continue
        for low, name in by_first.get(word.group(0).rstrip("'"), ()):
            end = start + len(low)
            if text[start:end] != low or not _ENDS.match(text, end):
                continue
            if low in everyday and (not _INTRODUCES.search(text[max(0, start - 20) : start]) or _OF.match(text, end)):
                break
            if low in employers and not _AT_WORK.search(text[max(0, start - 12) : start]):
                break
            parts += [text[last:start], name]
            last = end
            break
    if not parts:
        return text
    parts.append(text[last:])
    return "".join(parts)
