"""Choices of conversations' columns, importable by the apps that show or filter them without its models."""

from __future__ import annotations

from django.db import models


class Role(models.TextChoices):
    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"


class MessageKind(models.TextChoices):
    MESSAGE = "message"
    INSTRUCTION = "instruction"
    COMMENTARY = "commentary"
    SUPPORTING_CONTEXT = "supporting_context"
