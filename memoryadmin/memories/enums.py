"""Choices of this app's columns, importable by every layer without the models: the API derives its
enums from them, and the console and privacy pages show and filter by them."""

from __future__ import annotations

from memoryadmin.core.choices import text_choices

# UTTERANCE is a turn of a conversation kept as it was said, because extraction drew no fact from it:
# it stays findable (search weighs it below the facts) and is governed like any other memory.
MemoryType = text_choices("MemoryType", "semantic episodic preference summary utterance")
# How much of an `event_date` is known: "in August 2023" is the month, stored as its first day.
DatePrecision = text_choices("DatePrecision", "day week month year")
# SUPERSEDED is kept as history: a newer memory about the same subject and attribute replaced it.
MemoryStatus = text_choices("MemoryStatus", "active candidate superseded")
MemorySource = text_choices("MemorySource", "api extraction operator restore")
TombstoneReason = text_choices("TombstoneReason", "rejected forgotten policy")
