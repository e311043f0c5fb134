"""A question as search reads it: the words that say what it is about, the times it names, its categories.

"What music did Alice like in August 2023?" is about "alice", "music" (a category: "jazz"
counts too) and "like"; "in August 2023" is a preference for memories said or happening then;
"Alice" is a name, and the memories about someone else rank a little lower (scoring.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

from memoryadmin.core.errors import InvalidInput
from memoryadmin.memories.embeddings import content_words
from memoryadmin.memories.search.attributes import attributes_asked
from memoryadmin.memories.search.categories import members_of
from memoryadmin.memories.search.inflections import other_forms
from memoryadmin.memories.search.periods import Period, periods_in, without_spans
from memoryadmin.memories.search.sentiment import sentiment

MAX_QUERY_CHARS = 2000
MAX_QUERY_WORDS = 64
SYNTAXES = ("natural", "websearch")
_WORD = re.compile(r"\w+", re.UNICODE)
# A word of two letters or more, its possessive left out ("Alice's" -> "Alice", "José's" -> "José").
_LETTERS = re.compile(r"\b([^\W\d_]{2,})(?:['’]s)?\b")
# Words that ask for whatever there is: beside a time, the question asks for that time alone.
_ASKING_ANYTHING = frozenset(
    """
    happen happened happens happening anything something everything new news plan plans planned doing done
    going event events stuff thing things lately recently up
    """.split()  # noqa: SIM905 - a word list reads best as words
)

_FOR_A_LIVING = re.compile(r"\bfor\s+a\s+living\b", re.IGNORECASE)
# "what did kim do", "what has Sam been up to": the word after the auxiliary is who.
_WHOSE = re.compile(
    r"^\W*(?:so\s+|and\s+)?what\s+(?:did|does|has|had|is|was|will)\s+([^\W\d_]{2,})\s+"
    r"(?:do|doing|done|been\s+(?:doing|up\s+to)|up\s+to|get\s+up\s+to|have\s+planned|plan|planned)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Question:
    text: str
    syntax: str
    # The words it is about, each with the members of the category it names (empty when none).
    words: list[str]
    members: list[tuple[str, ...]]
    # What is embedded for the vector side: the question without its dates.
    about: str
    # Each word's irregular forms ("win" -> "won"), matched as the word itself (inflections.py).
    forms: list[tuple[str, ...]] = field(default_factory=list)
    periods: list[Period] = field(default_factory=list)
    # Its capitalized words: the names among them are who it asks about (scoring.people_asked).
    names: frozenset[str] = frozenset()
    # +1 when it asks what someone likes, -1 what they dislike, 0 otherwise (sentiment.py).
    sentiment: int = 0
    # It asks for a time and nothing more ("What happened in November?", "What did I do last weekend?"):
    # what was said or happened then answers it, however little its words say.
    asks_period: bool = False
    # The attributes it asks about ("Where does she work?": employer, occupation; attributes.py).
    attributes: tuple[str, ...] = ()


# Words that ask for the value as it is now, which search gives first anyway (superseded memories are left out).
_CURRENTLY = frozenset({"now", "currently", "nowadays", "presently", "anymore", "lately"})


def question_parse(text: str, *, syntax: str, reference: date) -> Question:
    """Read a query; InvalidInput when it is empty, too long, holds a NUL or names an unknown syntax."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidInput("query must not be empty", details={"field": "query"})
    if "\x00" in text or len(text) > MAX_QUERY_CHARS:
        raise InvalidInput(
            f"query must be at most {MAX_QUERY_CHARS} characters without NUL", details={"field": "query"}
        )
    if syntax not in SYNTAXES:
        raise InvalidInput(f"syntax must be one of {', '.join(SYNTAXES)}", details={"field": "syntax"})
    named = periods_in(text, reference) if syntax == "natural" else []
    about = without_spans(text, [n.span for n in named]) if named else text
    if "living" in about:
        about = _FOR_A_LIVING.sub("for work", about)  # "what does she do for a living?" asks her work, not her home
    words = content_words(about, limit=MAX_QUERY_WORDS)
    if any(word in _CURRENTLY for word in words) and not all(word in _CURRENTLY for word in words):
        # "Where does he work now?" asks what "where does he work?" asks: the current value comes first either way,
        # and "now" is in no memory of it ("User started at Revolut on Monday").
        words = [word for word in words if word not in _CURRENTLY]
    # A name beside the time says whose ("What did Alice do in May?"), not what; typed in lower case too,
    # where the question's form says it is the one who did ("what did kim do in october?").
    names = {name.lower() for name in capitalized(about)} if named else set()
    if named and (whose := _WHOSE.match(about)) is not None:
        names.add(whose.group(1).lower())
    asks_period = bool(named) and all(word in _ASKING_ANYTHING or word in names for word in words)
    if not words:
        # A query of stop words or a date alone: its plain words.
        about = text
        words = content_words(text, limit=MAX_QUERY_WORDS) or [w.lower() for w in _WORD.findall(text)]
        words = words[:MAX_QUERY_WORDS]
    return Question(
        text=text,
        syntax=syntax,
        words=words,
        members=[members_of(w) for w in words],
        about=about,
        forms=[other_forms(w) for w in words],
        periods=[n.period for n in named],
        # Web-search syntax returns only its matches, ranked by them alone.
        names=capitalized(text) if syntax == "natural" else frozenset(),
        sentiment=sentiment(text) if syntax == "natural" else 0,
        asks_period=asks_period,
        attributes=attributes_asked(words) if syntax == "natural" else (),
    )


def capitalized(text: str) -> frozenset[str]:
    """The text's capitalized words: its names, if memories lead with them (scoring.people_asked)."""
    return frozenset(word for word in _LETTERS.findall(text) if word[0].isupper())


def leading_name(text: str) -> str | None:
    """The capitalized word a text starts with ("Melanie's kids love ..." -> "Melanie"), or None."""
    found = _LETTERS.match(text)
    return found.group(1) if found and found.group(1)[0].isupper() else None
