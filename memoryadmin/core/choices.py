"""Choices of a column whose stored values are plain lower-case words, declared as those words."""

from __future__ import annotations

import sys

from django.db import models


def text_choices(name: str, values: str) -> type[models.TextChoices]:
    """A `TextChoices` called `name` holding the space-separated `values` as they are stored.

    Each member is named after its value in capitals (`"api_key"` is `API_KEY`) and labelled from
    that name as a class body would label it ("Api Key"), so the migrations see the same choices.
    Choices with labels of their own are written as a class.
    """
    members = [(value.upper(), value) for value in values.split()]
    # Belongs to the module that declares it, as a class written there would.
    module = sys._getframe(1).f_globals["__name__"]
    return models.TextChoices(name, members, module=module, qualname=name)
