"""Choices of this app's columns, importable by every layer without the models: the API derives its
enums from them, and the console and privacy pages show and filter by them."""

from __future__ import annotations

from django.db import models


class MemoryType(models.TextChoices):
    SEMANTIC = "semantic"
    EPISODIC = "episodic"
    PREFERENCE = "preference"
    SUMMARY = "summary"
    # A turn of a conversation kept as it was said, because extraction drew no fact from it: it stays
    # findable (search weighs it below the facts) and is governed like any other memory.
    UTTERANCE = "utterance"


class DatePrecision(models.TextChoices):
    """How much of an `event_date` is known: "in August 2023" is the month, stored as its first day."""

    DAY = "day"
    WEEK = "week"
    MONTH = "month"
    YEAR = "year"


class MemoryStatus(models.TextChoices):
    ACTIVE = "active"
    CANDIDATE = "candidate"
    # Kept as history: a newer memory about the same subject and attribute replaced it.
    SUPERSEDED = "superseded"


class MemorySource(models.TextChoices):
    API = "api"
    EXTRACTION = "extraction"
    OPERATOR = "operator"
    RESTORE = "restore"


class TombstoneReason(models.TextChoices):
    REJECTED = "rejected"
    FORGOTTEN = "forgotten"
    POLICY = "policy"
