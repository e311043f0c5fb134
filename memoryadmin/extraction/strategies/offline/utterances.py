"""A turn kept as it was said, when no fact was drawn from it or it answers a question: nothing said is lost.

Extraction keeps what a careful reader would note, and much of a chat is not
that: advice to the listener ("Try flavored seltzer water instead"), a short
answer ("Pepperoni of course!"), a conditional, a plan made together. Such a
turn still answers questions later ("What did Melanie suggest?"), so it becomes
a memory of type `utterance`: the turn as said, attributed to its speaker when
the session names speakers ("Melanie: Try flavored seltzer water instead."),
lightly cleaned (links, emoji and the greeting or name it opens with left out,
white space collapsed). A turn that answers the question of the turn before it
keeps that question in front ("Caroline: How long have you been married? Melanie:
5 years already!"): an answer is found by the question, rarely by itself, so the
exchange is kept even when facts were drawn from the answer, unless they name
something the question asked about ("Where do you live?" and "Melanie lives in
Lyon"). Search
weighs utterances below extracted facts, and they go through the same write path
and governance as every other memory.

A turn with nothing worth finding is not kept: greetings, thanks, reactions
("haha", "ok", "Wow, that's great!"), a question with no content word ("How are
you?"), a reply fragment that only settles a time ("Next Friday works"), and a
request about the assistant's own answer ("Could you summarise that in three
bullet points?").
Nor is a turn that holds a secret (a password, a card number): those never
belong in long-term memory.
"""

from __future__ import annotations

import re

from memoryadmin.extraction.strategies.offline.dates import MONTHS, WEEKDAYS
from memoryadmin.extraction.strategies.offline.lexicon import REACTION_WORDS, STOPWORDS, word_set
from memoryadmin.extraction.strategies.offline.speech import (
    clean_message,
    holds_secret,
    is_reaction,
    sentences,
    strip_opening,
)

# Long enough for any chat turn; a longer message is cut at a word and marked.
MAX_UTTERANCE_CHARS = 1000
# A turn needs this many content words to be worth finding again.
MIN_CONTENT_WORDS = 2
# A question longer than this is not repeated before its answer (the answer is kept alone).
MAX_QUESTION_CHARS = 200

_TOKENS = re.compile(r"[a-z][a-z'-]*")
# Words that only place something in time: a turn made of them and a reply is a scheduling fragment.
_TIME_WORDS = (
    word_set(
        "next last this coming tomorrow tonight today yesterday morning afternoon evening night noon week weekend "
        "month year am pm o'clock later soon sometime then works work fine good suits suit okay ok perfect great "
        "sounds sound day days"
    )
    | frozenset(MONTHS)
    | frozenset(WEEKDAYS)
    | frozenset(m[:3] for m in MONTHS)
)
_NUMBERISH = re.compile(r"^\d")
# A request about the assistant's own answer ("Could you summarise the last answer in three bullet points?",
# "Make it shorter"): the conversation's mechanics, nothing to find again.
_ABOUT_THE_ANSWER = re.compile(
    r"^(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?|please\s+)?(?:summari[sz]e|rephrase|reword|shorten|"
    r"simplify|expand\s+on|translate|reformat|repeat|continue|redo|rewrite|make\s+(?:it|that|this)\s+"
    r"(?:shorter|longer|simpler|clearer)|explain\s+(?:that|this|it)\s+again)\b"
    r"(?:(?!\b(?:my|i|i'm|we|our)\b).)*$",
    re.IGNORECASE,
)
# An offer of the asker's own next step: its answer ("yes", or the next request) holds nothing of its own.
_OFFER = re.compile(
    r"^(?:(?:would|do|did)\s+you\s+(?:like|want)\s+(?:me|us)\s+to|(?:shall|should|can|could|may)\s+(?:i|we)|"
    r"want\s+me\s+to|how\s+(?:can|may)\s+(?:i|we)\s+help|anything\s+else)\b",
    re.IGNORECASE,
)
# A greeting and the name it is addressed to, at the start: "Hey Mel! ", "Hi Caroline, ".
_GREETING = re.compile(
    r"^(?:(?:hey|hi|hello|hiya|yo|morning|good\s+(?:morning|afternoon|evening))(?:\s+there)?"
    r"(?:\s+[A-Z][a-z]+)?\s*[,!.:~-]+\s*)+",
    re.IGNORECASE,
)


def content_of(text: str) -> list[str]:
    """The words of `text` that carry content: neither function words, nor reactions, nor fillers."""
    return [w for w in _TOKENS.findall(text.lower()) if len(w) > 2 and w not in STOPWORDS and w not in REACTION_WORDS]


def is_scheduling_fragment(text: str) -> bool:
    """ "Next Friday works", "Saturday at 3 is fine": a reply that settles a time and states nothing else."""
    words = [w.strip(".,!?:;") for w in text.lower().split()]
    words = [w for w in words if w]
    return (
        bool(words)
        and len(words) <= 6
        and all(w in _TIME_WORDS or w in STOPWORDS or _NUMBERISH.match(w) for w in words)
    )


def question_asked(content: str) -> str | None:
    """The last question of a turn ("How did the kids handle the accident?"), when it has content words and
    is not an offer of the asker's own next step ("Would you like me to suggest an itinerary?")."""
    text, _ = clean_message(content)
    if not text or holds_secret(text):
        return None
    asked = [s.strip() for s in sentences(text) if s.strip().endswith("?")]
    if not asked or not content_of(strip_opening(asked[-1])) or _OFFER.match(strip_opening(asked[-1])):
        return None
    question = _GREETING.sub("", asked[-1]).strip(" ,;:-~")
    if len(question) > MAX_QUESTION_CHARS:
        return None
    return question[:1].upper() + question[1:] if question else None


def _stem(word: str) -> str:
    """A crude stem, enough to tell whether two words name the same thing ("lives" ~ "live", "married" ~ "marry")."""
    for ending in ("ing", "ied", "ies", "ed", "es", "s", "y", "e"):
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            return word[: -len(ending)]
    return word


def answers(question: str, facts: list[str]) -> bool:
    """Whether the facts drawn from an answer name something the question asked about ("Where do you live?"
    and "Melanie lives in Lyon"); when they do not, the exchange is kept as said beside them."""
    asked = {_stem(w) for w in content_of(question)}
    said = {_stem(w) for fact in facts for w in content_of(fact)}
    return bool(asked & said)


def utterance_text(content: str, speaker: str = "", asked: tuple[str, str] | None = None) -> str | None:
    """The turn as a memory's text ("Melanie: Try flavored seltzer water instead."), or None when it holds
    nothing worth finding.

    `asked` is the question the turn answers, (who asked, the question), from the turn before: kept
    before the answer, as said ("Caroline: How did the kids take it? Melanie: They were scared but
    we reassured them."), since an answer alone ("5 years already!") is found by nothing.
    """
    text, _ = clean_message(content)
    if not text or holds_secret(text):
        return None
    text = _GREETING.sub("", text).strip(" ,;:-~")
    if not text or is_scheduling_fragment(text) or _ABOUT_THE_ANSWER.match(text):
        return None
    # What counts is said outside the pleasantries: "Sure thing! Thanks. Great talking to you. Take care!"
    # is all reaction, however many words it has.
    # A reaction with more to it ("You should try flavored seltzer water") still counts.
    found = 0
    for sentence in sentences(text):
        words = content_of(strip_opening(sentence))
        if len(words) >= 3 or not is_reaction(sentence):
            found += len(words)
    if found < MIN_CONTENT_WORDS:
        return None
    text = text.replace("\n", " ")  # the turn's lines as one text
    if len(text) > MAX_UTTERANCE_CHARS:
        text = text[:MAX_UTTERANCE_CHARS].rsplit(" ", 1)[0].rstrip(",;:") + "…"
    text = text[:1].upper() + text[1:]
    said = f"{speaker}: {text}" if speaker else text
    if asked is not None and not text.endswith("?"):
        asker, question = asked
        said = f"{asker}: {question} {said if speaker else 'Answer: ' + said}"
    return said
