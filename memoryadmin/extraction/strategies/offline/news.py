"""Single-valued attributes told as news or in passing, where `facts.classify` finds none.

`facts.classify` reads a clause that opens with its fact ("I live in Lyon"). People
also give the fact inside a longer clause, or as news of a change: "since the move
to Denver I've been hiking", "now that I'm living in Bristol", "I left Spotify and
joined a small fintech called Monzo", "first week at Stripe was a blur", "I'm doing
keto now", "picked up the cello and dropped the violin". Each cue (`cues.py`) names the
speaker (a first-person verb, or a phrase only the speaker's own life fills) and
the attribute it sets, so the memory it makes supersedes the older value.

What is not a change stays out: the caller has already dropped hypothetical,
hedged and negated clauses and those about someone else; a value said as one
more ("I also play the drums") replaces nothing (`facts.single_valued`).
"""

from __future__ import annotations

from memoryadmin.extraction.strategies.offline.asides import (
    AT_EMPLOYER,
    DATING,
    FAVOURITE,
    FOR_A_WHILE,
    IN_PASSING,
    LEFT_BEHIND,
    LEFT_OUT,
    NO_CHANGE,
    NOT_EMPLOYED,
    RELATIVE_SUBJECT,
    RETIRED,
)
from memoryadmin.extraction.strategies.offline.cues import CUES, FIRST_CUES
from memoryadmin.extraction.strategies.offline.facts import Kind, classify, single_valued
from memoryadmin.extraction.strategies.offline.later_cues import LATER_CUES
from memoryadmin.extraction.strategies.offline.lexicon import OTHER_PEOPLE, RELATIONS, favourite_attribute
from memoryadmin.extraction.strategies.offline.phrases import STILL, rx
from memoryadmin.extraction.strategies.offline.prefilter import Patterns
from memoryadmin.extraction.strategies.offline.things import NOT_A_NEW_ONE
from memoryadmin.memories.models import MemoryType

# Searched in this order; a pattern whose words a clause lacks is skipped (`prefilter`).
_CUES = Patterns((*FIRST_CUES, *CUES, *LATER_CUES))
_IN_PASSING = Patterns(IN_PASSING)


def news_kind(clause: str, *, past: bool) -> Kind | None:
    """The attribute a first-person clause sets when it says the fact inside a longer clause, or None."""
    if no_change_of_the_speakers(clause):
        # "still loving my little flat in Leith": a value said to hold still is held (no change to read from it).
        if not STILL.search(clause) or no_change_of_the_speakers(STILL.sub("", clause)):
            return None
        passing = next(_IN_PASSING.search(clause), None)
        return passing[1] if passing is not None else None
    cue = next(_CUES.search(clause), None)
    if cue is not None:
        kind = cue[1]
        if past and kind.memory_type == MemoryType.SEMANTIC and kind.topic not in ("diet", "appearance"):
            kind = Kind(MemoryType.EPISODIC, kind.topic, kind.attribute, kind.negation_ok)
        if kind.topic == "possessions" and NOT_A_NEW_ONE.search(clause):
            return None
        return single_valued(kind, clause)
    passing = next(_IN_PASSING.search(clause), None)
    if passing is not None:
        return passing[1]
    return _favourite(clause)


def _favourite(clause: str) -> Kind | None:
    favourite = FAVOURITE.search(clause)
    if favourite is None:
        return None
    attribute = favourite_attribute(next(group for group in favourite.groups() if group), clause)
    return Kind(MemoryType.PREFERENCE, "preferences", attribute) if attribute else None


def speaker_left_out(clause: str, *, past: bool) -> tuple[str, Kind] | None:
    """A subjectless clause that gives the speaker's own attribute ("Living in Manila rn", "new job at Target"),
    said with its subject, and what it sets; None for any other."""
    for pattern, opening in LEFT_OUT:
        match = pattern.search(clause)
        if match:
            # A pattern that matched words ("As a writer") gives the clause without them after its opening.
            replaces = match.end() > match.start() and opening.endswith("=")
            rest = clause[match.end() :] if replaces else clause
            opening = opening.rstrip("=")
            # The words after a replaced opening keep their case ("in a relationship w Priya").
            said = opening + (rest[0].lower() + rest[1:] if opening and not replaces else rest)
            kind = classify(said, past=past)
            if kind is None or not kind.attribute:
                kind = news_kind(said, past=past)
            return (said, kind) if kind is not None and kind.attribute else None
    passing = next(_IN_PASSING.search(clause), None)
    if passing is not None and not NO_CHANGE.search(clause):
        return clause, passing[1]
    # "Weirdly green is my favourite colour now": the speaker's favourite, whatever the clause opens with.
    favourite = _favourite(clause)
    return (clause, favourite) if favourite is not None else None


def retires(clause: str) -> bool:
    """Whether a clause that ends the speaker's employment says they retired: their occupation changes too."""
    return bool(RETIRED.search(clause))


def employer_named(clause: str) -> str:
    """The employer a clause stating the speaker's occupation names ("I'm a nurse at St Thomas'" -> "St Thomas'")."""
    match = AT_EMPLOYER.search(clause)
    return match.group("org").rstrip(".") if match and not NOT_EMPLOYED.search(clause) else ""


# A thing got for someone else, or beside the one kept: "bought a little Clio so my wife can get to town, the Hilux
# stays as my work truck", "got a cheap Android for my son"; "I'm on my mum's old phone till Thursday".
_NOT_INSTEAD = rx(
    r"\bso\s+(?:my|our)\s+(?:wife|husband|partner|son|daughter|kids?|mum|mom|dad|teen\w*|boyfriend|girlfriend)\s+"
    r"(?:can|could|has|have)\b|\bfor\s+(?:my|our)\s+(?:wife|husband|partner|son|daughter|kids?|mum|mom|dad|teen\w*|"
    r"boyfriend|girlfriend)\b(?!'s)|\b(?:stays|staying)\s+as\b|\bas\s+(?:a|our|my)\s+(?:second|spare|backup)\b|"
    r"\b(?:on|using|borrowing)\s+(?:my|our)\s+[a-z]+'s\s+(?:\w+\s+){0,2}(?:phone|laptop|car)\b|"
    # "bought a 1972 VW Beetle as a weekend project! The Tesla is still my daily driver".
    r"\bas\s+a\s+(?:weekend|side|summer|fun|hobby|restoration)\s+(?:project|car|toy|thing)\b|\bproject\s+car\b|"
    r"\bstill\s+(?:my|our|the)\s+(?:daily(?:\s+driver)?|main|everyday|work)\b"
)


def not_instead(content: str) -> bool:
    """Whether a message tells of a thing had beside the speaker's own, or for someone else (`_NOT_INSTEAD`)."""
    return bool(_NOT_INSTEAD.search(content))


def for_a_while(clause: str) -> bool:
    """Whether a clause gives a value the speaker holds only for a while ("acting manager for two weeks")."""
    return bool(FOR_A_WHILE.search(clause))


def partner_named(clause: str) -> str:
    """The name of whom the speaker now dates ("I'm dating Alex now", "seeing a girl named Clara"), or ""."""
    match = DATING.search(clause)
    return match.group("name") if match else ""


# "My girlfriend Chloe and I want to adopt a cat": the partner named in passing, whatever the clause is for; not in
# a message that ends it or mourns them.
_PARTNER_MENTIONED = rx(
    r"\b(?:my|our)\s+(?:new\s+)?(?:girlfriend|boyfriend|wife|husband|fianc[eé]e?)\s*,?\s+(?P<name>(?-i:[A-Z][a-z]+))\b"
    r"(?!'s\s+(?:brother|sister|mum|mom|dad|family|parents|friend))"
)
_ENDED = rx(
    r"\b(?:split|broke\s+up|broken\s+up|divorc\w*|separat\w*|dumped|ended\s+things|call(?:ed)?\s+it\s+quits|left\s+me|"
    r"cheat\w*|passed\s+away|died|funeral|late|ex|former|used\s+to|was\s+married|lost\s+my\s+(?:husband|wife|partner))\b"
)


def partner_mentioned(content: str) -> str:
    """The name of the partner a message names in passing ("my wife Sarah and I are planning…"), or ""."""
    match = _PARTNER_MENTIONED.search(content)
    return match.group("name") if match and not _ENDED.search(content) else ""


def no_change_of_the_speakers(clause: str) -> bool:
    """Someone of the speaker's as the subject ("my sister moved to Oslo"), or no change yet ("I might switch")."""
    relative = RELATIVE_SUBJECT.match(clause)
    return bool(NO_CHANGE.search(clause)) or (relative is not None and _someone(relative.group("who")))


def _someone(word: str) -> bool:
    """Whether a word after "my" names a person ("my sister", "my sons", "my flatmate's")."""
    word = word.lower().removesuffix("'s")
    return word in RELATIONS or word in OTHER_PEOPLE or (word.endswith("s") and word[:-1] in RELATIONS)


def left_behind(clause: str) -> list[str]:
    """The names of what the speaker says they left ("I switched from Barclays to Monzo" -> ["Barclays"])."""
    if no_change_of_the_speakers(clause):
        return []
    found = [match.group("old") for pattern in LEFT_BEHIND for match in pattern.finditer(clause)]
    return list(dict.fromkeys(name.rstrip(".'") for name in found))
