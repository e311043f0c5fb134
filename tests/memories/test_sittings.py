"""A sitting: what was said within an hour of a memory. Its mates join the candidates beside the best
match, and every memory gains a little of the best relevance among its sitting's others."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from memoryadmin.memories.models import Memory
from memoryadmin.memories.queries import memories_search
from memoryadmin.memories.search import scoring
from memoryadmin.memories.search.candidates import Facts
from memoryadmin.memories.search.scoring import Candidate, sitting_support
from memoryadmin.memories.services import memory_create
from tests.conftest import SYSTEM


def said(namespace, text: str, when: datetime) -> Memory:
    result = memory_create(namespace=namespace, user_id="chat", text=text, actor=SYSTEM, stated_at=when)
    assert result.memory is not None
    return result.memory


def candidate(relevance: float, when: datetime | None) -> Candidate:
    now = datetime(2024, 1, 1, tzinfo=UTC)
    facts = Facts(uuid.uuid4(), "text", "fact", now, None, when, None, "", "")
    return Candidate(facts.id, facts, relevance=relevance)


def test_a_memory_gains_the_best_relevance_of_its_sitting() -> None:
    noon = datetime(2023, 5, 8, 12, tzinfo=UTC)
    strong = candidate(0.8, noon)
    beside = candidate(0.2, noon + timedelta(minutes=40))
    weak = candidate(0.1, noon - timedelta(minutes=30))
    alone = candidate(0.5, noon + timedelta(days=3))
    undated = candidate(0.9, None)
    sitting_support([strong, beside, weak, alone, undated])
    # The best of the others within the hour; none for a memory said alone or at no known time.
    assert (strong.sitting, beside.sitting, weak.sitting) == (0.2, 0.8, 0.8)
    assert (alone.sitting, undated.sitting) == (0.0, 0.0)


def test_a_sitting_holding_every_candidate_tells_none_apart() -> None:
    noon = datetime(2023, 5, 8, 12, tzinfo=UTC)
    together = [candidate(0.8, noon), candidate(0.2, noon + timedelta(minutes=10)), candidate(0.4, noon)]
    sitting_support(together)
    assert [c.sitting for c in together] == [0.0, 0.0, 0.0]


def test_what_was_said_beside_the_best_match_joins_it_in_other_words(namespace, monkeypatch) -> None:
    sitting = timezone.now() - timedelta(days=30)
    best = said(namespace, "John joined a march for veterans' rights.", sitting)
    # No word of the question, and too far from it in meaning to be a candidate of its own (cosine < 0.3).
    beside = said(namespace, "His grandfather served in the army for twenty years.", sitting + timedelta(minutes=5))
    elsewhere = said(namespace, "His grandfather fought in the war.", sitting + timedelta(days=9))
    said(namespace, "John adopted a puppy named Rex.", sitting + timedelta(days=9))

    def found() -> dict[str, dict]:
        page = memories_search(namespace, query="Why did John join the march?", user_id="chat", explain=True)
        assert page.items[0].memory.pk == best.pk
        return {hit.memory.text: hit.explain for hit in page.items}

    hits = found()
    assert hits[beside.text]["fulltext"] == 0 and hits[beside.text]["vector_query"] < 0.3
    assert hits[beside.text]["context"] and hits[beside.text]["sitting"] > 0
    # Said nine days later, the same kind of memory is no answer.
    assert elsewhere.text not in hits
    # Without the mates, the memory said beside is no candidate at all.
    monkeypatch.setattr("memoryadmin.memories.search.candidates.MATES", 0)
    assert beside.text not in found()


def test_the_sitting_weighs_its_share_of_the_relevance(namespace, monkeypatch) -> None:
    sitting = timezone.now() - timedelta(days=30)
    said(namespace, "John joined a march for veterans' rights.", sitting)
    beside = said(namespace, "John respects the military and stands up for what he believes in.", sitting)
    said(namespace, "John respects his coach and stands up for his teammates.", sitting + timedelta(days=9))
    monkeypatch.setattr(scoring, "CONTEXT_WEIGHT", 0.0)

    def relevance() -> tuple[float, float]:
        page = memories_search(namespace, query="Why did John join the march?", user_id="chat", explain=True)
        parts = next(hit.explain for hit in page.items if hit.memory.pk == beside.pk)
        return parts["relevance"], parts["sitting"]

    with_sitting, support = relevance()
    monkeypatch.setattr(scoring, "SITTING_WEIGHT", 0.0)
    without, _ = relevance()
    assert support > 0
    assert with_sitting == pytest.approx(without + 0.05 * support)
