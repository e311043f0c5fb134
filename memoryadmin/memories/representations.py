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

from memoryadmin.core.representation import Representation, iso_date, null_if_blank, str_if_set
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
# Whether a memory is pinned lives in another table: the caller gives it.
MEMORY = Representation(
    (
        "id",
        "text",
        "user_id",
        "session_id",
        "agent_id",
        "memory_type",
        "status",
        "topics",
        "entities",
        "metadata",
        "pinned",
        "source",
        "created_at",
        "updated_at",
        "last_accessed_at",
        "revision",
        *SUPERSESSION_FIELDS,
    ),
    convert={
        "id": str,
        "session_id": null_if_blank,
        "agent_id": null_if_blank,
        "topics": list,
        "entities": list,
        "created_at": rfc3339,
        "updated_at": rfc3339,
        "last_accessed_at": rfc3339,
        "subject": null_if_blank,
        "attribute": null_if_blank,
        "event_date": iso_date,
        "event_date_precision": null_if_blank,
        "stated_at": rfc3339,
        "superseded_by": str_if_set,
        "superseded_at": rfc3339,
    },
    given=("pinned",),
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
    return MEMORY.of(memory, pinned=pinned)


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
