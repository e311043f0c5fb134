"""The audit trail: append-only, hash-chained per namespace, keyed, and anchored outside the database.

Each event's digest is an HMAC (AUDIT_CHAIN_KEY) over its fields and the digest
of the event before it in its namespace's chain. Without the key, nobody who can
write the table (a database superuser, a stolen backup being doctored) can
produce a chain that verifies: rewriting the whole chain is detected, not only a
change in its middle. What the key cannot show, an event cut off the end, or a
table emptied, the checkpoints show (`audit.checkpoints`): signed heads of every
chain written where the database cannot reach them, and the erasure receipts
each requester holds.

What is hashed is exactly what is stored: `data` is first put in the form JSONB
gives back (`stored_json`), so reading an event back always reproduces its digest.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import QuerySet
from django.utils import timezone

from memoryadmin.audit.models import AuditEvent
from memoryadmin.core.bulk import insert_json_rows, json_rows
from memoryadmin.core.deferral import Deferral
from memoryadmin.core.fingerprints import subject_hmac
from memoryadmin.core.streaming import rows_streamed

GENESIS = "0" * 64
# A report lists at most this many breaks (and counts them all).
MAX_REPORTED_BREAKS = 1000


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
    def subject(cls, link_id: str | None = None) -> Actor:
        """The person themself, through a privacy link (named, so the link's maker can be traced)."""
        return cls("subject", f"privacy-link:{link_id}" if link_id else "privacy-link")

    def __str__(self) -> str:
        return f"{self.type}:{self.id}"


def _jsonb_number(text: str) -> int | float:
    """A JSON number with a fraction or exponent, as PostgreSQL's jsonb gives it back.

    jsonb keeps numbers as `numeric`: written out in full without an exponent
    (1e16 comes back as 10000000000000000, an integer once parsed, and 1.5e-07 as
    0.00000015), and with no negative zero (-0.0 comes back as 0.0).
    """
    number = Decimal(text)
    if number.is_zero():
        number = abs(number)
    plain = format(number, "f")
    return float(plain) if "." in plain else int(plain)


def stored_json(value: Any) -> Any:
    """`value` as it reads back from a JSONB column: plain JSON types, numbers as jsonb keeps them,
    the last of duplicate keys. NaN and infinities are refused (JSONB cannot hold them)."""
    return json.loads(json.dumps(value, default=str, allow_nan=False), parse_float=_jsonb_number)


def _chain_key() -> bytes:
    return settings.AUDIT_CHAIN_KEY.encode()


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
    return hmac.new(_chain_key(), payload.encode(), hashlib.sha256).hexdigest()


def reason_digest(reason: str) -> str:
    """The keyed hash of an event's free text; the chain covers it instead of the text."""
    if not reason:
        return ""
    return hmac.new(_chain_key(), ("reason\x00" + reason).encode(), hashlib.sha256).hexdigest()


def _reason_in_chain(reason: str, digest: str) -> str:
    # Events written before reasons were hashed separately carry their text in the chain itself.
    return f"hmac:{digest}" if digest else reason


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
        reason=_reason_in_chain(event.reason, event.reason_digest),
        data=event.data,
    )


def _chain_lock_key(namespace_id: int | None) -> int:
    # One advisory lock per chain; the constant keeps clear of other lock users.
    return 0x6D61_0000_0000 + (namespace_id or 0)


# The events a block under `audit_last` records, written when it ends.
_deferred: Deferral[AuditEntry] = Deferral("audit_deferred")


def audit_last() -> AbstractContextManager[None]:
    """Write the audit events the block records together, when it ends (inside its transaction).

    A change of several objects locks rows as it goes. Its first event takes its chain's lock, held to the
    commit, and a writer of one object locks its row first and the chain last: if the change then waits for
    that writer's row while holding the chain, each waits for the other (PostgreSQL breaks the deadlock by
    failing one, a 503). Under this block every row is locked before the chain, one order for all writers.
    Use it inside `transaction.atomic()`; nested blocks write with the outermost one.
    """
    return _deferred.block(audit_record_many)


def audit_record(*, actor: Actor, action: str, namespace_id: int | None, **fields: Any) -> AuditEvent | None:
    """Append an event to its namespace's chain, inside the caller's transaction (None under `audit_last`,
    which writes it later). `fields` are AuditEntry's others (target_type, user_id, reason, data, ...)."""
    written = audit_record_many([AuditEntry(actor=actor, action=action, namespace_id=namespace_id, **fields)])
    return written[0] if written else None


@dataclass(frozen=True)
class AuditTarget:
    """What the trail calls one kind of row; each app registers its kinds with `audit_target`."""

    type: str
    # The attribute that names a row to people: a key by its prefix, a namespace by its slug.
    id_attr: str = "pk"
    # The attribute holding its namespace's id; None for a row outside every namespace (a console account).
    namespace_attr: str | None = "namespace_id"
    # A row of one person (its `user_id`): the events about it are that person's.
    personal: bool = False


_targets: dict[type, AuditTarget] = {}


def audit_target(model: type, target: AuditTarget) -> None:
    """Register how the events about `model`'s rows name them (from the app's ready())."""
    _targets[model] = target


@dataclass(frozen=True)
class AuditEntry:
    """One event of the trail, as `audit_record` and `audit_record_many` append it."""

    actor: Actor
    action: str
    namespace_id: int | None
    target_type: str = ""
    target_id: str = ""
    user_id: str | None = None
    # For a row that keeps only the person's hash (a privacy link): the same hash `user_id` would give.
    subject_hash: str = ""
    reason: str = ""
    data: dict[str, Any] | None = None
    # What the event's observers (webhooks) may tell beyond what the trail keeps: an id the app chose, which
    # the trail must not hold past an erasure (a session's id, the erased person's user id). Never stored here.
    notice: dict[str, Any] | None = None

    @classmethod
    def about(cls, row: Any, *, actor: Actor, action: str, **fields: Any) -> AuditEntry:
        """The event of `action` on `row`, in its namespace, named as its kind is registered (`audit_target`);
        `fields` are the entry's others (reason, data, ...). A personal row's event is its person's."""
        target = _targets[type(row)]
        if target.personal:
            fields.setdefault("user_id", row.user_id)
        return cls(
            actor=actor,
            action=action,
            namespace_id=getattr(row, target.namespace_attr) if target.namespace_attr else None,
            target_type=target.type,
            target_id=str(getattr(row, target.id_attr)),
            **fields,
        )


def audit_about(row: Any, *, actor: Actor, action: str, **fields: Any) -> AuditEvent | None:
    """Record `AuditEntry.about(...)` now, in the caller's transaction (None under `audit_last`)."""
    return audit_record(**vars(AuditEntry.about(row, actor=actor, action=action, **fields)))


def audit_deleted(rows: QuerySet, about: Any, *, actor: Actor, action: str, **fields: Any) -> int:
    """Delete `rows` and, when that removed any, record `AuditEntry.about(about, ...)` in the caller's
    transaction: a delete repeated, or raced by another, records nothing. Returns how many rows went."""
    deleted, _ = rows.delete()
    if deleted:
        audit_about(about, actor=actor, action=action, **fields)
    return deleted


_EVENT_FIELDS = [f for f in AuditEvent._meta.concrete_fields if not f.primary_key]

# Called with the entries and the events just written, inside their transaction: what an observer writes
# (the webhooks outbox) commits or rolls back with the change itself. Registered by apps above this one.
AuditObserver = Callable[[Sequence[AuditEntry], Sequence[AuditEvent]], None]
_observers: list[AuditObserver] = []


def audit_observe(observer: AuditObserver) -> None:
    """Register `observer` (from an app's ready()); registering the same one twice keeps one."""
    if observer not in _observers:
        _observers.append(observer)


def _lock_chains(chains: Sequence[int | None]) -> dict[int | None, str]:
    """Lock each chain (in the order given), then read the digest of its last event: one round trip."""
    table = AuditEvent._meta.db_table
    statements = ["SELECT pg_advisory_xact_lock(%s)"] * len(chains)
    params: list[object] = [_chain_lock_key(namespace_id) for namespace_id in chains]
    for namespace_id in chains:
        if namespace_id is None:
            statements.append(f"SELECT hash FROM {table} WHERE namespace_id IS NULL ORDER BY id DESC LIMIT 1")
        else:
            statements.append(f"SELECT hash FROM {table} WHERE namespace_id = %s ORDER BY id DESC LIMIT 1")
            params.append(namespace_id)
    heads: dict[int | None, str] = {}
    with connection.cursor() as cursor:
        cursor.execute(";\n".join(statements), params)
        for _ in chains:
            cursor.nextset()
        for namespace_id in chains:
            row = cursor.fetchone()
            heads[namespace_id] = (row[0] if row else "") or GENESIS
            cursor.nextset()
    return heads


def audit_record_many(entries: Sequence[AuditEntry]) -> list[AuditEvent]:
    """Append several events, in order, inside the caller's transaction: what `audit_record` does for each.

    Each chain is locked once and its links are computed here, so the events cost
    one statement per chain to find its head and one insert for all of them. The
    rows are inserted in the given order, which is their order in their chains.
    """
    if not entries:
        return []
    deferred = _deferred.pending()
    if deferred is not None:
        deferred.extend(entries)
        return []
    chains = sorted({entry.namespace_id for entry in entries}, key=lambda ns: -1 if ns is None else ns)
    subjects: dict[tuple[int | None, str], str] = {}
    events: list[AuditEvent] = []
    # Without a savepoint: an event that cannot be written fails the caller's whole change.
    with transaction.atomic(savepoint=False):
        heads = _lock_chains(chains)
        created_at = timezone.now()
        for entry in entries:
            subject_hash = entry.subject_hash
            if entry.user_id:
                key = (entry.namespace_id, entry.user_id)
                if key not in subjects:
                    subjects[key] = subject_hmac(entry.namespace_id, entry.user_id)
                subject_hash = subjects[key]
            data = dict(entry.data or {})
            if entry.actor.via:
                data["via"] = entry.actor.via
            # Hashed as it will be read back, so verification reproduces the digest.
            data = stored_json(data)
            event = AuditEvent(
                namespace_id=entry.namespace_id,
                created_at=created_at,
                actor_type=entry.actor.type,
                actor=entry.actor.id,
                action=entry.action,
                target_type=entry.target_type,
                target_id=str(entry.target_id),
                subject_hash=subject_hash,
                reason=entry.reason,
                reason_digest=reason_digest(entry.reason),
                data=data,
                prev_hash=heads[entry.namespace_id],
            )
            # Digested exactly as verification will read it back.
            event.hash = heads[entry.namespace_id] = digest_of(event)
            events.append(event)
        ids = insert_json_rows(
            AuditEvent._meta.db_table,
            [f.column for f in _EVENT_FIELDS],
            json_rows(events, _EVENT_FIELDS),
            suffix="RETURNING id",
        )
        for event, (pk,) in zip(events, ids, strict=True):
            event.pk, event._state.adding, event._state.db = pk, False, connection.alias
        written = events
        for observer in _observers:
            observer(entries, written)
        return written


@dataclass(frozen=True)
class ChainBreak:
    event_id: int | None
    namespace_id: int | None
    problem: str


@dataclass(frozen=True)
class Anchor:
    """An event's digest as recorded outside the database: a checkpoint's head or an erasure receipt's event."""

    event_id: int
    hash: str
    namespace_id: int | None
    source: str
    # False for an anchor whose chain is not known (it is checked when every chain is verified).
    scoped: bool = True


@dataclass(frozen=True)
class ChainReport:
    checked: int
    breaks: tuple[ChainBreak, ...] = ()
    broken: int = 0
    anchors_checked: int = 0

    @property
    def ok(self) -> bool:
        return self.broken == 0

    @property
    def broken_at(self) -> int | None:
        return self.breaks[0].event_id if self.breaks else None

    @property
    def problem(self) -> str:
        return self.breaks[0].problem if self.breaks else ""


@dataclass
class _Walk:
    breaks: list[ChainBreak] = field(default_factory=list)
    broken: int = 0

    def add(self, event_id: int | None, namespace_id: int | None, problem: str) -> None:
        self.broken += 1
        if len(self.breaks) < MAX_REPORTED_BREAKS:
            self.breaks.append(ChainBreak(event_id, namespace_id, problem))


def audit_redact_subject(*, namespace_id: int, user_id: str) -> int:
    """Blank the free text of the person's events in this namespace (an erasure); returns how many.

    The events stay, with their keyed hash of the text: the chain still verifies, and a
    redacted event shows that it had a reason and that it is gone.
    """
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE audit_auditevent SET reason = '' "
            "WHERE namespace_id = %s AND subject_hash = %s AND reason <> '' AND reason_digest <> ''",
            [namespace_id, subject_hmac(namespace_id, user_id)],
        )
        return cursor.rowcount


BLANKED_WITHOUT_ERASURE = "its reason was blanked, and only an erasure of its person may blank one"
NOT_FOUNDED = "the chain does not begin with its namespace's creation"
EMPTIED = "the chain is empty, though its namespace exists: every chain begins with its namespace's creation"


def verify_audit_chain(
    namespace_id: int | None = None,
    *,
    all_chains: bool = True,
    anchors: Iterable[Anchor] = (),
    founded: Iterable[int] = (),
) -> ChainReport:
    """Walk the chain(s) in id order and report every break, not only the first.

    An event is broken when its link does not name the event before it, or when its
    content does not match its keyed digest. The walk goes on from each event's stored
    digest, so every independent change is reported once. `anchors` (checkpoints,
    receipts) must each still be in the chain with the digest recorded outside it:
    a chain rewritten, cut short or emptied fails there. The chains of `founded`
    (the namespaces that exist) must begin with their namespace's creation, so one
    emptied or cut from its start fails even without checkpoints. A reason may be
    blanked (its keyed digest stays) only by an erasure: the event must be the
    person's, and that person's `erasure.complete` must follow it in its chain.
    """
    qs = AuditEvent.objects.order_by("id")
    if not all_chains:
        qs = qs.filter(namespace_id=namespace_id)
    expected: dict[int, Anchor] = {}
    for anchor in anchors:
        if all_chains or (anchor.scoped and anchor.namespace_id == namespace_id):
            expected.setdefault(anchor.event_id, anchor)
    walk = _Walk()
    last_hash: dict[int | None, str] = {}
    checked = 0
    seen_anchors = 0
    unfounded = {ns for ns in founded if all_chains or ns == namespace_id}
    # Blanked reasons waiting for their person's erasure to complete, by (chain, subject).
    blanked: dict[tuple[int | None, str], list[int]] = defaultdict(list)
    for event in rows_streamed(qs, 2000):
        if event.namespace_id not in last_hash and event.namespace_id in unfounded:
            unfounded.discard(event.namespace_id)
            if event.action != "namespace.create":
                walk.add(event.pk, event.namespace_id, NOT_FOUNDED)
        if event.action == "erasure.complete" and event.subject_hash:
            blanked.pop((event.namespace_id, event.subject_hash), None)
        if not event.reason and event.reason_digest:
            if event.subject_hash:
                blanked[(event.namespace_id, event.subject_hash)].append(event.pk)
            else:
                walk.add(event.pk, event.namespace_id, BLANKED_WITHOUT_ERASURE)
        expected_prev = last_hash.get(event.namespace_id, GENESIS)
        if event.prev_hash != expected_prev:
            walk.add(event.pk, event.namespace_id, "previous hash does not match the event before it")
        if digest_of(event) != event.hash:
            walk.add(event.pk, event.namespace_id, "content does not match its hash")
        elif event.reason and event.reason_digest and reason_digest(event.reason) != event.reason_digest:
            walk.add(event.pk, event.namespace_id, "its reason does not match the reason's hash")
        anchor = expected.pop(event.pk, None)
        if anchor is not None:
            seen_anchors += 1
            if anchor.hash != event.hash:
                walk.add(event.pk, event.namespace_id, f"differs from {anchor.source}")
        last_hash[event.namespace_id] = event.hash
        checked += 1
    for anchor in sorted(expected.values(), key=lambda a: a.event_id):
        walk.add(anchor.event_id, anchor.namespace_id, f"is missing, though {anchor.source} recorded it")
    for (chain, _), event_ids in sorted(blanked.items(), key=lambda item: item[1][0]):
        for event_id in event_ids:
            walk.add(event_id, chain, BLANKED_WITHOUT_ERASURE)
    for chain in sorted(unfounded):
        walk.add(None, chain, EMPTIED)
    return ChainReport(checked, tuple(walk.breaks), walk.broken, seen_anchors + len(expected))
