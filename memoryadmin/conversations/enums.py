"""Choices of this app's columns, importable by every layer without the models: the API derives its
enums from them, and the console and privacy pages show and filter by them."""

from __future__ import annotations

from memoryadmin.core.choices import text_choices

Role = text_choices("Role", "system user assistant tool")
MessageKind = text_choices("MessageKind", "message instruction commentary supporting_context")
