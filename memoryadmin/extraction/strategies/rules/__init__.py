"""The `rules` strategy: offline, deterministic extraction of first-person facts.

It reads only what the user says about themselves, one clause at a time, and
writes each fact in the third person ("User lives in Lyon"). A clause counts
only when its first words are the user's own ("I live in…", "my name is…");
questions, hypotheticals, reported speech and statements about other people
are left alone. docs/extraction.md lists the patterns and their limits.

The patterns and word lists are in `patterns`, the reading of a message in `matching`.
"""

from __future__ import annotations

from memoryadmin.extraction.strategies.base import Batch, Candidate, ChoiceStrategy
from memoryadmin.extraction.strategies.rules.matching import Fact, facts_in, third_person
from memoryadmin.extraction.strategies.rules.patterns import CATEGORIES

__all__ = ["CATEGORIES", "Fact", "RulesStrategy", "clean_config", "facts_in", "third_person"]


class RulesStrategy(ChoiceStrategy):
    name = "rules"
    setting = "categories"
    choices = CATEGORIES

    def extract(self, batch: Batch) -> list[Candidate]:
        by_text: dict[str, Candidate] = {}
        for message in batch.messages:
            if message.role != "user" or not message.content:
                continue
            for fact in facts_in(message.content, self.chosen):
                candidate = by_text.get(fact.text)
                if candidate is None:
                    by_text[fact.text] = Candidate(
                        text=fact.text,
                        evidence=[message.pk],
                        memory_type=fact.memory_type,
                        topics=list(fact.topics),
                        entities=list(fact.entities),
                        metadata={"rule": fact.category},
                    )
                elif message.pk not in candidate.evidence:
                    candidate.evidence.append(message.pk)
        return list(by_text.values())


clean_config = RulesStrategy.clean_config
