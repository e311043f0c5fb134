"""The limits of a memory's fields, checked once for every path that writes them.

The label limits are those of the columns (`memories.models`), so what passes here
is stored as given: PostgreSQL is never left to refuse or truncate it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.conf import settings

from memoryadmin.core.app_ids import validate_app_id
from memoryadmin.core.errors import InvalidInput
from memoryadmin.core.fingerprints import visible_text
from memoryadmin.core.storable_json import json_problem
from memoryadmin.memories.models import (
    MAX_ENTITY_CHARS,
    MAX_LABELS,
    MAX_TOPIC_CHARS,
    MemoryType,
)

LABEL_CHARS = {"topics": MAX_TOPIC_CHARS, "entities": MAX_ENTITY_CHARS}


def clean_text(text: str) -> str:
    if not isinstance(text, str):
        raise InvalidInput("text must be a string", details={"field": "text"})
    if "\x00" in text:
        raise InvalidInput("text must not contain NUL characters", details={"field": "text"})
    text = text.strip()
    if not text or not visible_text(text).strip():
        raise InvalidInput("text must not be empty", details={"field": "text"})
    limit = settings.MAX_MEMORY_TEXT_BYTES
    if len(text.encode()) > limit:
        raise InvalidInput(f"text exceeds {limit} bytes", details={"field": "text", "limit_bytes": limit})
    return text


def clean_labels(values: Iterable[str] | None, name: str) -> list[str]:
    """Topics and entities: trimmed, de-duplicated in order, bounded by their column."""
    if values is None:
        return []
    if isinstance(values, str):
        raise InvalidInput(f"{name} must be a list of strings", details={"field": name})
    limit = LABEL_CHARS[name]
    cleaned: list[str] = []
    for value in values:
        if not isinstance(value, str) or "\x00" in value:
            raise InvalidInput(f"{name} must be strings without NUL characters", details={"field": name})
        value = value.strip()
        if not value:
            continue
        if len(value) > limit:
            raise InvalidInput(f"each of {name} is at most {limit} characters", details={"field": name})
        if value not in cleaned:
            cleaned.append(value)
    if len(cleaned) > MAX_LABELS:
        raise InvalidInput(f"at most {MAX_LABELS} {name}", details={"field": name})
    return cleaned


def clean_metadata(metadata: dict[str, Any] | None) -> dict[str, Any]:
    """An object PostgreSQL stores and the API renders back unchanged (`core.storable_json`)."""
    if metadata is None:
        return {}
    if not isinstance(metadata, dict):
        raise InvalidInput("metadata must be an object", details={"field": "metadata"})
    if problem := json_problem(metadata):
        raise InvalidInput(f"metadata {problem}", details={"field": "metadata"})
    return metadata


def clean_owner_ids(*, user_id: str, session_id: str = "", agent_id: str = "") -> None:
    """The app's ids a memory carries: user_id always, session and agent when given."""
    validate_app_id(user_id, "user_id")
    if session_id:
        validate_app_id(session_id, "session_id")
    if agent_id:
        validate_app_id(agent_id, "agent_id")


def clean_memory_type(memory_type: str) -> str:
    if memory_type not in MemoryType.values:
        raise InvalidInput(
            f"memory_type must be one of {', '.join(MemoryType.values)}", details={"field": "memory_type"}
        )
    return memory_type


def clean_key(value: str, name: str, max_chars: int) -> str:
    """A memory's subject or attribute: trimmed, bounded, compared exactly (an attribute in lower case)."""
    if not isinstance(value, str) or "\x00" in value:
        raise InvalidInput(f"{name} must be a string without NUL characters", details={"field": name})
    value = " ".join(value.split())
    if name == "attribute":
        value = value.lower()
    if len(value) > max_chars:
        raise InvalidInput(f"{name} is at most {max_chars} characters", details={"field": name})
    return value
