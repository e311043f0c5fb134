"""The one small interface every extraction strategy implements."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Protocol

from memoryadmin.core.errors import InvalidInput
from memoryadmin.memories.models import MemoryType


@dataclass(frozen=True)
class SourceMessage:
    """A message a strategy may learn from: said by the user or the assistant, never injected guidance."""

    pk: int
    seq: int
    role: str
    content: str
    created_at: datetime
    # Who spoke, when the app names them (a group chat); empty for the session's person.
    name: str = ""


@dataclass(frozen=True)
class KnownFact:
    """A current memory that states an attribute, shown to a model so it can say what a new fact replaces."""

    ref: str  # how the prompt names it: "m1", "m2"…
    memory_id: str
    text: str
    subject: str
    attribute: str


@dataclass
class Batch:
    """What a strategy sees: one session's new messages, in seq order."""

    user_id: str
    session_id: str
    agent_id: str
    messages: list[SourceMessage]
    now: datetime
    # The session's current summary, for strategies that extend it.
    summary: str | None = None
    # The person's current facts that a newer statement may replace, for strategies that ask for them.
    known: list[KnownFact] = field(default_factory=list)


@dataclass
class Candidate:
    """A memory a strategy proposes; the write path decides what becomes of it."""

    text: str
    evidence: list[int]
    memory_type: str = MemoryType.SEMANTIC
    topics: list[str] = field(default_factory=list)
    entities: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    # Knowledge updates: who it is about (a speaker's name; empty for the session's person), the
    # single-valued attribute it states, when the event happened and when it was said; and, from a
    # model, the ids of the memories it replaces.
    subject: str = ""
    attribute: str = ""
    event_date: date | None = None
    event_date_precision: str = ""
    stated_at: datetime | None = None
    replaces: list[str] = field(default_factory=list)
    # Values the speaker says they left behind ("I switched from Barclays to Monzo"): their current memories
    # that state one of them are replaced by this one, whatever the attribute (a bank, a doctor, a gym).
    leaves: list[str] = field(default_factory=list)


class Strategy(Protocol):
    name: str
    # How many messages one call of `extract` takes at most.
    chunk_size: int

    def extract(self, batch: Batch) -> list[Candidate]: ...


class StrategyError(Exception):
    """The strategy could not produce candidates for this batch; the batch stays unextracted."""


class ChoiceStrategy:
    """An offline strategy whose one setting narrows it to some of its `choices` ("categories", "kinds")."""

    name: str
    setting: str
    choices: tuple[str, ...]
    chunk_size = 500

    def __init__(self, config: dict[str, Any]) -> None:
        self.chosen = frozenset(config.get(self.setting) or self.choices)

    @classmethod
    def clean_config(cls, config: dict[str, Any]) -> dict[str, Any]:
        unknown = set(config) - {cls.setting}
        if unknown:
            raise InvalidInput(
                f"unknown setting(s) for the {cls.name} strategy: {', '.join(sorted(unknown))}",
                details={"field": "extraction_config"},
            )
        if cls.setting not in config:
            return {}
        chosen = config[cls.setting]
        if (
            not isinstance(chosen, list)
            or not chosen
            or any(not isinstance(c, str) or c not in cls.choices for c in chosen)
        ):
            raise InvalidInput(
                f"{cls.setting} must be a non-empty list of: {', '.join(cls.choices)}",
                details={"field": f"extraction_config.{cls.setting}"},
            )
        return {cls.setting: list(dict.fromkeys(chosen))}
