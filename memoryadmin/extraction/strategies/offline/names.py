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
from functools import cache
from pathlib import Path

LEXICON = Path(__file__).with_name("names.txt")
# The words after which a name that is also an everyday word is one: "with chase", "moved to reading", "a bears fan".
_INTRODUCES = re.compile(
    r"(?:\b(?:with|at|to|in|from|for|on|joined|left|quit|a|an|my|our|fan\s+of|support)\s+"
    r"(?:(?:new|used|old|little|\d{4})\s+)?)$",
    re.IGNORECASE,
)
# "a bolt of lightning", "a chase of sorts": an everyday word, whatever came before it.
_OF = re.compile(r"\s+of\b", re.IGNORECASE)
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


def named(*labels: str) -> str:
    """A pattern matching any name of the groups, as a whole word, longest first: "(?:Bank of America|Chase|...)"."""
    names = {name.removeprefix("?") for label in labels for name in groups()[label]}
    alternatives = sorted((re.escape(name).replace(r"\ ", r"\s+") for name in names), key=len, reverse=True)
    return r"(?<![\w&'+-])(?:" + "|".join(alternatives) + r")(?![\w&+-])"


@cache
def _lexicon() -> tuple[re.Pattern[str], dict[str, str], frozenset[str]]:
    spelling: dict[str, str] = {}
    everyday: set[str] = set()
    for listed in groups().values():
        for name in listed:
            plain = name.removeprefix("?")
            if name.startswith("?"):
                everyday.add(plain.lower())
            spelling.setdefault(plain.lower(), plain)
    alternatives = sorted((re.escape(name) for name in spelling), key=len, reverse=True)
    pattern = re.compile(r"(?<![\w&'+@./-])(?:" + "|".join(alternatives) + r")(?![\w&+@-]|'\w|\.\w)", re.IGNORECASE)
    return pattern, spelling, frozenset(everyday)


def spelt(text: str) -> str:
    """The text with the lexicon's names typed in lower case spelt as names; the same length."""
    if not any(c.islower() for c in text):
        return text
    pattern, spelling, everyday = _lexicon()
    parts: list[str] = []
    last = 0
    for match in pattern.finditer(text):
        typed = match.group(0)
        if not typed.islower():
            continue
        low = typed.lower()
        if low in everyday and (
            not _INTRODUCES.search(text[max(0, match.start() - 20) : match.start()]) or _OF.match(text, match.end())
        ):
            continue
        name = spelling[low]
        if len(name) != len(typed):
            continue
        parts += [text[last : match.start()], name]
        last = match.end()
    if not parts:
        return text
    parts.append(text[last:])
    return "".join(parts)
