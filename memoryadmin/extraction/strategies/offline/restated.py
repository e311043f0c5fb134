"""A fact said again is the fact already held, not a new value of its attribute.

"My iPhone 14 battery is dying so fast" after "My phone's an iPhone 14", "I'm a software engineer, not 'the
computer guy'" after "I'm a software engineer": the reading states the value the speaker already has. Taking the
held fact's words, the write path counts it as said again (its evidence and `stated_at` move forward) instead of
superseding the fact by itself. The held facts are the person's current ones (`Batch.known`) and what the batch's
earlier messages stated.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from memoryadmin.extraction.strategies.base import KnownFact
from memoryadmin.extraction.strategies.offline.lexicon import STOPWORDS


class Fact(Protocol):
    text: str
    attribute: str
    topics: list[str]
    leaves: list[str]


# "Pat is at X now" says where they work or study: the attribute the person has already (attribute -> other, topic).
_AT_EITHER = {"school": ("employer", "work"), "employer": ("school", "education")}
_IS_AT = re.compile(r"\bis\s+(?:now\s+|currently\s+)?at\b|\b(?:transferred|moved)\s+to\b|\bstarted\s+at\b")
_WORD = re.compile(r"\w[\w'@.-]*")
_DENIES = re.compile(
    r"\b(?:no|not|never|longer|quits?|stopped|stops|left|leaves|former|ex|used\s+to|gave\s+up|given\s+up|giving\s+up|"
    r"gives\s+up|dropped|drops|ditched|ditches|"
    r"done\s+with|off\s+(?:the\s+)?(?:keto|paleo|diet))\b|n't\b",
    re.IGNORECASE,
)
_NEW_STATUS = re.compile(r"\b(?:fianc[eé]e?|engaged|married|husband|wife|spouse)\b", re.IGNORECASE)
# A status said of someone of the partner's: "Chloe's sister got engaged".
_THEIRS = re.compile(r"'s\s+(?:\w+\s+){1,2}(?:got|is|are|getting)\s+(?:engaged|married)\b", re.IGNORECASE)
# (attribute, what says a new value of it) for a statement that names no attribute: read as one only where the
# person has that attribute already ("I went platinum!" after "My hair's still blonde").
_SAID_SHORT = (
    (
        "hair colour",
        re.compile(
            r"\bwent\s+(?:back\s+to\s+(?:their\s+)?(?:natural\s+)?)?(?:bright\s+|dark\s+|light\s+|jet\s+)?(?:blonde?|brown|"
            r"black|red|ginger|grey|gray|pink|purple|blue|platinum|silver|white|auburn|copper)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "commute",
        re.compile(
            r"\b(?:walks?|cycles?|bikes?|drives?|zips?|rides?|takes?\s+the\s+\w+)\s+(?:[\w-]+\s+){0,3}?(?:to|into)\s+"
            r"(?:work|the\s+office)\b|\bis\s+on\s+the\s+(?:[\w-]+\s+){1,3}every\s+day\b",
            re.IGNORECASE,
        ),
    ),
)
_STATUS = re.compile(
    r"\b(?:single|married|divorced|engaged|widowed|widower|widow|separated|vegan|vegetarian|pescatarian|keto|remote|"
    r"hybrid|sober|teetotal)\b"
)
_STILL = re.compile(r"\bstill\b", re.IGNORECASE)
# One status in its forms: "a widow" and "widowed" say the same.
_STATUS_FORM = {"widow": "widowed", "widower": "widowed"}


def _statuses(text: str) -> set[str]:
    return {_STATUS_FORM.get(word, word) for word in _STATUS.findall(text.lower())}


_VALUE_WORD = re.compile(r"\b(?:[A-Z][\w'&.-]*|[\w-]*\d[\w-]*)")


def _value_words(text: str) -> frozenset[str]:
    """The names and numbers a fact states, past its subject: "Pat has an iPhone 14" -> {"iPhone", "14"}."""
    return frozenset(w.lower().rstrip(".") for w in _VALUE_WORD.findall(text)[1:])


def _content_words(text: str) -> frozenset[str]:
    return frozenset(w.lower().rstrip(".") for w in _WORD.findall(text)) - STOPWORDS


def _fewer_words(text: str, held: str) -> bool:
    """Whether `text` says no word `held` does not, with at least two words to say it, and `held` denies nothing."""
    words = _content_words(text.split(",", 1)[0])
    return len(words) >= 2 and words <= _content_words(held) and not _DENIES.search(held)


def restated(readings: Sequence[Fact], known: Sequence[KnownFact]) -> None:
    """A fact the speaker already has current, said again, is that fact: "My iPhone 14 battery is dying" after
    "My phone's an iPhone 14", "I'm a software engineer, not 'the computer guy'" after "I'm a software engineer".
    It takes the known fact's words, so the write path counts it as said again instead of a new value."""
    held = {fact.attribute for fact in known}
    for reading in readings:
        if not reading.attribute:
            # "Went back to my natural brown" after "My hair is pink": a value of what the person has, said short.
            reading.attribute = next((a for a, cue in _SAID_SHORT if a in held and cue.search(reading.text)), "")
        if not reading.attribute:
            continue
        # "I'm at NYU Langone now" after "I'm a nurse at Mount Sinai": at a place of work, not a school.
        other = _AT_EITHER.get(reading.attribute)
        if other and other[0] in held and reading.attribute not in held and _IS_AT.search(reading.text):
            reading.attribute, reading.topics = other[0], [other[1]]
        values = _value_words(reading.text)
        # A thing named in passing, or a value said to hold still ("I'm still just a barista at Costa lol").
        named = (reading.topics == ["possessions"] or _STILL.search(reading.text) is not None) and not reading.leaves
        for fact in known:
            if fact.attribute != reading.attribute:
                continue
            said = fact.text.rstrip(".")
            # Said again with a tail ("…, not 'the computer guy'"), or naming the same names and numbers.
            again = reading.text.startswith(said) and reading.text[len(said) : len(said) + 1] in (
                "",
                ",",
                ".",
                "!",
                ";",
            )
            # The same names apply to a thing named in passing ("Pat has an iPhone 14"), not to a fact that may
            # end it ("Pat handed in their notice at Tesco" names the employer too).
            # Named with less: "my Mazda" after "my Mazda 3"; the same partner named again, unless with a new status
            # ("Daniel's my fiancé now" after "my boyfriend Daniel").
            held = _value_words(fact.text)
            # The same status in other words: "single and kinda bored of it" after "im single rn".
            status = _statuses(reading.text)
            same = (
                (named and values and values <= held)
                or (bool(status) and status == _statuses(fact.text) and not _DENIES.search(reading.text))
                or (
                    reading.attribute == "partner"
                    and held
                    and held <= values
                    and not _NEW_STATUS.search(_THEIRS.sub("", reading.text))
                )
            )
            # Said with less: "now I'm a UX designer" after "I'm a UX designer at Spotify"; not after "no longer".
            if again or same or (not reading.leaves and _fewer_words(reading.text, fact.text)):
                reading.text = fact.text
                break


# A status without a partner: what a relationship that ends says, and what a partner named makes untrue.
_NO_PARTNER = re.compile(
    r"\b(?:single|divorced|separated|widow(?:ed|er)?|no\s+longer\s+with|split\s+up|broke\s+up|broken\s+up|"
    r"called\s+it\s+(?:a\s+day|quits))\b",
    re.IGNORECASE,
)


def also_ends(attribute: str, text: str, subject: str, known: Sequence[KnownFact]) -> list[str]:
    """The held facts of another attribute a change makes untrue: "we split up" ends "Pat's partner is Jake", and
    "Pat's partner is Maya" ends "Pat is single". Ids of the person's current facts only (`Batch.known`)."""
    if attribute == "relationship_status" and _NO_PARTNER.search(text):
        return [k.memory_id for k in known if k.memory_id and k.subject == subject and k.attribute == "partner"]
    if attribute == "partner":
        return [
            k.memory_id
            for k in known
            if k.memory_id
            and k.subject == subject
            and k.attribute == "relationship_status"
            and _NO_PARTNER.search(k.text)
        ]
    return []
