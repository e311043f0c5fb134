"""What "it", "they" and "them" stand for, read from the turn and the one before it.

A memory is read alone, a year later: "Sam walks them every morning" says too
little, "Sam walks Andrew's dogs every morning" says it all. Before a clause is
rewritten in the third person, a pronoun that stands for a thing (subject or
object) is replaced by the nearest noun phrase that can be what it means, taken
from the earlier sentences of the same message or, failing that, from the
message before it in the conversation ("Check out my new tattoo!" — "It stands
for freedom" becomes "The tattoo stands for freedom").

The noun phrases are those whose noun names something concrete a person talks
about (a pet, a possession, a work, a place, a group of people); "a lot", "the
time" or "the way" never are. Whose it is stays right: Andrew's "my dogs" is
"Andrew's dogs" in Sam's memory, Sam's own "my dogs" stays "my dogs" (and becomes
"Sam's dogs"), "your painting" said to Sam is "my painting". A pronoun with no
such phrase in reach is left as it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memoryadmin.extraction.strategies.offline.lexicon import RELATIONS, THING_WORDS, word_set

# Nouns a pronoun may stand for: things people show, own, make, go to and care for.
CONCRETE = (
    RELATIONS
    | THING_WORDS
    | word_set(
        """car cars truck bike bicycle motorcycle phone laptop computer camera house home flat apartment garden yard
    room kitchen painting paintings drawing drawings sketch sketches photo photos pic pics picture pictures
    portrait mural sculpture sculptures pottery bowl bowls vase mug mugs book books novel novels story stories
    script scripts poem poems article articles blog podcast video videos song songs album albums record records
    playlist movie movies film films show shows series game games tournament match concert festival event events
    party wedding class classes course workshop workshops program project projects business store shop studio
    company startup app website channel team band club group charity necklace bracelet ring ring tattoo tattoos
    shirt dress shoes sneakers jacket hat bag cake cakes cookies cookie pie bread recipe recipes dish dishes meal
    pizza guitar piano violin drums plant plants tree trees flowers flower roses garden sign poster card letter
    gift present trophy medal award certificate figurine doll dolls toy toys puzzle sunset beach lake mountain
    mountains trail park museum library gym pool boat tent map journal notebook diary planner collection
    paintbrush canvas keyboard headphones watch kitten puppies horse horses turtle turtles fish hamster bird birds
    parrot lizard snake snakes shelter sanctuary camp campsite cabin"""
    )
)
# A determiner and the (up to three) words after it, of which the first concrete noun is the head.
_NOUN_PHRASE = re.compile(
    r"\b(?P<det>(?i:the|this|that|these|those|my|our|your|his|her|their|a|an)|[A-Z][a-z]+'s)\s+"
    r"(?P<rest>[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*){0,2})"
)
# "it" that stands for nothing in particular ("made it", "it's time", "love it when").
_IDIOM_IT = re.compile(
    r"\b(?:made|make|makes|making|got|get|gets|getting|take|takes|took|give|gives|gave|giving|hang\s+of|go\s+for|"
    r"worth|at|for)\s+it\b|\bit's\s+(?:time|been\b)|\bit\s+(?:all|takes|took|seems|seemed|turns\s+out|"
    r"turned\s+out|looks\s+like|feels\s+like|is\s+what|was\s+\w+\s+to\b|is\s+\w+\s+to\b)|"
    r"\b(?:love|loves|hate|hates|like|likes)\s+it\s+when\b|\bit's\s+\w+\s+to\b",
    re.IGNORECASE,
)
_COPULA_AFTER = re.compile(
    r"(?:'s|'re|\s+(?:is|was|are|were|felt|feels|seems|seemed|sounds|looks|has\s+been|had\s+been|can\s+be|"
    r"will\s+be|would\s+be|must\s+be)\b)",
    re.IGNORECASE,
)
_PRONOUN = re.compile(r"\b(?P<pronoun>it|they|them)\b(?!')", re.IGNORECASE)
_OWNERS_TO_SPEAKER = {"your": "my"}


@dataclass(frozen=True)
class Phrase:
    text: str
    plural: bool


_LEANING = re.compile(
    r"\b(?:it|this|that|them|these|those)(?=\s*$|\s*[,.!;]|\s+(?:and|but|so|on|in|at|to|for|with|again|too|now|"
    r"today|tomorrow|yesterday|tonight|every|next|last|soon|later|out|up|down|off|back|together)\b)",
    re.IGNORECASE,
)


def leans_on_pronoun(text: str) -> bool:
    """Whether a pronoun that stands for a thing is left in `text` with nothing to stand for ("try making it")."""
    for match in _LEANING.finditer(text):
        start = match.start()
        if match.group(0).lower() == "it" and _IDIOM_IT.search(text[max(0, start - 12) : start + 24]):
            continue
        if not phrases_in(text[:start], "", ""):
            return True
    return False


def has_pronoun(text: str) -> bool:
    return bool(_PRONOUN.search(text))


def phrases_in(text: str, said_by: str, speaker: str) -> list[Phrase]:
    """The concrete noun phrases of `text` said by `said_by`, worded as `speaker` would say them."""
    found = []
    for match in _NOUN_PHRASE.finditer(text):
        words = match.group("rest").split()
        head = next((i for i, word in enumerate(words) if word.lower() in CONCRETE), None)
        if head is None:
            continue
        noun = words[head].lower()
        det = match.group("det")
        low = det.lower()
        if said_by != speaker and low in ("my", "our"):
            det = f"{said_by}'s"
        elif said_by != speaker and low in _OWNERS_TO_SPEAKER:
            det = _OWNERS_TO_SPEAKER[low]
        elif low in ("this", "that", "a", "an") or low in ("these", "those"):
            det = "the"
        elif said_by != speaker and low in ("his", "her", "their"):
            continue  # whose, we cannot tell from here
        plural = noun in ("children", "people") or (
            noun.endswith("s") and (noun[:-1] in CONCRETE or noun[:-2] in CONCRETE)
        )
        found.append(Phrase(" ".join([det, *words[: head + 1]]), plural))
    return found


def resolve(clause: str, before: list[Phrase]) -> str:
    """`clause` with each "it" / "they" / "them" that stands for a thing replaced by the nearest phrase that fits.

    `before` lists the phrases said earlier, oldest first. The clause's own phrases count too: "I got a
    bike and love it" keeps its "it".
    """
    if not before or not _PRONOUN.search(clause):
        return clause
    out = []
    last = 0
    for match in _PRONOUN.finditer(clause):
        pronoun = match.group("pronoun").lower()
        start = match.start()
        if pronoun == "it" and _IDIOM_IT.search(clause[max(0, start - 12) : start + 24]):
            continue
        if phrases_in(clause[:start], "", ""):
            continue  # something in the clause itself comes first
        if _COPULA_AFTER.match(clause, match.end()):
            continue  # "it was a memorable night", "they're more than shoes": what it is, not which
        wanted_plural = pronoun != "it"
        phrase = next((p for p in reversed(before) if p.plural == wanted_plural), None)
        if phrase is None:
            continue
        text = phrase.text
        if start == 0 or clause[:start].rstrip().endswith((",", ";", ":")):
            text = text[:1].upper() + text[1:]
        out.append(clause[last:start])
        out.append(text)
        last = match.end()
    if not out:
        return clause
    out.append(clause[last:])
    return "".join(out)
