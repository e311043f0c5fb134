"""Choices of tenancy's columns, importable by the apps that show or filter them without its models."""

from __future__ import annotations

from django.db import models

# read: every GET and search; write: every change; erase: data-subject erasure; tombstones: list
# tombstones and lift them (what an operator's admin role may do in the console), which no
# read or write key can, since lifting one lets forgotten text be stored again; webhooks: manage
# the namespace's webhook endpoints (an admin's task in the console), since an endpoint hears of
# every change.
SCOPES = ("read", "write", "erase", "tombstones", "webhooks")


class ExtractionStrategy(models.TextChoices):
    OFFLINE = "offline", "Facts, events and episodes (offline)"
    RULES = "rules", "Rules (offline, first-person facts only)"
    DISCRETE = "discrete", "Discrete facts (LLM)"
    SUMMARY = "summary", "Session summary (LLM)"
    PREFERENCES = "preferences", "Preferences (LLM)"
    CUSTOM = "custom", "Custom prompt (LLM)"
