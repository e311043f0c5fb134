"""Milestones told as they happened, whatever the clause: each gives the attribute it changes, in plain words.

People tell a change as the moment it happened: "HE PROPOSED at the top of Sugarloaf!!! I said yes", "we signed the
divorce papers on thursday", "day 30 vegan ✅", "dr put me on a low FODMAP diet", "signed for Brixton Athletic last
week", "I'm all in on the Niners", "new girlfriend is called Maya". The clause reading (`news`, `facts`) keeps the
words; this reads the fact they give ("Pat is engaged"), so the memory states the attribute and supersedes the old
value. Someone else's milestone ("my sister signed the divorce papers") and a question give nothing.
"""

from __future__ import annotations

import re

from memoryadmin.extraction.strategies.offline.news import no_change_of_the_speakers
from memoryadmin.extraction.strategies.offline.phrases import DIETS, FIELDS, NAME, one_of

_PARTNERS = one_of("girlfriend | boyfriend | gf | bf | partner | wife | husband | fiance | fiancee | fiancé | fiancée")
# (pattern, topic, attribute, what the speaker is: a template over the pattern's groups).
MILESTONES: tuple[tuple[re.Pattern[str], str, str, str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), topic, attribute, template)
    for pattern, topic, attribute, template in (
        (
            r"\b(?:he|she|they|(?-i:[A-Z][a-z]+))\s+(?:finally\s+)?proposed\b.*\b(?:i|we)\s+said\s+yes\b",
            "relationships",
            "relationship_status",
            "{speaker} is engaged",
        ),
        (
            r"\b(?:signed|got)\s+(?:the|our)\s+divorce\s+papers\b|\bdivorce\s+(?:came|went)\s+through\b",
            "relationships",
            "relationship_status",
            "{speaker} is divorced",
        ),
        (
            r"\b(?:my|our)\s+new\s+(?P<partner>" + _PARTNERS + r")\s+(?:is\s+called|is\s+named|'s\s+called|is)\s+"
            r"(?P<name>(?-i:[A-Z][a-z]+))\b|^new\s+(?P<partner2>" + _PARTNERS + r")\s+(?:is\s+called|is\s+named|'s\s+"
            r"called|is)\s+(?P<name2>(?-i:[A-Z][a-z]+))\b",
            "relationships",
            "partner",
            "{speaker}'s partner is {name}",
        ),
        (
            r"^day\s+\d+\s+(?:of\s+(?:being\s+)?)?(?P<diet>" + DIETS + r")\b|\b(?:put|started)\s+me\s+on\s+(?:a|the)\s+"
            r"(?P<diet2>(?:[\w-]+\s+){0,2}?)diet\b",
            "diet",
            "diet",
            "{speaker} is on a {diet} diet",
        ),
        (
            r"\b(?:i'm|i\s+am|we're)\s+(?:all\s+in\s+on|now\s+rooting\s+for)\s+(?P<team>(?:the\s+)?" + NAME + r")",
            "sports",
            "team",
            "{speaker} supports {team}",
        ),
        (
            r"(?:^|\bi\s+|\bjust\s+)(?:signed\s+for|now\s+play\s+for|play\s+for)\s+(?:the\s+)?(?P<team>" + NAME + r")",
            "sports",
            "team",
            "{speaker} plays for {team}",
        ),
        (
            r"\b(?:i'm|i\s+am)\s+(?:now\s+)?(?:an?\s+)(?P<field>" + FIELDS + r"|econ|psych|poli\s+sci|comp\s+sci)\s+"
            r"(?:major|student)\b",
            "education",
            "course",
            "{speaker} studies {field}",
        ),
    )
)
_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")


def milestones_in(content: str, speaker: str) -> list[tuple[str, str, str]]:
    """(topic, attribute, text) for each milestone of the speaker's own the message tells."""
    found: list[tuple[str, str, str]] = []
    sentences = [s for s in _SENTENCES.split(content) if s and not s.rstrip(" \"')").endswith("?")]
    text = " ".join(s for s in sentences if not no_change_of_the_speakers(s))
    for pattern, topic, attribute, template in MILESTONES:
        match = pattern.search(text)
        if match is None:
            continue
        values = {key.rstrip("2"): value for key, value in match.groupdict().items() if value}
        if "diet" in values:
            values["diet"] = " ".join(values["diet"].split())
            if not values["diet"]:
                continue
            if template.endswith("diet") and values["diet"].lower() in ("vegan", "vegetarian", "pescatarian"):
                template = "{speaker} is {diet}"
        found.append((topic, attribute, template.format(speaker=speaker, **values)))
    return found
