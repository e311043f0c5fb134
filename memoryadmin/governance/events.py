"""The audit event of a change to one governance record, in the caller's transaction."""

from __future__ import annotations

from typing import Any

from memoryadmin.audit.models import AuditEvent
from memoryadmin.audit.services import Actor, audit_record
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


def governance_event(record: GovernanceRecord, *, actor: Actor, action: str, **fields: Any) -> AuditEvent | None:
    """Record `action` on `record`, in its namespace; `fields` are `audit_record`'s others (user_id, reason, ...)."""
    return audit_record(
        actor=actor,
        action=action,
        namespace_id=record.namespace_id,
        target_type=TARGET_TYPES[type(record)],
        target_id=str(record.pk),
        **fields,
    )
