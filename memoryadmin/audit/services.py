from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from memoryadmin.audit.models import AuditEvent
from memoryadmin.core.fingerprints import subject_hmac

GENESIS = "0" * 64


@dataclass(frozen=True)
class Actor:
    type: str
    id: str
    # The transport a key's call came through when not the REST API ("mcp"); audit events
    # record it in their data, so the actor itself stays the key.
    via: str = ""

    @classmethod
    def system(cls, name: str = "system") -> Actor:
        return cls("system", name)

    @classmethod
    def operator(cls, username: str) -> Actor:
        return cls("operator", username)

    @classmethod
    def api_key(cls, prefix: str, *, via: str = "") -> Actor:
        return cls("api_key", prefix, via)

    @classmethod
    def subject(cls) -> Actor:
        return cls("subject", "privacy-link")

    def __str__(self) -> str:
        return f"{self.type}:{self.id}"


def event_digest(
    *,
    prev_hash: str,
    namespace_id: int | None,
    created_at: str,
    actor_type: str,
    actor: str,
    action: str,
    target_type: str,
    target_id: str,
    subject_hash: str,
    reason: str,
    data: Any,
) -> str:
    payload = json.dumps(
        [
            prev_hash,
            namespace_id,
            created_at,
            actor_type,
            actor,
            action,
            target_type,
            target_id,
            subject_hash,
            reason,
            data,
        ],
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        default=str,
    )
    return hashlib.sha256(payload.encode()).hexdigest()


def digest_of(event: AuditEvent) -> str:
    return event_digest(
        prev_hash=event.prev_hash,
        namespace_id=event.namespace_id,
        created_at=event.created_at.isoformat(),
        actor_type=event.actor_type,
        actor=event.actor,
        action=event.action,
        target_type=event.target_type,
        target_id=event.target_id,
        subject_hash=event.subject_hash,
        reason=event.reason,
        data=event.data,
    )


def _chain_lock_key(namespace_id: int | None) -> int:
    # One advisory lock per chain; the constant keeps clear of other lock users.
    return 0x6D61_0000_0000 + (namespace_id or 0)


def audit_record(
    *,
    actor: Actor,
    action: str,
    namespace_id: int | None,
    target_type: str = "",
    target_id: str = "",
    user_id: str | None = None,
    reason: str = "",
    data: dict[str, Any] | None = None,
) -> AuditEvent:
    """Append an event to its namespace's chain, inside the caller's transaction."""
    entry = AuditEntry(
        actor=actor,
        action=action,
        namespace_id=namespace_id,
        target_type=target_type,
        target_id=target_id,
        user_id=user_id,
        reason=reason,
        data=data,
    )
    return audit_record_many([entry])[0]


@dataclass(frozen=True)
class AuditEntry:
    """One event for `audit_record_many`; the fields are those of `audit_record`."""

    actor: Actor
    action: str
    namespace_id: int | None
    target_type: str = ""
    target_id: str = ""
    user_id: str | None = None
    reason: str = ""
    data: dict[str, Any] | None = None


def audit_record_many(entries: Sequence[AuditEntry]) -> list[AuditEvent]:
    """Append several events, in order, inside the caller's transaction: what `audit_record` does for each.

    Each chain is locked once and its links are computed here, so the events cost
    one statement per chain to find its head and one insert for all of them. The
    rows are inserted in the given order, which is their order in their chains.
    """
    if not entries:
        return []
    chains = sorted({entry.namespace_id for entry in entries}, key=lambda ns: -1 if ns is None else ns)
    subjects: dict[tuple[int | None, str], str] = {}
    events: list[AuditEvent] = []
    # Without a savepoint: an event that cannot be written fails the caller's whole change.
    with transaction.atomic(savepoint=False):
        with connection.cursor() as cursor:
            for namespace_id in chains:
                cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_chain_lock_key(namespace_id)])
        heads: dict[int | None, str] = {}
        for namespace_id in chains:
            last = (
                AuditEvent.objects.filter(namespace_id=namespace_id)
                .order_by("-id")
                .values_list("hash", flat=True)
                .first()
            )
            heads[namespace_id] = last or GENESIS
        created_at = timezone.now()
        for entry in entries:
            subject_hash = ""
            if entry.user_id:
                key = (entry.namespace_id, entry.user_id)
                if key not in subjects:
                    subjects[key] = subject_hmac(entry.namespace_id, entry.user_id)
                subject_hash = subjects[key]
            data = json.loads(json.dumps(entry.data or {}, default=str))
            if entry.actor.via:
                data["via"] = entry.actor.via
            prev_hash = heads[entry.namespace_id]
            digest = event_digest(
                prev_hash=prev_hash,
                namespace_id=entry.namespace_id,
                created_at=created_at.isoformat(),
                actor_type=entry.actor.type,
                actor=entry.actor.id,
                action=entry.action,
                target_type=entry.target_type,
                target_id=str(entry.target_id),
                subject_hash=subject_hash,
                reason=entry.reason,
                data=data,
            )
            heads[entry.namespace_id] = digest
            events.append(
                AuditEvent(
                    namespace_id=entry.namespace_id,
                    created_at=created_at,
                    actor_type=entry.actor.type,
                    actor=entry.actor.id,
                    action=entry.action,
                    target_type=entry.target_type,
                    target_id=str(entry.target_id),
                    subject_hash=subject_hash,
                    reason=entry.reason,
                    data=data,
                    prev_hash=prev_hash,
                    hash=digest,
                )
            )
        return AuditEvent.objects.bulk_create(events)


@dataclass(frozen=True)
class ChainReport:
    checked: int
    broken_at: int | None
    problem: str = ""

    @property
    def ok(self) -> bool:
        return self.broken_at is None


def verify_audit_chain(namespace_id: int | None = None, *, all_chains: bool = True) -> ChainReport:
    """Walk the chain(s) in id order; report the first event whose link or digest is wrong."""
    qs = AuditEvent.objects.order_by("id")
    if not all_chains:
        qs = qs.filter(namespace_id=namespace_id)
    last_hash: dict[int | None, str] = {}
    checked = 0
    for event in qs.iterator(chunk_size=2000):
        expected_prev = last_hash.get(event.namespace_id, GENESIS)
        if event.prev_hash != expected_prev:
            return ChainReport(checked, event.pk, "previous hash does not match the event before it")
        if digest_of(event) != event.hash:
            return ChainReport(checked, event.pk, "content does not match its hash")
        last_hash[event.namespace_id] = event.hash
        checked += 1
    return ChainReport(checked, None)
