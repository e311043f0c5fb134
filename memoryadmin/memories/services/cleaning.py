"""The limits of a memory's fields, checked once for every path that writes them."""

from __future__ import annotations

from collections.abc import Iterable

from django.conf import settings

from memoryadmin.core.errors import InvalidInput
from memoryadmin.memories.models import (
    MemoryType,
)

MAX_LIST_ITEMS = 50


MAX_LIST_ITEM_CHARS = 200


def clean_text(text: str) -> str:
    if not isinstance(text, str):
        raise InvalidInput("text must be a string", details={"field": "text"})
    if "\x00" in text:
        raise InvalidInput("text must not contain NUL characters", details={"field": "text"})
    text = text.strip()
    if not text:
        raise InvalidInput("text must not be empty", details={"field": "text"})
    limit = settings.MAX_MEMORY_TEXT_BYTES
    if len(text.encode()) > limit:
        raise InvalidInput(f"text exceeds {limit} bytes", details={"field": "text", "limit_bytes": limit})
    return text


def clean_labels(values: Iterable[str] | None, name: str) -> list[str]:
    """Topics and entities: trimmed, de-duplicated in order, bounded."""
    if values is None:
        return []
    cleaned: list[str] = []
    for value in values:
        if not isinstance(value, str) or "\x00" in value:
            raise InvalidInput(f"{name} must be strings without NUL characters", details={"field": name})
        value = value.strip()
        if not value:
            continue
        if len(value) > MAX_LIST_ITEM_CHARS:
            raise InvalidInput(f"each of {name} is at most {MAX_LIST_ITEM_CHARS} characters", details={"field": name})
        if value not in cleaned:
            cleaned.append(value)
    if len(cleaned) > MAX_LIST_ITEMS:
        raise InvalidInput(f"at most {MAX_LIST_ITEMS} {name}", details={"field": name})
    return cleaned


def clean_memory_type(memory_type: str) -> str:
    if memory_type not in MemoryType.values:
        raise InvalidInput(
            f"memory_type must be one of {', '.join(MemoryType.values)}", details={"field": "memory_type"}
        )
    return memory_type
