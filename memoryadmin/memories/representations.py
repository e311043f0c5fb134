"""The API's shapes of memories and what hangs off them.

The API, the console and snapshots all render through these functions, so a
snapshot record carries exactly the fields of the API object of its kind.
Each takes a model instance or a row with the same attribute names
(`values_list(..., named=True)`): an export of millions of rows skips the
model instances.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memoryadmin.core.representation import Representation, null_if_blank
from memoryadmin.core.timestamps import rfc3339
from memoryadmin.memories.models import Memory, MemoryEvidence, MemoryRevision, Pin, Tombstone

# A memory's knowledge-update and time fields, in the order snapshots carry them (the API object has them too).
SUPERSESSION_FIELDS = (
    "subject",
    "attribute",
    "event_date",
    "event_date_precision",
    "stated_at",
    "superseded_by",
    "superseded_at",
)
REVISION = Representation(
    ("memory_id", "revision", "text", "memory_type", "topics", "entities", "metadata", "actor", "reason", "created_at"),
    convert={"memory_id": str, "topics": list, "entities": list, "created_at": rfc3339},
)
PIN = Representation(
    ("memory_id", "pinned_by", "reason", "created_at"), convert={"memory_id": str, "created_at": rfc3339}
)
TOMBSTONE = Representation(
    ("id", "user_id", "fingerprint", "reason", "text", "memory_type", "actor", "created_at"),
    convert={"id": str, "text": null_if_blank, "memory_type": null_if_blank, "created_at": rfc3339},
)


def memory_dict(memory: Memory, *, pinned: bool) -> dict[str, Any]:
    return {
        "id": str(memory.id),
        "text": memory.text,
        "user_id": memory.user_id,
        "session_id": memory.session_id or None,
        "agent_id": memory.agent_id or None,
        "memory_type": memory.memory_type,
        "status": memory.status,
        "topics": list(memory.topics),
        "entities": list(memory.entities),
        "metadata": memory.metadata,
        "pinned": pinned,
        "source": memory.source,
        "created_at": rfc3339(memory.created_at),
        "updated_at": rfc3339(memory.updated_at),
        "last_accessed_at": rfc3339(memory.last_accessed_at),
        "revision": memory.revision,
        "subject": memory.subject or None,
        "attribute": memory.attribute or None,
        "event_date": memory.event_date.isoformat() if memory.event_date else None,
        "event_date_precision": memory.event_date_precision or None,
        "stated_at": rfc3339(memory.stated_at),
        "superseded_by": str(memory.superseded_by) if memory.superseded_by else None,
        "superseded_at": rfc3339(memory.superseded_at),
    }


def revision_dict(revision: MemoryRevision) -> dict[str, Any]:
    return REVISION.of(revision)


def evidence_dict(evidence: MemoryEvidence) -> dict[str, Any]:
    """Needs `message__session` loaded (select_related) to stay one query per list."""
    message = evidence.message
    return evidence_fields(
        memory_id=evidence.memory_id,
        session_id=message.session.session_id,
        message_id=message.id,
        seq=message.seq,
        role=message.role,
        content=message.content,
        created_at=evidence.created_at,
    )


def evidence_fields(
    *, memory_id: Any, session_id: str, message_id: int, seq: int, role: str, content: str, created_at: datetime
) -> dict[str, Any]:
    """An evidence link from its values alone (the link joins two tables, so no single row has these names)."""
    return {
        "memory_id": str(memory_id),
        "session_id": session_id,
        "message_id": str(message_id),
        "seq": seq,
        "role": role,
        "content": content,
        "created_at": rfc3339(created_at),
    }


def pin_dict(pin: Pin) -> dict[str, Any]:
    return PIN.of(pin)


def tombstone_dict(tombstone: Tombstone) -> dict[str, Any]:
    return TOMBSTONE.of(tombstone)
