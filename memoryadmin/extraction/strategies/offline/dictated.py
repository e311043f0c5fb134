"""Chat as it is dictated or thumbed. Punctuation said aloud, as speech-to-text types it: "bike got stolen period now I
have a scooty", "day 30 without cigarette exclamation mark I quit finally", "I'm bartender now comma better tips".
Read as the marks they stand for, so a message dictated in one breath has its sentences again. A word is a mark only
where it cannot be the noun: not after a word that makes it one ("a trial period", "my period", "the comma", "a new
line of work"). And chat's shorthand for the little words a reading looks for, typed in lower case: "w/ my cousin"
(with), "bc rent is insane" (because), "back at my parents' rn" (right now), "my gf maya" (girlfriend).
"""

from __future__ import annotations

import re

from memoryadmin.extraction.strategies.offline.lexicon import word_set

_SPOKEN = re.compile(r"comma|period|full\s+stop|new\s+(?:line|paragraph)|exclamation|question\s+mark", re.IGNORECASE)
_MARK = re.compile(
    r"(?P<before>[\w'%$)]+)\s+(?:(?P<comma>comma)|(?P<stop>full\s+stop|new\s+line|new\s+paragraph)|"
    r"(?P<bang>exclamation\s+(?:mark|point))|(?P<ask>question\s+mark)|(?P<period>period))\b(?!\s+of\b)[.!?,]?",
    re.IGNORECASE,
)
# Words after which "period" is the noun: "a trial period", "my period", "the same period".
_NOUN_AFTER = word_set(
    """a an the this that my her his their your our its one any each every trial grace probation probationary notice
    waiting cooling time long short same whole entire study free off peak rainy dry holiday transition honeymoon first
    second third last next reporting billing bad painful heavy late introductory adjustment settling sleep quiet busy
    renaissance victorian historical jurassic class lesson exam school"""
)


_SHORT = re.compile(r"(?<![\w/.])(?:w/o|w/|bc|cuz|coz|rn|ppl|gf|bf|bday|tho|ur)(?![\w/])")
_LONG = {
    "w/o": "without",
    "w/": "with",
    "bc": "because",
    "cuz": "because",
    "coz": "because",
    "rn": "right now",
    "ppl": "people",
    "gf": "girlfriend",
    "bf": "boyfriend",
    "bday": "birthday",
    "tho": "though",
    "ur": "your",
}


def undictated(text: str) -> str:
    """The text with punctuation said aloud written as marks and chat's shorthand written out; a text without any is
    returned as it is."""
    if _SHORT.search(text) is not None:
        text = _SHORT.sub(lambda m: _LONG[m.group(0)], text)
    if _SPOKEN.search(text) is None:
        return text

    def mark(match: re.Match[str]) -> str:
        before = match.group("before")
        if before.lower() in _NOUN_AFTER:
            return match.group(0)
        if match.group("comma"):
            return before + ","
        if match.group("ask"):
            return before + "?"
        if match.group("bang"):
            return before + "!"
        return before + "."

    return _MARK.sub(mark, text)
