"""Semantic near duplicates: the same fact in other words merges; adjacent but different facts never do."""

from __future__ import annotations

import pytest

from bench.paraphrase_pairs import DIFFERENT, SAME
from memoryadmin.memories.embeddings import WordLlamaEmbedder
from memoryadmin.memories.models import Memory
from memoryadmin.memories.paraphrase import same_fact
from memoryadmin.memories.services import NewMemory, Outcome, memory_create, memory_create_many
from tests.conftest import SYSTEM


def judged(pairs: list[tuple[str, str]]) -> list[bool]:
    embedder = WordLlamaEmbedder()
    verdicts = []
    for a, b in pairs:
        va, vb = embedder.embed([a, b])
        verdicts.append(same_fact(a, b, va, vb) and same_fact(b, a, vb, va))
    return verdicts


def test_the_gate_never_merges_a_different_fact_of_the_labelled_set() -> None:
    wrongly_merged = [pair for pair, merged in zip(DIFFERENT, judged(DIFFERENT), strict=True) if merged]
    assert wrongly_merged == []


def test_the_gate_merges_most_paraphrases_of_the_labelled_set() -> None:
    merged = judged(SAME)
    # Precision is the point (a wrong merge loses a fact); recall is measured (docs/benchmarks.md: 15 of 20).
    assert sum(merged) >= 15, [pair for pair, ok in zip(SAME, merged, strict=True) if not ok]


def remember(namespace, text: str, **kwargs):
    return memory_create(
        namespace=namespace, user_id="alice", text=text, actor=SYSTEM, merge_near_duplicates=True, **kwargs
    )


def test_a_paraphrase_merges_into_the_memory_it_repeats(namespace) -> None:
    first = remember(namespace, "User works as a nurse", topics=["work"])
    again = remember(namespace, "The user works as a nurse", topics=["job"])
    assert again.outcome is Outcome.MERGED and again.memory.pk == first.memory.pk
    assert again.memory.topics == ["work", "job"]
    assert Memory.objects.filter(namespace=namespace).count() == 1


@pytest.mark.parametrize("other", ["User used to live in Paris", "User lives in Paris", "User does not live in Lyon"])
def test_an_adjacent_fact_stays_a_memory_of_its_own(namespace, other) -> None:
    remember(namespace, "User lives in Lyon")
    assert remember(namespace, other).outcome is Outcome.CREATED


def test_a_text_near_two_different_facts_merges_into_neither(namespace) -> None:
    music = remember(namespace, "User likes jazz music")
    concerts = remember(namespace, "User likes jazz concerts")
    assert concerts.outcome is Outcome.CREATED  # not the same fact as the first
    # Each alone would take it; together they are not one fact, so it stays apart.
    assert remember(namespace, "User likes jazz").outcome is Outcome.CREATED
    assert music.memory.pk != concerts.memory.pk


def test_a_batch_merges_paraphrases_as_one_by_one_would(namespace) -> None:
    memory_create(namespace=namespace, user_id="alice", text="User plays the guitar", actor=SYSTEM)
    items = [
        NewMemory(user_id="alice", text="The user plays guitar"),
        NewMemory(user_id="alice", text="User plays the piano"),
        NewMemory(user_id="alice", text="User is vegetarian"),
        NewMemory(user_id="alice", text="The user is a vegetarian"),
    ]
    results = memory_create_many(namespace=namespace, actor=SYSTEM, items=items, merge_near_duplicates=True)
    assert [r.outcome for r in results] == ["merged", "created", "created", "merged"]
    assert results[3].memory.pk == results[2].memory.pk
    assert Memory.objects.filter(namespace=namespace).count() == 3
