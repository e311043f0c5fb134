"""Extraction strategies, chosen per namespace (`Namespace.extraction_strategy`)."""

from __future__ import annotations

from typing import Any

from memoryadmin.extraction.strategies.base import (
    Batch,
    Candidate,
    KnownFact,
    SourceMessage,
    Strategy,
    StrategyError,
)
from memoryadmin.extraction.strategies.llm import (
    CustomStrategy,
    DiscreteStrategy,
    PreferencesStrategy,
    SummaryStrategy,
)
from memoryadmin.extraction.strategies.offline import OfflineStrategy
from memoryadmin.extraction.strategies.rules import RulesStrategy

STRATEGIES: dict[str, type] = {
    "offline": OfflineStrategy,
    "rules": RulesStrategy,
    "discrete": DiscreteStrategy,
    "summary": SummaryStrategy,
    "preferences": PreferencesStrategy,
    "custom": CustomStrategy,
}


def strategy_for(name: str, config: dict[str, Any]) -> Strategy:
    """The strategy `name` with a config already cleaned by validate_extraction_config."""
    try:
        return STRATEGIES[name](config)
    except KeyError:
        raise StrategyError(f"unknown extraction strategy {name!r}") from None


__all__ = [
    "STRATEGIES",
    "Batch",
    "Candidate",
    "KnownFact",
    "SourceMessage",
    "Strategy",
    "StrategyError",
    "strategy_for",
]
