"""Scoring: each candidate's components, their fusion, and the ranking.

- `fulltext`: from the first statement (candidates.py).
- `vector`: the cosine of the memory's vector and the question's, the question's moved towards
  its FEEDBACK best candidates (pseudo-relevance feedback, Rocchio's: a question's vector is
  mostly its question words, its best answers' vectors say what it is about).
- `terms`: for each question word, its closest word in the memory by WordLlama word vectors
  (1.0 for the same word, less for a related one: "pet" ~ "dog"; MEMBER_WEIGHT for a member of
  the category it names), weighted as in `fulltext`.

relevance = 0.3 * fulltext + 0.2 * vector + 0.5 * terms (each in [0, 1]; the weights were chosen
on LoCoMo conversations, see docs/search.md), then:

- times: when the question names times, a memory said (or whose event happened) away from them
  keeps 1 - DATE_WEIGHT * (1 - affinity) of its relevance, where affinity halves every
  `tolerance` days of distance (half the period, at least DATE_TOLERANCE_DAYS): a preference,
  never a filter; a question asking for the time alone ("what did sam do in november?") keeps
  `affinity` of it, so what is said or happened then comes first, whatever else matches its names;
- an utterance (a turn kept as said, from which extraction drew no fact) counts UTTERANCE_WEIGHT
  of its relevance: a fact stated outranks the chat it came from;
- when the question names a person its candidates are about ("What does Melanie do to
  destress?"), a memory about another of them ("Caroline ...") counts OTHER_PERSON_WEIGHT of its
  relevance: people_asked below;
- when the question asks what someone likes (or dislikes), a memory saying the opposite ("Alice
  dislikes spicy food" for "What food does Alice like?") counts OPPOSITE_SENTIMENT_WEIGHT of its
  relevance (sentiment.py);
- a memory stating an attribute the question asks about ("Where does she work?": `employer`,
  attributes.py) holds the words that asked it (its `fulltext` and `terms` count them as matched)
  and gains ATTRIBUTE_WEIGHT, before the factors below: the person's current value answers,
  whatever its words, ahead of what only shares them ("User's work laptop broke");
- a memory giving the person's own name (attribute `name`: "User's name is Sam") counts
  OWN_NAME_WEIGHT of its relevance unless the question asks for a name: "Where does Sam work?"
  matches it only by whose work it asks about;
- a memory gains SITTING_WEIGHT times the relevance of the best other memory said within
  CONTEXT_WINDOW of it (its sitting): sitting_support below;
- a memory said within CONTEXT_WINDOW of the best match (it included) gains CONTEXT_WEIGHT times
  the best match's relevance: said_beside below. A sitting mate (a memory read only because it was
  said beside a likely best match, candidates.candidate_rows) is kept only when it is beside the best.

score = text_weight * relevance + recency_weight * recency (Recency below).
"""

from __future__ import annotations

import math
import uuid
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from functools import lru_cache
from typing import Any

import numpy as np

from memoryadmin.core.errors import InvalidInput
from memoryadmin.memories.embeddings import content_words, word_vectors
from memoryadmin.memories.models import DatePrecision, MemoryType
from memoryadmin.memories.search.attributes import asking
from memoryadmin.memories.search.candidates import SITTING, Facts
from memoryadmin.memories.search.categories import MEMBER_WEIGHT, member_pattern
from memoryadmin.memories.search.inflections import base_word
from memoryadmin.memories.search.periods import Period
from memoryadmin.memories.search.query import leading_name
from memoryadmin.memories.search.sentiment import sentiment

WEIGHTS = {"fulltext": 0.3, "vector": 0.2, "terms": 0.5}
# Pseudo-relevance feedback: the query's vector plus FEEDBACK_WEIGHT times the mean vector of the
# FEEDBACK best candidates of a first ranking (common Rocchio proportions, not tuned to a data set).
FEEDBACK = 3
FEEDBACK_WEIGHT = 0.5
DATE_WEIGHT = 0.5
# Added to the relevance of a memory stating an attribute the question asks about (attributes.py).
ATTRIBUTE_WEIGHT = 0.15
# A memory giving the person's name, for a question that asks no name: its name matches the question's only as
# whose the question is about.
OWN_NAME_WEIGHT = 0.5
_NAME_ASKED = frozenset({"name", "names", "named", "surname", "nickname", "firstname"})
DATE_TOLERANCE_DAYS = 3
UTTERANCE_WEIGHT = 0.85
OTHER_PERSON_WEIGHT = 0.8
OPPOSITE_SENTIMENT_WEIGHT = 0.6
# What was said in the same sitting as the best match is its context (said_beside).
CONTEXT_WEIGHT = 0.15
CONTEXT_WINDOW = SITTING
# What the best other memory of a memory's sitting tells of it (sitting_support).
SITTING_WEIGHT = 0.05
# 0.5 ** 1000 is still a normal double; beyond it the decay underflows.
MAX_HALF_LIVES = 1000
# The bounds of a search's recency settings: a half-life of up to a century, weights up to 1000.
MAX_HALF_LIFE_DAYS = 36500
MAX_WEIGHT = 1000
# A memory word at least this close to a query word is shown as a reason for the match.
_SHOWN_SIMILARITY = 0.5


@dataclass(frozen=True)
class Recency:
    """How search blends relevance with how recently a memory was used and written.

    recency = access_weight * 0.5^(days since last access / access_half_life_days)
            + creation_weight * 0.5^(days since creation / freshness_half_life_days)
    score   = text_weight * relevance + recency_weight * recency
    A memory never accessed counts from its creation. Recency is the memory's life in the store
    (history imported today is as fresh as today's chat); when it was said is the dates' part.
    """

    enabled: bool = True
    access_half_life_days: float = 7.0
    freshness_half_life_days: float = 30.0
    access_weight: float = 0.6
    creation_weight: float = 0.4
    text_weight: float = 0.8
    recency_weight: float = 0.2

    def __post_init__(self) -> None:
        for name in ("access_half_life_days", "freshness_half_life_days"):
            if not 0 < getattr(self, name) <= MAX_HALF_LIFE_DAYS:
                raise InvalidInput(
                    f"recency.{name} must be > 0 and <= {MAX_HALF_LIFE_DAYS}", details={"field": f"recency.{name}"}
                )
        for name in ("access_weight", "creation_weight", "text_weight", "recency_weight"):
            if not 0 <= getattr(self, name) <= MAX_WEIGHT:
                raise InvalidInput(
                    f"recency.{name} must be between 0 and {MAX_WEIGHT}", details={"field": f"recency.{name}"}
                )

    def of(self, reference: datetime, created_at: datetime, last_accessed_at: datetime | None) -> float:
        def decay(since: datetime, half_life: float) -> float:
            days = max((reference - since).total_seconds() / 86400, 0.0)
            return 0.5 ** min(days / half_life, MAX_HALF_LIVES)

        accessed = last_accessed_at or created_at
        return self.access_weight * decay(accessed, self.access_half_life_days) + self.creation_weight * decay(
            created_at, self.freshness_half_life_days
        )


@dataclass
class Candidate:
    id: uuid.UUID
    facts: Facts
    fulltext: float = 0.0
    vector: float | None = None
    terms: float = 0.0
    dates: float | None = None
    relevance: float = 0.0
    recency: float | None = None
    score: float = 0.0
    # The memory's (approximate) vector, for feedback, and its similarity to the query alone.
    embedding: np.ndarray | None = None
    vector_query: float | None = None
    matches: list[dict[str, Any]] = field(default_factory=list)
    # About another person than the one the question names (people_asked).
    about_other: bool = False
    # Says the opposite of the liking or disliking the question asks about.
    opposite_sentiment: bool = False
    # The person's own name ("User's name is Sam"), when the question does not ask for a name.
    own_name: bool = False
    # It states an attribute the question asks about ("Where does she work?": employer; attributes.py).
    attribute_asked: bool = False
    # Said in the same sitting as the best match (said_beside).
    context: bool = False
    # The relevance of the best other memory said in its sitting (sitting_support).
    sitting: float = 0.0
    # Read only as a memory said beside a likely best match (candidates.candidate_rows).
    mate: bool = False


@lru_cache(maxsize=50_000)
def _text_words(text: str) -> tuple[str, ...]:
    """A memory's content words (cached: the same memories come back search after search)."""
    return tuple(content_words(text, limit=200))


def term_similarity(
    words: list[str],
    weights: np.ndarray,
    texts: list[str],
    *,
    categories: list[bool] | None = None,
    with_matches: bool = False,
) -> tuple[np.ndarray, list[list[dict[str, Any]]]]:
    """For each text: the weighted mean, over query words, of the closest word's similarity.

    A word that names a category (`categories`) is at least MEMBER_WEIGHT close to a text naming
    one of its members. With `with_matches`, also the query words each text comes close to.
    """
    scores = np.zeros(len(texts), dtype=np.float64)
    matches: list[list[dict[str, Any]]] = [[] for _ in texts]
    if not words or not texts or weights.sum() <= 0:
        return scores, matches
    per_text = [_text_words(text) for text in texts]
    flat = [w for text_words in per_text for w in text_words]
    closest = np.zeros((len(words), len(texts)), dtype=np.float64)
    filled = [i for i, text_words in enumerate(per_text) if text_words]
    similarity = np.zeros((len(words), 0))
    starts: list[int] = []
    if flat:
        # Irregular forms are compared as their base word: "won" is "win" (inflections.py).
        matrix, rows = word_vectors.rows([base_word(w) for w in (*words, *flat)])
        vectors = matrix[rows]
        similarity = np.clip(vectors[: len(words)] @ vectors[len(words) :].T, 0.0, 1.0)
        start = 0
        for text_words in per_text:
            starts.append(start)
            start += len(text_words)
        if filled:
            closest[:, filled] = np.maximum.reduceat(similarity, [starts[i] for i in filled], axis=1)
    for j, word in enumerate(words):
        if categories and categories[j]:
            pattern = member_pattern(word)
            if pattern is not None:
                for i, text in enumerate(texts):
                    if closest[j, i] < MEMBER_WEIGHT and pattern.search(text):
                        closest[j, i] = MEMBER_WEIGHT
    scores = (weights[:, None] * closest).sum(axis=0) / weights.sum()
    if with_matches:
        for i in filled:
            segment = similarity[:, starts[i] : starts[i] + len(per_text[i])]
            best = segment.argmax(axis=1)
            found = [
                {"query": word, "memory": per_text[i][best[j]], "similarity": round(float(closest[j, i]), 3)}
                for j, word in enumerate(words)
                if closest[j, i] >= _SHOWN_SIMILARITY
            ]
            found.sort(key=lambda m: -m["similarity"])
            matches[i] = found
    return scores, matches


def people_asked(candidates: list[Candidate], names: frozenset[str]) -> None:
    """Mark the candidates about another person than the ones the question names.

    The people are the names at least two candidates lead with, as memories written in the third
    person do ("Melanie signed up for a pottery class"); a question naming one of them asks about
    them. A memory leading with another of them is about someone else (a friend's plans in a
    chat between two people); one leading with no name, or a name no other memory leads with,
    is left alone, and so is a question naming none of them. Utterances lead with their
    speaker, not their subject, and are left alone too.
    """
    if not names:
        return
    leads: list[str | None] = []
    counts: dict[str, int] = {}
    for candidate in candidates:
        lead = leading_name(candidate.facts.text) if candidate.facts.memory_type != MemoryType.UTTERANCE else None
        leads.append(lead)
        if lead is not None:
            counts[lead] = counts.get(lead, 0) + 1
    people = {name for name, count in counts.items() if count >= 2}
    if not names & people:
        return
    for candidate, lead in zip(candidates, leads, strict=True):
        candidate.about_other = lead in people and lead not in names


def said_beside(candidates: list[Candidate], best: Candidate) -> None:
    """Mark the candidates said within CONTEXT_WINDOW of the best one, it included.

    A question about an event is often answered beside it, in other words: why it happened,
    how it felt, what came of it ("What inspired John to join the march?" is answered by what
    he said around "John joined a march for veterans' rights", not by the march). The best
    match's sitting (its `stated_at`, to within the window) is where the rest of its story was
    told. When every candidate was said in that window (memories written together, a history
    imported at one time) it tells none apart, and nothing is marked.
    """
    said = best.facts.stated_at
    if said is None:
        return
    beside = [c.facts.stated_at is not None and abs(c.facts.stated_at - said) <= CONTEXT_WINDOW for c in candidates]
    if all(beside):
        return
    for candidate, near in zip(candidates, beside, strict=True):
        candidate.context = near


def sitting_support(candidates: list[Candidate]) -> None:
    """Set each candidate's `sitting`: the relevance of the best other candidate said within CONTEXT_WINDOW of it.

    Memories said together tell one story, and a memory whose sitting holds a good match is more
    likely relevant than one said alone (cluster-based retrieval: a document is scored with its
    neighbours). When every candidate was said within one window, it tells none apart and none gains.
    """
    said = np.array(
        [c.facts.stated_at.timestamp() if c.facts.stated_at is not None else np.nan for c in candidates],
        dtype=np.float64,
    )
    known = ~np.isnan(said)
    window = CONTEXT_WINDOW.total_seconds()
    if known.sum() < 2 or (known.all() and said.max() - said.min() <= window):
        return
    relevance = np.array([c.relevance for c in candidates], dtype=np.float64)
    with np.errstate(invalid="ignore"):
        beside = np.abs(said[:, None] - said[None, :]) <= window
    np.fill_diagonal(beside, False)
    support = np.where(beside, relevance[None, :], 0.0).max(axis=1)
    for candidate, value in zip(candidates, support, strict=True):
        candidate.sitting = float(value)


_PRECISION_DAYS = {
    DatePrecision.DAY: 1,
    DatePrecision.WEEK: 7,
    DatePrecision.MONTH: 31,
    DatePrecision.YEAR: 366,
}


def _days_after(day: date, days: int) -> date:
    """`days` after `day`, or the calendar's last day for a day at its end (an event on 31 December 9999)."""
    return day + timedelta(days=days) if day <= date.max - timedelta(days=days) else date.max


def date_affinity(periods: list[Period], memory: Facts) -> float:
    """How near the question's times a memory was said, or its event happened: 1.0 within them."""
    spans: list[tuple[date, date]] = []
    if memory.stated_at is not None:
        said = memory.stated_at.date()
        spans.append((said, _days_after(said, 1)))
    if memory.event_date is not None:
        length = _PRECISION_DAYS.get(memory.event_date_precision or DatePrecision.DAY, 1)
        spans.append((memory.event_date, _days_after(memory.event_date, length)))
    if not spans:
        return 0.0
    best = 0.0
    for period in periods:
        tolerance = max(DATE_TOLERANCE_DAYS, period.days / 2)
        for start, end in spans:
            best = max(best, 0.5 ** min(period.distance(start, end) / tolerance, MAX_HALF_LIVES))
    return best


def rank(
    candidates: list[Candidate],
    *,
    words: list[str],
    categories: list[bool],
    names: frozenset[str] = frozenset(),
    asked_sentiment: int = 0,
    idf: list[float | None],
    vector: np.ndarray | None,
    periods: list[Period],
    recency: Recency,
    reference: datetime,
    with_matches: bool,
    weights: dict[str, float],
    asks_period: bool = False,
) -> list[Candidate]:
    """The candidates scored and ranked, twice when there are vectors: the second time by the fed-back query."""
    if not candidates:
        return []
    with_vectors = vector is not None
    # Words PostgreSQL does not index (its stop words) and words no memory has weigh like the rarest.
    known = [w for w in idf if w is not None]
    heaviest = max(known, default=1.0)
    word_weights = np.array([heaviest if w is None else max(w, 0.0) for w in idf], dtype=np.float64)
    if word_weights.sum() <= 0:
        word_weights = np.ones(len(words))
    terms, matches = term_similarity(
        words,
        word_weights,
        [c.facts.text for c in candidates],
        categories=categories,
        with_matches=with_matches,
    )
    in_use = {name: w for name, w in weights.items() if with_vectors or name != "vector"}
    people_asked(candidates, names)
    # "Where does Sam work?" names whose work, and "User's name is Sam" is no answer to it.
    if not _NAME_ASKED.intersection(words):
        for candidate in candidates:
            candidate.own_name = candidate.facts.attribute == "name"
    if asked_sentiment:
        for candidate in candidates:
            candidate.opposite_sentiment = sentiment(candidate.facts.text) == -asked_sentiment
    for candidate, term, matched in zip(candidates, terms, matches, strict=True):
        candidate.terms = float(term)
        candidate.matches = matched
        candidate.vector_query = candidate.vector
        if periods:
            candidate.dates = date_affinity(periods, candidate.facts)
        if recency.enabled:
            candidate.recency = recency.of(reference, candidate.facts.created_at, candidate.facts.last_accessed_at)
    _attribute_words_matched(candidates, words, word_weights)
    date_weight = 1.0 if asks_period else DATE_WEIGHT
    ranked = _scored(candidates, in_use, recency, date_weight)
    if with_vectors and in_use["vector"] > 0:
        best = [c.embedding for c in ranked[:FEEDBACK] if c.embedding is not None]
        if best:
            fed_back = vector + FEEDBACK_WEIGHT * np.mean(best, axis=0)  # type: ignore[operator]
            fed_back /= np.linalg.norm(fed_back) or 1.0
            for candidate in candidates:
                if candidate.embedding is not None:
                    candidate.vector = float(candidate.embedding @ fed_back)
            ranked = _scored(candidates, in_use, recency, date_weight)
    sitting_support(candidates)
    if any(c.sitting for c in candidates):
        ranked = _scored(candidates, in_use, recency, date_weight)
    best = ranked[0]
    said_beside(candidates, best)
    if best.context:
        ranked = _scored(candidates, in_use, recency, date_weight, context=CONTEXT_WEIGHT * best.relevance)
    # A sitting mate was read for the best match's context: away from it, it is no candidate.
    return [c for c in ranked if c.context or not c.mate]


def _attribute_words_matched(candidates: list[Candidate], words: list[str], word_weights: np.ndarray) -> None:
    """A memory stating an attribute the question asks about holds the words that asked it: "where does she
    work?" matches "User is starting at KPMG" (employer) on "work" as fully as "User's work laptop broke"."""
    total = float(word_weights.sum()) or 1.0
    for candidate in candidates:
        if candidate.attribute_asked:
            asked = asking(candidate.facts.attribute, words)
            share = sum(float(weight) for weight, its in zip(word_weights, asked, strict=True) if its) / total
            candidate.fulltext = min(1.0, candidate.fulltext + share)
            candidate.terms = min(1.0, (candidate.terms or 0.0) + share)


def _scored(
    candidates: list[Candidate],
    weights: dict[str, float],
    recency: Recency,
    date_weight: float = DATE_WEIGHT,
    *,
    context: float = 0.0,
) -> list[Candidate]:
    """The candidates' relevance and score from their components (`context` added to those marked), best first."""
    total = sum(weights.values()) or 1.0
    for candidate in candidates:
        relevance = weights["fulltext"] * candidate.fulltext + weights["terms"] * candidate.terms
        if "vector" in weights:
            relevance += weights["vector"] * max(candidate.vector or 0.0, 0.0)
        relevance /= total
        if candidate.attribute_asked:
            relevance += ATTRIBUTE_WEIGHT
        if candidate.dates is not None:
            relevance *= 1.0 - date_weight * (1.0 - candidate.dates)
        if candidate.facts.memory_type == MemoryType.UTTERANCE:
            relevance *= UTTERANCE_WEIGHT
        if candidate.about_other:
            relevance *= OTHER_PERSON_WEIGHT
        if candidate.opposite_sentiment:
            relevance *= OPPOSITE_SENTIMENT_WEIGHT
        if candidate.own_name:
            relevance *= OWN_NAME_WEIGHT
        relevance += SITTING_WEIGHT * candidate.sitting
        if candidate.context:
            relevance += context
        candidate.relevance = relevance
        if candidate.recency is not None:
            candidate.score = recency.text_weight * relevance + recency.recency_weight * candidate.recency
        else:
            candidate.score = relevance
        if not math.isfinite(candidate.score):
            candidate.score = 0.0
    return sorted(candidates, key=lambda c: (c.score, c.id), reverse=True)


def explained(candidate: Candidate) -> dict[str, Any]:
    return {
        "fulltext": candidate.fulltext,
        "vector": candidate.vector,
        "vector_query": candidate.vector_query,
        "terms": candidate.terms,
        "dates": candidate.dates,
        "relevance": candidate.relevance,
        "recency": candidate.recency,
        "about_other": candidate.about_other,
        "opposite_sentiment": candidate.opposite_sentiment,
        "own_name": candidate.own_name,
        "attribute_asked": candidate.attribute_asked,
        "context": candidate.context,
        "sitting": candidate.sitting,
        "matches": candidate.matches,
    }
