"""Liking and disliking: "What food does Alice like?" is not answered by "Alice dislikes spicy food".

A static embedding puts "likes" and "dislikes" side by side, and full text matches the food
either way, so a question about what someone likes found what they hate as readily. A question
and a memory each get a sentiment: +1 when they speak of liking ("likes", "loves", "enjoys",
"favorite", "is a fan of"), -1 of disliking ("hates", "dislikes", "can't stand", "doesn't like",
"is not a fan of"), 0 otherwise or when both are said. Scoring lowers a memory of the opposite
sentiment (scoring.py); a memory without one is left alone.
"""

from __future__ import annotations

import re
from functools import lru_cache

_LIKING = (
    r"like[sd]?|liking|love[sd]?|loving|enjoy(?:s|ed|ing)?|adore[sd]?|prefer(?:s|red)?|favou?rites?|"
    r"fond\s+of|fan\s+of|passionate\s+about|(?:is|am|are|was|were|'s|'m|'re)\s+(?:really\s+|so\s+)?into"
)
_DISLIKING = (
    r"dislike[sd]?|disliking|hate[sd]?|hating|detest(?:s|ed)?|loathe[sd]?|despise[sd]?|"
    r"can(?:no|')?t\s+stand|can\s+not\s+stand"
)
# A negation up to two words before a liking turns it into a disliking: "doesn't really like", "not a fan
# of", "isn't into".
_NEGATED = re.compile(
    rf"\b(?:not|never|no\s+longer|\w+n't)(?:\s+\w+){{0,2}}?\s+(?:a\s+)?(?:{_LIKING}|into)\b",
    re.IGNORECASE,
)
_SAYS_LIKING = re.compile(rf"(?:^|(?<=\W))(?:{_LIKING})\b", re.IGNORECASE)
_SAYS_DISLIKING = re.compile(rf"\b(?:{_DISLIKING})\b", re.IGNORECASE)


@lru_cache(maxsize=50_000)
def sentiment(text: str) -> int:
    """+1 when the text speaks of liking, -1 of disliking, 0 when of neither or of both."""
    text = text.replace("’", "'")
    disliking = _NEGATED.search(text) is not None or _SAYS_DISLIKING.search(text) is not None
    liking = _SAYS_LIKING.search(_NEGATED.sub(" ", text)) is not None
    if liking == disliking:
        return 0
    return 1 if liking else -1
