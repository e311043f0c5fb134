"""The events an endpoint may subscribe to, and which audit action each one tells of.

A body carries ids and what changed (field names, counts, statuses), never a memory's text: a
receiver fetches the memory through the API, and a memory forgotten meanwhile is a 404 there, so
no pending event can bring forgotten text downstream.
"""

from __future__ import annotations

from typing import Any

# Audit action -> event type.
EVENT_OF_ACTION: dict[str, str] = {
    "memory.create": "memory.created",
    "memory.update": "memory.updated",
    "memory.supersede": "memory.superseded",
    "memory.reinstate": "memory.reinstated",
    "memory.forget": "memory.forgotten",
    "memory.reject": "memory.rejected",
    "memory.approve": "memory.approved",
    "memory.pin": "memory.pinned",
    "memory.unpin": "memory.unpinned",
    "session.delete": "session.deleted",
    "messages.delete_run": "messages.deleted",
    "erasure.complete": "erasure.completed",
    "tombstone.lift": "tombstone.lifted",
    "forgetting.run": "forgetting.completed",
}

# Events with no audit action of their own.
EXTRACTION_FAILED = "extraction.failed"
TEST_EVENT = "webhook.test"

EVENT_TYPES: tuple[str, ...] = (*EVENT_OF_ACTION.values(), EXTRACTION_FAILED)

# What each body's `data` names its target by.
_TARGET_KEYS: dict[str, str | None] = {
    "memory": "memory_id",
    # A session is named by its app-chosen id, from the notice (the trail keeps only its key).
    "session": None,
    "erasure": "erasure_id",
    "tombstone": "tombstone_id",
    "forgetting_run": "forgetting_run_id",
}
# Audit data that is about the call, not the change.
_LEFT_OUT = {"via"}


def event_data(*, target_type: str, target_id: str, data: dict[str, Any] | None, notice: dict[str, Any] | None) -> dict:
    """A body's `data`: the target's id, what the audit event records of the change, and the notice's ids.

    Audit data never holds a memory's text or the free text of a reason, so neither does this.
    """
    body: dict[str, Any] = {}
    key = _TARGET_KEYS.get(target_type, f"{target_type}_id")
    if target_type and key:
        body[key] = target_id
    body.update({key: value for key, value in (data or {}).items() if key not in _LEFT_OUT})
    body.update(notice or {})
    return body
