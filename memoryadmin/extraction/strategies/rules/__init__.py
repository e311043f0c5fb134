"""The `rules` strategy: offline, deterministic extraction of first-person facts.

It reads only what the user says about themselves, one clause at a time, and
writes each fact in the third person ("User lives in Lyon"). A clause counts
only when its first words are the user's own ("I live in…", "my name is…");
questions, hypotheticals, reported speech and statements about other people
are left alone. docs/extraction.md lists the patterns and their limits.

The patterns and word lists are in `patterns`, the reading of a message in `matching`.
"""

from __future__ import annotations

from typing import Any

from memoryadmin.core.errors import InvalidInput
from memoryadmin.extraction.strategies.base import Batch, Candidate
from memoryadmin.extraction.strategies.rules.matching import Fact, facts_in, third_person
from memoryadmin.extraction.strategies.rules.patterns import CATEGORIES

__all__ = ["CATEGORIES", "Fact", "RulesStrategy", "clean_config", "facts_in", "third_person"]


def clean_config(config: dict[str, Any]) -> dict[str, Any]:
    unknown = set(config) - {"categories"}
    if unknown:
        raise InvalidInput(
            f"unknown setting(s) for the rules strategy: {', '.join(sorted(unknown))}",
            details={"field": "extraction_config"},
        )
    if "categories" not in config:
        return {}
    categories = config["categories"]
    if (
        not isinstance(categories, list)
        or not categories
        or any(not isinstance(c, str) or c not in CATEGORIES for c in categories)
    ):
        raise InvalidInput(
            f"categories must be a non-empty list of: {', '.join(CATEGORIES)}",
            details={"field": "extraction_config.categories"},
        )
    return {"categories": list(dict.fromkeys(categories))}


class RulesStrategy:
    name = "rules"
    chunk_size = 500

    def __init__(self, config: dict[str, Any]) -> None:
        self.categories = frozenset(config.get("categories") or CATEGORIES)

    def extract(self, batch: Batch) -> list[Candidate]:
        by_text: dict[str, Candidate] = {}
        for message in batch.messages:
            if message.role != "user" or not message.content:
                continue
            for fact in facts_in(message.content, self.categories):
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
