"""The audit event of a change to one governance record."""

from __future__ import annotations

from typing import Any

from memoryadmin.audit.models import AuditEvent
from memoryadmin.audit.services import Actor, AuditEntry, audit_record
from memoryadmin.governance.models import ErasureRequest, ForgettingPolicy, ForgettingRun, PrivacyLink, SnapshotRestore

type GovernanceRecord = ErasureRequest | ForgettingPolicy | ForgettingRun | PrivacyLink | SnapshotRestore

# What the trail calls each kind of record (its `target_type`).
TARGET_TYPES: dict[type[GovernanceRecord], str] = {
    ErasureRequest: "erasure",
    ForgettingPolicy: "forgetting_policy",
    ForgettingRun: "forgetting_run",
    PrivacyLink: "privacy_link",
    SnapshotRestore: "snapshot_restore",
}


def governance_entry(record: GovernanceRecord, *, actor: Actor, action: str, **fields: Any) -> AuditEntry:
    """The event of `action` on `record`, in its namespace, for `audit_record_many`; `fields` are the
    entry's others (user_id, reason, data, ...)."""
    return AuditEntry(
        actor=actor,
        action=action,
        namespace_id=record.namespace_id,
        target_type=TARGET_TYPES[type(record)],
        target_id=str(record.pk),
        **fields,
    )


def governance_event(record: GovernanceRecord, *, actor: Actor, action: str, **fields: Any) -> AuditEvent | None:
    """Record `governance_entry(...)` now, in the caller's transaction."""
    return audit_record(**vars(governance_entry(record, actor=actor, action=action, **fields)))
