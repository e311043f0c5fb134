"""The `offline` strategy (the default): what a careful reader keeps from a chat, without a model.

For every message a person sent (role `user`; in a group chat the message's `name` says who), with punctuation said
aloud written as marks (`dictated`) and names typed in lower case spelt as names (`names`):

1. the clauses they say about themselves are found (`speech`), less greetings, thanks, reactions, questions, what is
   addressed to the listener or said by others, and what is imagined, wished, hedged, negated or sarcastic;
2. each is rewritten in the third person under the speaker's name (the grammar of `strategies.grammar`, which the
   `rules` strategy shares), its "it" and "them" replaced by what they stand for (`antecedents`), with relative
   dates resolved against the message's `created_at` and written into the text (`dates`): "I went hiking yesterday"
   -> "Evan went hiking on 7 May 2023", the day stored as the memory's `event_date`;
3. a clause a pattern recognises (`facts`: possessions, moves, jobs, diet, health, relationships, plans,
   preferences, opinions about themselves) becomes a fact of its own, typed, with the attribute a later statement
   supersedes ("residence", "car"); "my new Prius" in passing also gives "Evan has a new Prius";
4. what else they told about themselves in that message becomes one `episodic` memory, attributed and dated;
5. a message that gave nothing above is kept as said, an `utterance` (`utterances`), unless nothing in it is worth
   finding again.

Each memory's evidence is the one message it came from (or each message that said the same thing).
docs/extraction.md lists what it takes and where it stops.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from memoryadmin.extraction.strategies.base import Batch, Candidate, ChoiceStrategy, KnownFact, SourceMessage
from memoryadmin.extraction.strategies.grammar import restore_subject, third_person
from memoryadmin.extraction.strategies.offline.addressed import apposed, as_told, is_request
from memoryadmin.extraction.strategies.offline.antecedents import (
    Phrase,
    has_pronoun,
    leans_on_pronoun,
    phrases_in,
    resolve,
)
from memoryadmin.extraction.strategies.offline.contacts import contacts_in
from memoryadmin.extraction.strategies.offline.dates import MONTHS, WEEKDAYS, find_dates, with_dates_written
from memoryadmin.extraction.strategies.offline.dictated import undictated
from memoryadmin.extraction.strategies.offline.facts import Kind, classify, topic_of
from memoryadmin.extraction.strategies.offline.gone import gone_in
from memoryadmin.extraction.strategies.offline.lexicon import STOPWORDS, word_set
from memoryadmin.extraction.strategies.offline.milestones import milestones_in
from memoryadmin.extraction.strategies.offline.names import spelt
from memoryadmin.extraction.strategies.offline.news import (
    employer_named,
    for_a_while,
    left_behind,
    news_kind,
    not_instead,
    partner_mentioned,
    partner_named,
    retires,
    speaker_left_out,
)
from memoryadmin.extraction.strategies.offline.restated import also_ends, restated
from memoryadmin.extraction.strategies.offline.speech import (
    addresses_listener,
    content_words,
    is_hedged,
    is_hypothetical,
    is_negated,
    read_clauses,
    words_of,
)
from memoryadmin.extraction.strategies.offline.things import possession_in
from memoryadmin.extraction.strategies.offline.utterances import (
    answers,
    is_scheduling_fragment,
    question_asked,
    utterance_text,
)
from memoryadmin.memories.models import MemoryType

DEFAULT_SPEAKER = "User"
MAX_EPISODE_PARTS = 5
MAX_EPISODE_CHARS = 600
MAX_CONTEXT_PARTS = 3
_MINE_FIRST = re.compile(r"\s*(?:and\s+|but\s+)?(?:mine|ours)\b(?!\s+(?:is|are|'s)\s+(?:a|an|the)\b)", re.IGNORECASE)
KINDS = ("facts", "episodes", "utterances")
# Facts that are short by nature ("I'm vegan", "I'm 34", "I'm single").
_SHORT_FACT_TOPICS = frozenset(
    {
        "identity",
        "diet",
        "relationships",
        "origin",
        "home",
        "health",
        "work",
        "self",
        "possessions",
        "contact",
        "education",
        "sports",
        "music",
        "routine",
        "fitness",
    }
)
# Sentence openers that are not names, beyond the function words.
_OPENING_COMMON = word_set(
    "check crazy feels feel love lots since there's here's it's what's let's looks look seems sounds guess "
    "anyway besides also still maybe perhaps sometimes luckily sadly honestly yesterday today tomorrow tonight"
)
_COURTESY = re.compile(
    r"\s*\bif\s+(?:you|u)\s+(?:need|want|lost|forgot|misplaced)\b.*$|\s*\bif\s+(?:needed|that\s+matters|it\s+matters|"
    r"that\s+helps)\b.*$",
    re.IGNORECASE,
)
_PROMISE = re.compile(r"^(?:i|we)(?:'ll|\s+will|\s+(?:can't|cannot)\s+wait)\b", re.IGNORECASE)
# A run of capitalised words ("Door Dash", "Bank of America"); a full stop ends it ("Samuel. It").
_CAPITALISED = re.compile(r"\b[A-Z][\w'&-]*(?:\.(?=\w))?(?:\s+(?:of|de|la|the|and)?\s*[A-Z][\w'&-]*)*")
_SENTENCE_START = re.compile(r"(?:^|[.!?…:]\s+|\n)$")
_NOT_ENTITIES = frozenset(
    {"I", "User", "They", "The", "A", "An", "It", "This", "That", "My", "On", "In", "And", "But", "So"}
    | {word.capitalize() for word in MONTHS + WEEKDAYS}
)
# Words that open a date phrase: "Next Friday" is a time, not a name.
_DATE_OPENERS = frozenset({"Next", "Last", "This", "Every", "Each", "Early", "Late", "Mid"})
_DATE_NAMES = frozenset(word.capitalize() for word in MONTHS + WEEKDAYS)


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
    # How much of event_date is known, as the memory's field says it (day, week, month, year).
    date_span: str = ""
    entities: list[str] = field(default_factory=list)
    # What the speaker says they left behind (`news.left_behind`).
    leaves: list[str] = field(default_factory=list)


def _entities(text: str, speaker: str) -> list[str]:
    """The names in a memory's text: runs of capitalised words, less the speaker, dates and the common word that
    opens a sentence ("Lately", "Check", "It's")."""
    found: list[str] = []
    for match in _CAPITALISED.finditer(text):
        words = match.group(0).strip(" .'").split()
        if words and _SENTENCE_START.search(text[: match.start()]) and _is_common(words[0]):
            words = words[1:]
        if words and (words[0] in _DATE_OPENERS or words[-1] in _DATE_NAMES):
            continue
        entity = " ".join(words)
        if entity and entity not in _NOT_ENTITIES and entity != speaker and not entity.startswith(speaker + "'"):
            found.append(entity)
    return list(dict.fromkeys(found))[:10]


def _is_common(word: str) -> bool:
    """A capitalised word that is most likely capitalised only because it opens a sentence."""
    low = word.lower()
    return low in STOPWORDS or low in _OPENING_COMMON or low.endswith(("ing", "ed", "ly", "'s", "n't"))


def _sentence_case(text: str) -> str:
    text = " ".join(text.split()).strip(" ,;:-")
    return text[:1].upper() + text[1:]


def read_message(
    content: str,
    speaker: str,
    today: date,
    kinds: frozenset[str] = frozenset(KINDS),
    before: list[Phrase] | None = None,
) -> list[Reading]:
    """What `speaker` told about themselves in one message, in the third person, dated against `today`.

    `before` holds the noun phrases of the message before this one, worded as the speaker would say
    them: what a pronoun at the start of this one may stand for (`antecedents`).
    """
    # Names typed in lower case are read as names ("moved to denver"); spelt twice, a text is the same.
    content = spelt(apposed(undictated(content)))
    facts: list[Reading] = []
    # What "it" and "them" may stand for, nearest last: the message before, then this one's earlier clauses.
    seen: list[Phrase] = list(before or [])
    inherited = bool(seen)
    pronouns = has_pronoun(content)
    parts: list[tuple[int, int, str, str]] = []
    context: list[tuple[int, int, str, str]] = []
    episode_date: tuple[date, str, str] | None = None
    # Whether what the episode tells happened (past, or dated), or is how things are ("I ride to work").
    happened = False
    kept: tuple[int, int] | None = None
    episode_leaves: list[str] = []
    for clause in read_clauses(content):
        said = clause.text
        if pronouns:
            resolved = resolve(said, seen)
            if inherited:
                # Past its first clause a message's pronouns stand for what it says itself, not the turn before.
                seen, inherited = [], False
            seen.extend(phrases_in(said, speaker, speaker))
            said = resolved
        left_out = speaker_left_out(said, past=clause.past) if clause.mode in ("other", "opinion") else None
        if clause.mode in ("other", "opinion") and left_out is None:
            if (
                not addresses_listener(clause.words)
                and not is_request(said)
                and not is_hypothetical(said, clause.words)
                and not is_negated(said, clause.words)
                and len(content_words(said)) >= 3
                and not is_scheduling_fragment(said)
            ):
                context.append(
                    (clause.sentence, clause.position, clause.joiner, _sentence_case(third_person(said, speaker)))
                )
            continue
        if left_out is not None:
            first_person, kind = left_out
        else:
            first_person = restore_subject(said) if clause.mode == "dropped" else said
            kind = classify(first_person, past=clause.past)
            if kind is None or not kind.attribute:
                kind = news_kind(first_person, past=clause.past) or kind
        if kind is not None and kind.topic == "possessions" and kind.attribute and not_instead(content):
            kind = Kind(kind.memory_type, kind.topic, "", kind.negation_ok, kind.value)
        if kind is not None and kind.attribute and for_a_while(first_person):
            # "I'm acting audit manager for two weeks": the value the speaker had stays current.
            kind = Kind(kind.memory_type, kind.topic, "", kind.negation_ok, kind.value)
        words = clause.words if first_person is said else words_of(first_person)
        # "I'm single, not really looking", "We got married, can you help me with the cards?", "My number is
        # 07700 900123 if you need it": what follows the fact is about something else.
        head = _COURTESY.sub("", first_person.split(",", 1)[0]) if kind is not None and kind.attribute else first_person
        head_words = words if head is first_person else words_of(head)
        # "You can reach me on 07700 900123" speaks to the listener, and gives the speaker's number.
        contact = kind is not None and kind.topic == "contact"
        # "I think ramen is my favourite food now" is no hedge of a taste.
        favourite = kind is not None and kind.attribute.startswith("favourite")
        if (is_hedged(first_person) and not favourite) or (addresses_listener(head_words) and not contact):
            continue
        if is_hypothetical(head, head_words):
            continue
        if is_negated(head, head_words) and not (kind and kind.negation_ok):
            # "My iPhone 12 won't charge past 80%" still says which phone the speaker has (not "so I don't lose my
            # iPhone", which names it only as something to keep).
            opens_with_it = first_person.lower().startswith(("my ", "our "))
            owned = _owned(first_person, speaker) if "facts" in kinds and opens_with_it else None
            facts.extend([owned] if owned is not None else [])
            continue
        mentions = find_dates(first_person, today, past=clause.past)
        substance = len(content_words(first_person, speaker))
        if _MINE_FIRST.match(first_person):
            continue  # "mine keeps coming on": what "mine" is was in the turn it answers
        if pronouns and substance < 4 and not (kind and kind.attribute) and leans_on_pronoun(first_person):
            continue  # "I'm going to try making it": a fragment that says nothing without its turn
        # "…broke down, so I sold it": a short clause that goes on from a kept one is kept with it.
        follows_kept = kept == (clause.sentence, clause.position - 1)
        # "I'm going to make it": too little to be a fact; "I love jazz" is enough for a taste.
        too_little = substance < (1 if kind is not None and kind.topic == "preferences" else 2)
        if kind is not None and kind.topic not in _SHORT_FACT_TOPICS and too_little:
            kind = None
        if kind is not None and kind.topic == "plans" and not mentions and _PROMISE.match(first_person):
            continue  # "I'll check it out": a promise to the listener, unless it has a date
        first_person = as_told(first_person)
        text = _sentence_case(third_person(with_dates_written(first_person, mentions), speaker, past=clause.past))
        leaves = left_behind(first_person)
        when = (mentions[0].day, mentions[0].precision, mentions[0].span) if mentions else None
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
                    date_span=when[2] if when else "",
                    entities=_entities(text, speaker),
                    leaves=leaves,
                )
            )
        elif (
            (substance >= 2 or mentions or (substance and follows_kept))
            and "episodes" in kinds
            and (kind is None or kind.topic != "plans")
        ):
            parts.append((clause.sentence, clause.position, clause.joiner, text))
            episode_leaves.extend(leaves)
            kept = (clause.sentence, clause.position)
            happened = happened or clause.past or bool(mentions)
            if when and episode_date is None:
                episode_date = when
        partner = partner_named(first_person) if kind is not None and "facts" in kinds else None
        if partner and kind.attribute != "partner":
            facts.append(_also(f"{speaker}'s partner is {partner}", "relationships", "partner", [partner]))
        if kind is not None and kind.attribute == "employer" and "facts" in kinds and retires(first_person):
            facts.append(_also(f"{speaker} is retired", "work", "occupation"))
        employer = employer_named(first_person) if kind is not None and kind.attribute == "occupation" else ""
        if employer and "facts" in kinds:
            facts.append(_also(f"{speaker} works at {employer}", "work", "employer", [employer]))
        owned = _owned(first_person, speaker) if "facts" in kinds else None
        if owned is not None and not (kind and kind.attribute == owned.attribute):
            facts.append(owned)
    if parts:
        episode = _episode(parts, context, speaker, episode_date, happened)
        episode.leaves = list(dict.fromkeys(episode_leaves))
        facts.append(episode)
    if "facts" in kinds:
        facts.extend(_contacts(content, speaker, facts))
        facts.extend(_milestones(content, speaker, facts))
    return facts


def _milestones(content: str, speaker: str, facts: list[Reading]) -> list[Reading]:
    """The milestones the message tells ("HE PROPOSED… I said yes"), unless a fact of the clauses states them (not one
    that only leaves a value behind: "handed in my notice at Harrow & Finch, started at Studio Mereth"); of two of one
    attribute, the first."""
    said = {f.attribute for f in facts if not f.leaves}
    found = []
    beside = not_instead(content)
    for topic, attribute, text in milestones_in(content, speaker):
        if beside and topic == "possessions":
            continue
        if attribute not in said:
            said.add(attribute)
            found.append(_also(text, topic, attribute))
    return found


def _contacts(content: str, speaker: str, facts: list[Reading]) -> list[Reading]:
    """The speaker's email, phone number and partner given in passing, unless a fact of the clauses says them."""
    said = {f.attribute for f in facts}
    partner = partner_mentioned(content) if not {"partner", "relationship_status"} & said else ""
    readings = [_also(f"{speaker}'s partner is {partner}", "relationships", "partner", [partner])] if partner else []
    for attribute, value in contacts_in(content):
        if any(f.attribute == attribute for f in [*facts, *readings]):
            continue
        name = "email" if attribute == "email" else "phone number"
        readings.append(_also(f"{speaker}'s {name} is {value}", "contact", attribute))
    return readings


def _owned(clause: str, speaker: str) -> Reading | None:
    """The thing of a single-valued kind the clause names as the speaker's ("…in my new Prius"), as a fact."""
    possession = possession_in(clause)
    if possession is None:
        return None
    attribute, thing = possession
    return _also(f"{speaker} has {thing}", "possessions", attribute, _entities(thing, speaker))


def _also(text: str, topic: str, attribute: str, entities: list[str] | None = None) -> Reading:
    """A fact a clause gives besides its own: "Pat is retired", "Pat's partner is Alex", "Pat has a new Prius"."""
    return Reading(
        text=text,
        memory_type=MemoryType.SEMANTIC,
        topics=[topic],
        kind="fact",
        attribute=attribute,
        entities=entities or [],
    )


def _episode(
    parts: list[tuple[int, int, str, str]],
    context: list[tuple[int, int, str, str]],
    speaker: str,
    when: tuple[date, str, str] | None,
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
        date_span=when[2] if when else "",
        entities=_entities(body, speaker),
    )


def _phrases_before(message: SourceMessage, speaker: str) -> list[Phrase]:
    """The noun phrases of the message before, worded as `speaker` would say them."""
    said_by = " ".join(message.name.split()) or (DEFAULT_SPEAKER if message.role == "user" else "the assistant")
    return phrases_in(message.content, said_by, speaker)


def _question_before(earlier: SourceMessage | None, message: SourceMessage) -> tuple[str, str] | None:
    """(who asked, the question) when the turn before, by someone else, asked one."""
    if earlier is None or not earlier.content or earlier.role not in ("user", "assistant"):
        return None
    asker = " ".join(earlier.name.split()) or ("User" if earlier.role == "user" else "Assistant")
    if (earlier.role, asker) == (message.role, " ".join(message.name.split()) or "User"):
        return None
    question = question_asked(earlier.content)
    return (asker, question) if question else None


def _utterance(content: str, subject: str, asked: tuple[str, str] | None = None) -> list[Reading]:
    """The turn as said, when it holds something worth finding again (with the question it answers)."""
    text = utterance_text(content, subject, asked)
    if text is None:
        return []
    return [Reading(text=text, memory_type=MemoryType.UTTERANCE, topics=[], kind="utterance")]


def _lead_with_gone(readings: list[Reading], gone: list[str]) -> None:
    """What the message says is gone, carried by its first fact (else its first memory): the run replaces the
    speaker's facts that name it. A partner named in their break-up ("my boyfriend Tom and I split up") is none."""
    if not gone:
        return
    readings[:] = [r for r in readings if r.attribute != "partner" or not any(g in r.text for g in gone)] or readings
    carrier = next((r for r in readings if r.attribute), readings[0])
    carrier.leaves = list(dict.fromkeys([*carrier.leaves, *gone]))


class OfflineStrategy(ChoiceStrategy):
    name = "offline"
    setting = "kinds"
    choices = KINDS
    # The speakers' current facts: what a fact said again restates (`restated`).
    wants_known_facts = True

    def extract(self, batch: Batch) -> list[Candidate]:
        by_text: dict[tuple[str, str], Candidate] = {}
        said: dict[str, list[KnownFact]] = {}
        previous = None
        for message in batch.messages:
            earlier, previous = previous, message
            if message.role != "user" or not message.content:
                continue
            subject = " ".join(message.name.split())
            speaker = subject or DEFAULT_SPEAKER
            before = _phrases_before(earlier, speaker) if earlier and has_pronoun(message.content) else None
            content = spelt(undictated(message.content))  # marks said aloud written; an utterance is as typed
            readings = read_message(content, speaker, message.created_at.date(), self.chosen, before)
            if "utterances" in self.chosen:
                asked = _question_before(earlier, message)
                if not readings or (asked is not None and not answers(asked[1], [r.text for r in readings])):
                    readings = [*readings, *_utterance(message.content, subject, asked)]
            if readings and "facts" in self.chosen:
                _lead_with_gone(readings, gone_in(content))
                # What the batch's earlier messages stated counts as known too, the latest first.
                restated(readings, [*said.get(subject, [])[::-1], *(k for k in batch.known if k.subject == subject)])
                said.setdefault(subject, []).extend(
                    KnownFact(ref="", memory_id="", text=r.text, subject=subject, attribute=r.attribute)
                    for r in readings
                    if r.attribute
                )
            for reading in readings:
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
                    event_date_precision=reading.date_span,
                    stated_at=message.created_at,
                    leaves=reading.leaves,
                    replaces=also_ends(reading.attribute, reading.text, subject, batch.known),
                )
        return list(by_text.values())


clean_config = OfflineStrategy.clean_config
