"""Choices of this app's columns, importable by every layer without the models: the API derives its
enums from them, and the console and privacy pages show and filter by them."""

from __future__ import annotations

from django.db import models

from memoryadmin.core.choices import text_choices

ErasureStatus = text_choices("ErasureStatus", "pending running completed failed")
ForgettingTrigger = text_choices("ForgettingTrigger", "api console schedule")
JobStatus = text_choices("JobStatus", "pending running succeeded failed")


class PrivacyRight(models.TextChoices):
    """What a privacy link lets its holder do with their own data."""

    READ = "read", "see and download"
    FORGET = "forget", "forget one memory"
    ERASE = "erase", "erase everything"
