"""Category words and their members: "music" finds "jazz", "city" finds "Lyon".

The lexicon is `categories.txt` beside this module, read once per process. A query word
that names a category matches a memory holding one of its members as well as one holding
the word itself, a little below it (MEMBER_WEIGHT): a member is evidence of the category,
the word itself is the question's own.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

LEXICON = Path(__file__).with_name("categories.txt")
# How much a member counts against the category's own word, in full text and in term similarity.
MEMBER_WEIGHT = 0.8
_SPLIT = re.compile(r"\s*,\s*")


@cache
def lexicon() -> dict[str, tuple[str, ...]]:
    """Each category word (lower case) and its members, the lines' order kept."""
    members: dict[str, dict[str, None]] = {}
    for line in LEXICON.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#") or ":" not in line:
            continue
        names, listed = line.split(":", 1)
        found = [m.lower() for m in _SPLIT.split(listed.strip()) if m]
        for name in _SPLIT.split(names.strip()):
            if name:
                members.setdefault(name.lower(), {}).update(dict.fromkeys(found))
    return {name: tuple(m for m in found if m != name) for name, found in members.items()}


def members_of(word: str) -> tuple[str, ...]:
    """The members of the category a query word names; none when it names none."""
    return lexicon().get(word.lower(), ())


@cache
def member_pattern(word: str) -> re.Pattern[str] | None:
    """A pattern finding any member of the word's category in a memory's text, as whole words."""
    members = members_of(word)
    if not members:
        return None
    alternatives = sorted((re.escape(m).replace(r"\ ", r"[\s-]+") for m in members), key=len, reverse=True)
    return re.compile(r"(?<![\w-])(?:" + "|".join(alternatives) + r")(?:e?s)?(?![\w-])", re.IGNORECASE)
