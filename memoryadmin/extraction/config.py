"""Validation of a namespace's extraction settings (strategy and its config)."""

from __future__ import annotations

from typing import Any

from memoryadmin.core.errors import InvalidInput
from memoryadmin.extraction.strategies import STRATEGIES
from memoryadmin.extraction.strategies.llm import clean_llm_config
from memoryadmin.extraction.strategies.rules import clean_config as clean_rules_config


def validate_extraction_config(strategy: str, config: dict[str, Any] | None) -> dict[str, Any]:
    """The cleaned config for `strategy`; InvalidInput names what is wrong.

    Called when a namespace is saved and again before every run, so a config
    written around the form cannot smuggle in a prompt with other variables.
    """
    if strategy not in STRATEGIES:
        raise InvalidInput(
            f"unknown extraction strategy {strategy!r}; choose one of {', '.join(STRATEGIES)}",
            details={"field": "extraction_strategy"},
        )
    if config is None:
        config = {}
    if not isinstance(config, dict):
        raise InvalidInput("the extraction config must be a JSON object", details={"field": "extraction_config"})
    if strategy == "rules":
        return clean_rules_config(config)
    return clean_llm_config(strategy, config)
