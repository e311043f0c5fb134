"""The `offline` strategy (the default): what a careful reader keeps from a chat, without a model.

For every message a person sent (role `user`; in a group chat each message's
`name` says who spoke, otherwise it is the session's person):

1. the clauses they say about themselves are found (`speech`): greetings,
   thanks, reactions, questions, what is addressed to the listener, what others
   said, and what is imagined, wished, hedged, negated or sarcastic are left out;
2. each is rewritten in the third person under the speaker's name (`person`),
   with relative dates resolved against the message's `created_at` and written
   into the text (`dates`): "I went hiking yesterday" -> "Evan went hiking on
   7 May 2023", the day stored as the memory's `event_date`;
3. a clause a pattern recognises (`facts`: possessions, moves, jobs, diet,
   health, relationships, plans, preferences, opinions about themselves) becomes
   a fact of its own, typed, with the attribute a later statement supersedes
   ("residence", "car"); "my new Prius" in passing also gives "Evan has a new
   Prius";
4. what else they told about themselves in that message becomes one `episodic`
   memory, attributed and dated, with the plain statements around it for context.

Each memory's evidence is the one message it came from (or each message that
said the same thing). docs/extraction.md lists what it takes and where it stops.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from memoryadmin.core.errors import InvalidInput
from memoryadmin.extraction.strategies.base import Batch, Candidate
from memoryadmin.extraction.strategies.offline.dates import MONTHS, WEEKDAYS, find_dates, with_dates_written
from memoryadmin.extraction.strategies.offline.facts import classify, possession_in, topic_of
from memoryadmin.extraction.strategies.offline.person import restore_subject, third_person
from memoryadmin.extraction.strategies.offline.speech import (
    addresses_listener,
    content_words,
    is_hedged,
    is_hypothetical,
    is_negated,
    read_clauses,
    words_of,
)
from memoryadmin.memories.models import MemoryType

DEFAULT_SPEAKER = "User"
MAX_EPISODE_PARTS = 5
MAX_EPISODE_CHARS = 600
MAX_CONTEXT_PARTS = 3
KINDS = ("facts", "episodes")
# Facts that are short by nature ("I'm vegan", "I'm 34", "I'm single").
_SHORT_FACT_TOPICS = frozenset({"identity", "diet", "relationships", "origin", "home", "health", "work", "self"})
_GOES_BY = re.compile(r"^(?:you\s+can\s+|please\s+|just\s+)?call\s+me\s+(.+)$", re.IGNORECASE)
_PROMISE = re.compile(r"^(?:i|we)(?:'ll|\s+will|\s+(?:can't|cannot)\s+wait)\b", re.IGNORECASE)
_CAPITALISED = re.compile(r"\b[A-Z][\w'&.-]*(?:\s+(?:of|de|la|the|and)?\s*[A-Z][\w'&.-]*)*")
_NOT_ENTITIES = frozenset(
    {"I", "User", "They", "The", "A", "An", "It", "This", "That", "My", "On", "In", "And", "But", "So"}
    | {word.capitalize() for word in MONTHS + WEEKDAYS}
)


@dataclass
class Reading:
    """One memory read from a message, before it becomes a candidate."""

    text: str
    memory_type: str
    topics: list[str]
    kind: str  # fact | episode
    attribute: str = ""
    event_date: date | None = None
    date_precision: str = ""
    entities: list[str] = field(default_factory=list)


def _entities(text: str, speaker: str) -> list[str]:
    found: list[str] = []
    for match in _CAPITALISED.finditer(text):
        entity = match.group(0).strip(" .'")
        if entity and entity not in _NOT_ENTITIES and entity != speaker and not entity.startswith(speaker + "'"):
            found.append(entity)
    return list(dict.fromkeys(found))[:10]


def _sentence_case(text: str) -> str:
    text = " ".join(text.split()).strip(" ,;:-")
    return text[:1].upper() + text[1:]


def read_message(content: str, speaker: str, today: date, kinds: frozenset[str] = frozenset(KINDS)) -> list[Reading]:
    """What `speaker` told about themselves in one message, in the third person, dated against `today`."""
    facts: list[Reading] = []
    parts: list[tuple[int, int, str, str]] = []
    context: list[tuple[int, int, str, str]] = []
    episode_date: tuple[date, str] | None = None
    # Whether what the episode tells happened (past, or dated), or is how things are ("I ride to work").
    happened = False
    kept: tuple[int, int] | None = None
    for clause in read_clauses(content):
        said = clause.text
        if clause.mode in ("other", "opinion"):
            if (
                not addresses_listener(clause.words)
                and not is_hypothetical(said, clause.words)
                and not is_negated(said, clause.words)
                and len(content_words(said)) >= 3
            ):
                context.append(
                    (clause.sentence, clause.position, clause.joiner, _sentence_case(third_person(said, speaker)))
                )
            continue
        first_person = restore_subject(said) if clause.mode == "dropped" else said
        words = clause.words if first_person is said else words_of(first_person)
        if is_hedged(first_person) or addresses_listener(words) or is_hypothetical(first_person, words):
            continue
        kind = classify(first_person, past=clause.past)
        if is_negated(first_person, words) and not (kind and kind.negation_ok):
            continue
        mentions = find_dates(first_person, today, past=clause.past)
        substance = len(content_words(first_person, speaker))
        # "…broke down, so I sold it": a short clause that goes on from a kept one is kept with it.
        follows_kept = kept == (clause.sentence, clause.position - 1)
        # "I'm going to make it": too little to be a fact; "I love jazz" is enough for a taste.
        too_little = substance < (1 if kind is not None and kind.topic == "preferences" else 2)
        if kind is not None and kind.topic not in _SHORT_FACT_TOPICS and too_little:
            kind = None
        if kind is not None and kind.topic == "plans" and not mentions and _PROMISE.match(first_person):
            continue  # "I'll check it out": a promise to the listener, unless it has a date
        goes_by = _GOES_BY.match(first_person)
        if goes_by:
            first_person = f"I go by {goes_by.group(1)}"
        text = _sentence_case(third_person(with_dates_written(first_person, mentions), speaker, past=clause.past))
        when = (mentions[0].day, mentions[0].precision) if mentions else None
        if kind is not None and "facts" in kinds:
            memory_type = (
                MemoryType.EPISODIC
                if when and kind.memory_type == MemoryType.SEMANTIC and clause.past
                else kind.memory_type
            )
            facts.append(
                Reading(
                    text=text,
                    memory_type=memory_type,
                    topics=[kind.topic],
                    kind="fact",
                    attribute=kind.attribute,
                    event_date=when[0] if when else None,
                    date_precision=when[1] if when else "",
                    entities=_entities(text, speaker),
                )
            )
        elif (
            (substance >= 2 or mentions or (substance and follows_kept))
            and "episodes" in kinds
            and (kind is None or kind.topic != "plans")
        ):
            parts.append((clause.sentence, clause.position, clause.joiner, text))
            kept = (clause.sentence, clause.position)
            happened = happened or clause.past or bool(mentions)
            if when and episode_date is None:
                episode_date = when
        possession = possession_in(first_person)
        if possession and "facts" in kinds and not (kind and kind.attribute == possession[0]):
            attribute, thing = possession
            facts.append(
                Reading(
                    text=f"{speaker} has a new {thing}",
                    memory_type=MemoryType.SEMANTIC,
                    topics=["possessions"],
                    kind="fact",
                    attribute=attribute,
                    entities=_entities(thing, speaker),
                )
            )
    if parts:
        facts.append(_episode(parts, context, speaker, episode_date, happened))
    return facts


def _episode(
    parts: list[tuple[int, int, str, str]],
    context: list[tuple[int, int, str, str]],
    speaker: str,
    when: tuple[date, str] | None,
    happened: bool,
) -> Reading:
    """The clauses about the speaker no pattern took, with the plain statements around them, as one memory."""
    extra = context[:MAX_CONTEXT_PARTS]
    pieces = sorted(parts[:MAX_EPISODE_PARTS] + extra)
    sentences: list[str] = []
    last: tuple[int, int] | None = None
    for index, position, joiner, text in pieces:
        if last is not None and index == last[0]:
            # Clauses of one sentence keep the word that joined them, when nothing came between.
            word = joiner if position == last[1] + 1 and joiner != "," else ""
            tail = text if text.startswith(speaker) else text[:1].lower() + text[1:]
            if not word:
                sentences[-1] += f", {tail}"
            else:
                sentences[-1] += f"{'' if word.startswith(',') else ' '}{word} {tail}"
        else:
            sentences.append(text)
        last = (index, position)
    body = ". ".join(sentences)
    if len(body) > MAX_EPISODE_CHARS:
        body = body[:MAX_EPISODE_CHARS].rsplit(" ", 1)[0].rstrip(",;:") + "…"
    topic = topic_of(body)
    return Reading(
        text=body,
        memory_type=MemoryType.EPISODIC if happened else MemoryType.SEMANTIC,
        topics=[topic or "episode"],
        kind="episode",
        event_date=when[0] if when else None,
        date_precision=when[1] if when else "",
        entities=_entities(body, speaker),
    )


def clean_config(config: dict[str, Any]) -> dict[str, Any]:
    unknown = set(config) - {"kinds"}
    if unknown:
        raise InvalidInput(
            f"unknown setting(s) for the offline strategy: {', '.join(sorted(unknown))}",
            details={"field": "extraction_config"},
        )
    if "kinds" not in config:
        return {}
    kinds = config["kinds"]
    if not isinstance(kinds, list) or not kinds or any(not isinstance(k, str) or k not in KINDS for k in kinds):
        raise InvalidInput(
            f"kinds must be a non-empty list of: {', '.join(KINDS)}", details={"field": "extraction_config.kinds"}
        )
    return {"kinds": list(dict.fromkeys(kinds))}


class OfflineStrategy:
    name = "offline"
    chunk_size = 500

    def __init__(self, config: dict[str, Any]) -> None:
        self.kinds = frozenset(config.get("kinds") or KINDS)

    def extract(self, batch: Batch) -> list[Candidate]:
        by_text: dict[tuple[str, str], Candidate] = {}
        for message in batch.messages:
            if message.role != "user" or not message.content:
                continue
            subject = " ".join(message.name.split())
            speaker = subject or DEFAULT_SPEAKER
            for reading in read_message(message.content, speaker, message.created_at.date(), self.kinds):
                key = (subject, reading.text)
                candidate = by_text.get(key)
                if candidate is not None:
                    if message.pk not in candidate.evidence:
                        candidate.evidence.append(message.pk)
                        candidate.stated_at = max(candidate.stated_at or message.created_at, message.created_at)
                    continue
                metadata: dict[str, Any] = {"strategy": self.name, "kind": reading.kind}
                if reading.date_precision:
                    metadata["date_precision"] = reading.date_precision
                by_text[key] = Candidate(
                    text=reading.text,
                    evidence=[message.pk],
                    memory_type=reading.memory_type,
                    topics=reading.topics,
                    entities=([subject] if subject else []) + [e for e in reading.entities if e != subject],
                    metadata=metadata,
                    subject=subject,
                    attribute=reading.attribute,
                    event_date=reading.event_date,
                    stated_at=message.created_at,
                )
        return list(by_text.values())
