"""What is said to someone rather than stated of oneself, and the statement it carries.

- A request to the assistant to keep something ("Remember that I'm vegetarian", "can you remember I live in
  Austin?", "just so you know, my email is…") and a correction ("update my favourite movie to Dune Part Two
  please") carry the speaker's statement: it is read as if said plainly.
- A label before a statement ("Update: we broke up", "PSA: …") is left out.
- A name at the end addresses someone ("Thanks, Gina!"), unless it names what comes before it ("a golden
  retriever, Max").
- What follows "people keep asking if …" is the question asked, not the speaker's news.
- A request after a statement ("I'm vegetarian, give me a quick lunch") is not part of it.
- Someone named before the speaker in a subject of two ("My sister Jane and I went hiking") is kept with them:
  the clause reads as "Me and my sister Jane went hiking", which is never parted at its "and".
"""

from __future__ import annotations

import re

from memoryadmin.extraction.strategies.offline.lexicon import PETS, RELATIONS
from memoryadmin.extraction.strategies.offline.phrases import one_of, rx

# "people keep asking if Priya | and I broke up": what follows is the question asked, not the speaker's news.
_ASKED_IF = rx(
    r"\b(?:ask(?:s|ed|ing)?|wonder(?:s|ed|ing)?|know|sure|check(?:ing)?)\s+(?:\w+\s+)?(?:if|whether)(?:\s+\S+){0,3}$"
)
# "Profile refresh: favourite film is now Past Lives", "Update: we broke up": a label before the statement.
_LABEL = rx(
    r"^(?:profile\s+(?:update|refresh)|update|edit|hot\s+take|bit\s+of\s+news|news|psa|fyi|heads\s+up|"
    r"quick\s+update|ps|p\.s\.)\s*:\s+(?=\S)"
)
# "Remember that I'm vegetarian", "can you note I moved to Leeds", "just so you know, my email is…": a request to
# keep what follows, which the speaker states about themselves.
_KEEP_REQUEST = rx(
    r"^(?:(?:can|could|would|will)\s+(?:you|u)\s+(?:please\s+|pls\s+)?|please\s+|pls\s+|just\s+|also\s+)?"
    + one_of(
        """remember | note | keep in mind | make a note | take note | take a note | save | store | don't forget
        do not forget | just so you know | so you know | for the record | for future reference | note to self
        remind me | remind me later | don't let me forget
        actually update that | update that | correction | actually"""
    )
    + r"(?:\s+(?:that|this|for\s+me|for\s+later|for\s+next\s+time))*\s*[:,-]?\s+"
    r"(?=(?:i|i'm|im|i've|ive|my|we|we're|we've|our)\b)"
)
# "update my favourite movie to Dune Part Two please": the new value, said to the assistant.
_UPDATE_MY = rx(
    r"^(?:(?:can|could)\s+you\s+)?(?:please\s+)?(?:update|change|set)\s+my\s+(?P<what>[a-z][a-z ]{1,30}?)\s+to\s+"
    r"(?P<value>[^,;]+?)(?:,?\s+(?:please|pls|thanks|thx))?[.!]*$"
)
# "Call me Daniel": the name the speaker goes by.
_GOES_BY = re.compile(r"^(?:you\s+can\s+|please\s+|pls\s+|plz\s+|just\s+)?call\s+me\s+(.+)$", re.IGNORECASE)
# ", give me a quick lunch I can take to work", " - any tips?", ", can you help?": what the speaker asks for after
# a statement.
# What a speaker asks the listener to do for them: "give me…", "help us…".
_ASKED_OF_YOU = (
    r"(?:please\s+|pls\s+)?(?:give|help|make|suggest|recommend|tell|show|write|draft|find|plan|create|send|remind|"
    r"explain|summari[sz]e|teach|quiz|fix|translate|list|build|pick|outline|review|redo|update)\s+"
)
_REQUEST_TAIL = rx(
    r"(?:,|\s[-–—])\s+(?:and\s+)?(?:(?:can|could|would|will)\s+(?:you|u)\b|"
    + _ASKED_OF_YOU
    + r"(?:me|us|my|our|with)\b|any\s+(?:tips|ideas|"
    r"suggestions|recommendations|recs|advice)\b|what\s+(?:should|can|do|would)\s+(?:i|we)\b|how\s+(?:do|can|should)\s+"
    r"(?:i|we)\b|is\s+it\s+(?:worth|ok|okay|safe|normal)\b).*$"
)
_TRAILING_VOCATIVE = re.compile(r"(\w+)?,\s*[A-Z][a-z]+[!.]*\s*$")
# ", Max." at the end addresses Max, unless it names what comes before it: "a golden retriever, Max".
_NAMED_BEFORE = frozenset(PETS | RELATIONS)


def without_vocative(clause: str) -> str:
    match = _TRAILING_VOCATIVE.search(clause)
    if match is None or (match.group(1) or "").lower() in _NAMED_BEFORE:
        return clause
    return clause[: match.start()] + (match.group(1) or "")


def kept_as_stated(sentence: str, opened: str) -> str:
    """The sentence, or the statement a request to keep or a correction carries (`opened`: without its
    greeting). "Can you remember I live in Austin?" is no question: it says where the speaker lives."""
    kept = _UPDATE_MY.sub(r"my \g<what> is \g<value>", _KEEP_REQUEST.sub("", opened, count=1), count=1)
    return kept.rstrip(" ?") if kept != opened else sentence


# "Max, my golden retriever, loves the beach": a name set before what it names, not someone addressed.
_APPOSED = re.compile(
    r"(^|[.!?]\s+)(?P<name>[A-Z][a-z]+),\s+(?P<whose>my|our)\s+(?P<what>(?:[\w-]+\s+){0,2}?(?:"
    + "|".join(sorted(PETS | RELATIONS, key=len, reverse=True))
    + r")),\s+(?=[a-z])"
)


def apposed(content: str) -> str:
    """A name set before what it names, said in its place: "Max, my golden retriever, loves the beach" -> "my
    golden retriever Max loves the beach"."""
    if "," in content and "town" in content:
        content = _HOMETOWN_NAMED.sub(r"\1 ", content)
    return _APPOSED.sub(lambda m: f"{m.group(1)}{m.group('whose')} {m.group('what')} {m.group('name')} ", content)


# "moved back to my hometown, Columbus": the town and its name, one phrase ("my hometown Columbus").
_HOMETOWN_NAMED = re.compile(
    r"\b((?:my|our)\s+(?:home\s*town|old\s+town|home\s+town)),\s+(?=(?-i:[A-Z]))", re.IGNORECASE
)


# "Help me set up a home office", "Remind me which pump is petrol": what the speaker asks the listener to do.
_REQUEST = rx(r"^(?:(?:can|could|would)\s+(?:you|u)\s+)?" + _ASKED_OF_YOU + r"(?:me|us)\b")


def is_request(clause: str) -> bool:
    return bool(_REQUEST.match(clause))


def as_told(clause: str) -> str:
    """A statement as the speaker tells it of themselves: "call me Dan" -> "I go by Dan", "I'm vegan, any recipe
    ideas?" -> "I'm vegan"."""
    goes_by = _GOES_BY.match(clause)
    clause = f"I go by {goes_by.group(1)}" if goes_by else clause
    return _REQUEST_TAIL.sub("", clause) or clause


def without_label(text: str) -> str:
    return _LABEL.sub("", text)


def asks_if(piece: str) -> bool:
    """Whether a piece of a sentence ends asking if something is so: what follows is the question."""
    return bool(_ASKED_IF.search(piece[-60:]))


# "My sister Jane and I went hiking", "Yesterday Jane and I cooked": who did it with the speaker, before them.
_SUBJECT_OF_TWO = re.compile(
    r"^(?P<lead>(?:yesterday|today|tonight|last\s+\w+|this\s+\w+|on\s+\w+day)\s*,?\s+)?"
    r"(?P<who>(?:my|our)\s+(?:\w+\s+)?(?:" + "|".join(sorted(RELATIONS | PETS)) + r")(?:\s+(?-i:[A-Z])[a-z]+)?"
    r"|(?-i:[A-Z])[a-z]+)"
    r"\s+and\s+(?:i\s+(?!(?:am|was|are|were|think|guess|mean|know|hope|bet|swear|promise)\b)|me\s+(?:we\s+)?)(?=[a-z])",
    re.IGNORECASE,
)


def together(sentence: str) -> str:
    """A subject of two with the speaker named last, said with the speaker first ("me and my sister Jane went…")."""
    if " and " not in sentence and " And " not in sentence:
        return sentence
    match = _SUBJECT_OF_TWO.match(sentence)
    if match is None:
        return sentence
    lead, who = match.group("lead") or "", match.group("who")
    if who[:2].lower() in ("my", "ou"):
        who = who[0].lower() + who[1:]
    return f"{lead}{'me' if lead else 'Me'} and {who} {sentence[match.end() :]}"
