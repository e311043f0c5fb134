"""Applying a restore: decide each record's fate and have its app write it.

Records are applied in batches of one type, in the format's order, as they are read and
checked (`stream`). What the namespace held before the restore is looked up for each batch
by unique key (`Committed`), what the restore wrote is
kept here, and everything else is looked up by primary key or by a parent's key, so a
batch's cost stays flat however much the restore has written. A tombstone or a later
erasure always wins over a record; ids and timestamps are kept; restoring the same file
again changes nothing.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from typing import Any, BinaryIO

from django.db import connection, transaction
from django.db.models import Max

from memoryadmin.audit.services import Actor, audit_record
from memoryadmin.conversations import records as conversation_records
from memoryadmin.core.bulk import bulk_load_settings, merge_gin_pending_lists
from memoryadmin.core.fingerprints import subject_hmac
from memoryadmin.core.locks import lock_namespace_writes
from memoryadmin.core.timestamps import rfc3339
from memoryadmin.governance.models import ErasureRequest, ErasureStatus
from memoryadmin.governance.snapshots.format import OUTCOMES
from memoryadmin.governance.snapshots.stream import Batches
from memoryadmin.governance.snapshots.validate import Committed
from memoryadmin.memories import records as memory_records
from memoryadmin.tenancy.models import Namespace

BATCH = 1000
ALWAYS = datetime.max.replace(tzinfo=UTC)
SAMPLES_PER_OUTCOME = 5


@dataclass
class RestoreResult:
    dry_run: bool
    counts: dict[str, int]
    by_type: dict[str, dict[str, int]]
    samples: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    records: int = 0


class _DryRunRollback(Exception):
    pass


class Applier:
    """Applies batches of one record type at a time, set-based where it counts."""

    def __init__(
        self,
        namespace: Namespace,
        progress: Callable[[int], None] | None,
        committed: Committed | None = None,
        person: str | None = None,
        vectors: tuple[str, int] | None = None,
    ) -> None:
        self.namespace = namespace
        # The memories' own vectors are written when the configured embedder made them; else texts are embedded.
        self.carried = memory_records.vectors_carried(vectors)
        # A person's snapshot writes into that person's sessions only.
        self.person = person
        # Memory ids another namespace holds: their records come in under new ids (the outcome must
        # not tell that the id exists elsewhere), and their children follow.
        self.renamed: dict[uuid.UUID, uuid.UUID] = {}
        self.progress = progress
        self.committed = committed or Committed(namespace)
        self.by_type: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(OUTCOMES, 0))
        self.samples: dict[str, list[dict[str, str]]] = defaultdict(list)
        self.done = 0
        ledger = (
            ErasureRequest.objects.filter(namespace=namespace, status=ErasureStatus.COMPLETED)
            .values("subject_hash")
            .annotate(last=Max("completed_at"))
        )
        self.erased_at = {row["subject_hash"]: row["last"] for row in ledger}
        # A person whose erasure is asked or under way comes back in no form, whenever it was written.
        asked = ErasureRequest.objects.filter(
            namespace=namespace, status__in=(ErasureStatus.PENDING, ErasureStatus.RUNNING)
        )
        self.erased_at.update(dict.fromkeys(asked.values_list("subject_hash", flat=True), ALWAYS))
        self.sessions: dict[str, tuple[int, str] | None] = {}
        self.touched_sessions: set[int] = set()
        # (user_id, fingerprint) of the snapshot's tombstones that this restore wrote or found.
        self.restored_tombstones: set[tuple[str, str]] = set()
        # Their fingerprints alone, to pass over most of a record's field texts at once.
        self.restored_fingerprints: set[str] = set()

    # helpers

    def erased_after(self, user_id: str, written_at: datetime | None) -> bool:
        if not self.erased_at:
            return False
        when = self.erased_at.get(subject_hmac(self.namespace.pk, user_id))
        return when is not None and (written_at is None or written_at <= when)

    def outcome(self, kind: str, outcome: str, label: str = "", text: str = "") -> None:
        """Count a record's outcome; keep a few samples of each, a memory's with its text.

        Never the text of a memory a tombstone or an erasure keeps out: it must not be stored again.
        """
        self.by_type[kind][outcome] += 1
        if outcome != "unchanged" and len(self.samples[outcome]) < SAMPLES_PER_OUTCOME:
            sample = {"type": kind, "label": label[:120]}
            if text:
                sample["text"] = text[:120]
            self.samples[outcome].append(sample)

    def session_of(self, session_ids: Iterable[str]) -> None:
        """Sessions a record names that the snapshot's session records did not (rare: hand-made files)."""
        missing = [s for s in set(session_ids) if s not in self.sessions]
        if not missing:
            return
        found = conversation_records.session_owners(self.namespace, missing)
        for sid in missing:
            owner = found.get(sid)
            self.sessions[sid] = owner if owner is None or self.person in (None, owner[1]) else None

    def tombstoned(self, r: dict[str, Any]) -> bool:
        return r["line"] in self.committed.tombstoned or (r["user_id"], r["fingerprint"]) in self.restored_tombstones

    def forgotten_in_fields(self, batch: list[dict[str, Any]], owners: dict[uuid.UUID, str] | None = None) -> set[int]:
        """The records of a batch that carry a forgotten text in a field other than `text` (a label, a reason,
        a string of their metadata): a tombstone keeps the text out of every field. One statement a batch."""
        # Only a fingerprint some tombstone holds can match: most records carry none of them.
        held, restored = self.committed.tombstone_fingerprints, self.restored_fingerprints
        keys = []
        for i, r in enumerate(batch):
            user_id = r["user_id"] if owners is None else owners.get(r["memory_id"])
            if user_id is None:
                continue
            if held is None:
                keys.extend((i, user_id, fingerprint) for fingerprint in r["field_fingerprints"])
            else:
                keys.extend(
                    (i, user_id, fingerprint)
                    for fingerprint in r["field_fingerprints"]
                    if fingerprint in held or fingerprint in restored
                )
        found = self.committed.tombstoned_keys(keys)
        found.update(i for i, user_id, fingerprint in keys if (user_id, fingerprint) in self.restored_tombstones)
        return found

    def elsewhere(self, user_id: str) -> bool:
        """A person's snapshot reaches that person's memories only, whatever ids its records name."""
        return self.person is not None and user_id != self.person

    def unreachable(self, user_id: str | None) -> str:
        """Why a record of a memory's (a revision, a pin) is not restored for its owner `user_id`: the
        memory is not there, or is another person's; "" when neither."""
        if user_id is None:
            return "no memory"
        if self.elsewhere(user_id):
            return "another person's memory"
        return ""

    # per type

    def apply(self, kind: str, batch: list[dict[str, Any]]) -> None:
        if self.renamed and kind in ("revision", "evidence", "pin"):
            batch = [{**r, "memory_id": self.renamed.get(r["memory_id"], r["memory_id"])} for r in batch]
        getattr(self, f"_apply_{kind}")(batch)
        self.done += len(batch)
        if self.progress:
            self.progress(self.done)

    def _apply_tombstone(self, batch: list[dict[str, Any]]) -> None:
        wanted = []
        for r in batch:
            if self.erased_after(r["user_id"], r["created_at"]):
                self.outcome("tombstone", "skipped_erased", r["fingerprint"][:12])
            elif self.tombstoned(r):
                self.outcome("tombstone", "unchanged")
            else:
                wanted.append(r)
        if not wanted:
            return
        created = memory_records.tombstones_restore_insert(self.namespace, wanted)
        # Written now or already there: either way the pair is tombstoned from here on.
        self.restored_tombstones.update((r["user_id"], r["fingerprint"]) for r in wanted)
        self.restored_fingerprints.update(r["fingerprint"] for r in wanted)
        for r in wanted:
            key = (r["user_id"], r["fingerprint"])
            if key in created:
                created.discard(key)
                self.outcome("tombstone", "created", r["fingerprint"][:12])
            else:
                self.outcome("tombstone", "unchanged")

    def _apply_session(self, batch: list[dict[str, Any]]) -> None:
        known = self.committed.sessions
        current = conversation_records.sessions_by_pk(known[r["session_id"]] for r in batch if r["session_id"] in known)
        inserts = []
        for r in batch:
            sid = r["session_id"]
            if self.erased_after(r["user_id"], r["updated_at"]):
                self.sessions[sid] = None
                self.outcome("session", "skipped_erased", sid)
                continue
            existing = current.get(sid)
            if existing is None:
                if sid in self.sessions:
                    # The same session twice in one snapshot: the first one stands.
                    self.outcome("session", "unchanged")
                    continue
                self.sessions[sid] = None
                inserts.append(r)
                continue
            if existing.user_id != r["user_id"]:
                self.sessions[sid] = None
                self.outcome("session", "skipped", f"{sid}: belongs to another user")
                continue
            self.sessions[sid] = (existing.pk, existing.user_id)
            if conversation_records.session_is_same(existing, r) or existing.updated_at > r["updated_at"]:
                self.outcome("session", "unchanged")
                continue
            conversation_records.session_restore_update(existing.pk, r)
            self.outcome("session", "updated", sid)
        if not inserts:
            return
        # Inserted in the snapshot's order, so the new ids (and a re-export) keep it.
        ids = conversation_records.sessions_restore_insert(self.namespace, inserts)
        self.committed.created.update(ids)
        raced = {}
        for r in inserts:
            sid = r["session_id"]
            if sid in ids:
                self.sessions[sid] = (ids[sid], r["user_id"])
                self.outcome("session", "created", sid)
            else:
                raced[sid] = r["user_id"]
                del self.sessions[sid]
        if raced:
            # Created by someone else since validation: theirs stands, as an existing one would.
            self.session_of(raced)
            for sid, user_id in raced.items():
                theirs = self.sessions[sid]
                if theirs is not None and theirs[1] != user_id:
                    self.sessions[sid] = None
                    self.outcome("session", "skipped", f"{sid}: belongs to another user")
                else:
                    self.outcome("session", "unchanged")

    def _apply_message(self, batch: list[dict[str, Any]]) -> None:
        self.session_of(r["session_id"] for r in batch)
        existing = conversation_records.message_seqs_taken(
            {s[0] for r in batch if (s := self.sessions.get(r["session_id"]))}
        )
        rows = []
        for r in batch:
            session = self.sessions.get(r["session_id"])
            if session is None:
                self.outcome("message", "skipped", f"{r['session_id']}#{r['seq']}: no session")
                continue
            pk, user_id = session
            if self.erased_after(user_id, r["persisted_at"]):
                self.outcome("message", "skipped_erased", f"{r['session_id']}#{r['seq']}")
            elif (pk, r["seq"]) in existing:
                self.outcome("message", "unchanged")
            else:
                existing.add((pk, r["seq"]))
                rows.append((pk, r))
                self.touched_sessions.add(pk)
                self.outcome("message", "created", f"{r['session_id']}#{r['seq']}")
        conversation_records.messages_restore_insert(rows)

    def _apply_memory(self, batch: list[dict[str, Any]]) -> None:
        current = memory_records.memories_by_pk(r["id"] for r in batch)
        inserts: list[dict[str, Any]] = []
        forgotten = self.forgotten_in_fields(batch)
        for i, r in enumerate(batch):
            if self.erased_after(r["user_id"], r["updated_at"]):
                self.outcome("memory", "skipped_erased", str(r["id"]))
                continue
            if self.tombstoned(r) or i in forgotten:
                self.outcome("memory", "suppressed", str(r["id"]))
                continue
            existing = current.get(r["id"])
            if existing is not None and existing.namespace_id != self.namespace.pk:
                self.renamed[r["id"]] = uuid.uuid4()
                r = {**r, "id": self.renamed[r["id"]]}
                existing = None
            if existing is None:
                inserts.append(r)
            elif existing.user_id != r["user_id"]:
                self.outcome("memory", "skipped", f"{r['id']}: the id belongs to another memory", r["text"])
            elif memory_records.memory_is_same(existing, r) or existing.updated_at > r["updated_at"]:
                self.outcome("memory", "unchanged")
            elif existing.fingerprint != r["fingerprint"] and memory_records.memory_text_taken(
                self.namespace, r["user_id"], r["fingerprint"]
            ):
                self.outcome("memory", "skipped", f"{r['id']}: another memory already has this text", r["text"])
            else:
                memory_records.memory_restore_update(self.namespace, r, carried=self.carried)
                self.outcome("memory", "updated", f"{r['id']} ({r['memory_type']})", r["text"])
        created = memory_records.memories_restore_insert(self.namespace, inserts, carried=self.carried)
        for r in inserts:
            if r["id"] in created:
                created.discard(r["id"])
                self.outcome("memory", "created", f"{r['id']} ({r['memory_type']})", r["text"])
            else:
                self.outcome("memory", "unchanged")

    def _apply_revision(self, batch: list[dict[str, Any]]) -> None:
        heads = memory_records.memory_heads(self.namespace, (r["memory_id"] for r in batch))
        owners = {pk: user_id for pk, (user_id, _) in heads.items()}
        existing = memory_records.revisions_taken(owners)
        # A revision may hold a text that was forgotten since: it does not come back as history either.
        forbidden = self.committed.tombstoned_keys(
            [(i, owners[r["memory_id"]], r["fingerprint"]) for i, r in enumerate(batch) if r["memory_id"] in owners],
        ) | self.forgotten_in_fields(batch, owners)
        rows = []
        for i, r in enumerate(batch):
            label = f"{r['memory_id']} r{r['revision']}"
            user_id = owners.get(r["memory_id"])
            if unreachable := self.unreachable(user_id):
                self.outcome("revision", "skipped", f"{label}: {unreachable}")
            elif r["revision"] > heads[r["memory_id"]][1]:
                # History the memory does not have: its next edit would find that revision taken.
                self.outcome("revision", "skipped", f"{label}: beyond the memory's revision")
            elif self.erased_after(user_id, r["created_at"]):
                self.outcome("revision", "skipped_erased", label)
            elif i in forbidden or (user_id, r["fingerprint"]) in self.restored_tombstones:
                self.outcome("revision", "suppressed", label)
            elif (r["memory_id"], r["revision"]) in existing:
                self.outcome("revision", "unchanged")
            else:
                existing.add((r["memory_id"], r["revision"]))
                rows.append(r)
                self.outcome("revision", "created", label)
        memory_records.revisions_restore_insert(rows)

    def _apply_evidence(self, batch: list[dict[str, Any]]) -> None:
        owners = memory_records.memory_owners(self.namespace, (r["memory_id"] for r in batch))
        self.session_of(r["session_id"] for r in batch)
        wanted = {(s[0], r["seq"]) for r in batch if (s := self.sessions.get(r["session_id"]))}
        messages = conversation_records.message_pks((w[0] for w in wanted), (w[1] for w in wanted))
        existing = memory_records.evidence_taken(owners, messages.values())
        inserts: list[tuple[uuid.UUID, int, Any]] = []
        for r in batch:
            label = f"{r['memory_id']} <- {r['session_id']}#{r['seq']}"
            user_id = owners.get(r["memory_id"])
            session = self.sessions.get(r["session_id"])
            message_pk = messages.get((session[0], r["seq"])) if session else None
            if user_id is None or message_pk is None:
                self.outcome("evidence", "skipped", f"{label}: no memory or message")
            elif self.elsewhere(user_id):
                self.outcome("evidence", "skipped", f"{label}: another person's memory")
            elif self.erased_after(user_id, r["created_at"]):
                self.outcome("evidence", "skipped_erased", label)
            elif (r["memory_id"], message_pk) in existing:
                self.outcome("evidence", "unchanged")
            else:
                existing.add((r["memory_id"], message_pk))
                inserts.append((r["memory_id"], message_pk, r["created_at"]))
                self.outcome("evidence", "created", label)
        memory_records.evidence_restore_insert(inserts)

    def _apply_pin(self, batch: list[dict[str, Any]]) -> None:
        owners = memory_records.memory_owners(self.namespace, (r["memory_id"] for r in batch))
        existing = memory_records.pins_taken(owners)
        forgotten = self.forgotten_in_fields(batch, owners)
        inserts = []
        for i, r in enumerate(batch):
            label = str(r["memory_id"])
            user_id = owners.get(r["memory_id"])
            if unreachable := self.unreachable(user_id):
                self.outcome("pin", "skipped", f"{label}: {unreachable}")
            elif self.erased_after(user_id, r["created_at"]):
                self.outcome("pin", "skipped_erased", label)
            elif i in forgotten:
                self.outcome("pin", "suppressed", label)
            elif r["memory_id"] in existing:
                self.outcome("pin", "unchanged")
            else:
                existing.add(r["memory_id"])
                inserts.append(r)
                self.outcome("pin", "created", label)
        memory_records.pins_restore_insert(inserts)

    def finish(self) -> None:
        conversation_records.sessions_catch_up_counters(self.touched_sessions)

    def totals(self) -> dict[str, int]:
        totals = dict.fromkeys(OUTCOMES, 0)
        for counts in self.by_type.values():
            for outcome, n in counts.items():
                totals[outcome] += n
        return totals


def _prepare_rows(namespace_id: int, kind: str, record: dict[str, Any]) -> None:
    """In the reading thread: the row a memory or revision would be inserted as, with the key it holds for."""
    if kind == "memory":
        record["row"] = (record["id"], memory_records.memory_row(namespace_id, record))
    elif kind == "revision":
        record["row"] = (record["memory_id"], memory_records.revision_row(record))


def _apply_all(applier: Applier, batches: Batches) -> None:
    for kind, batch in batches:
        for record in batch:
            applier.committed.add(kind, record["line"], record)
        applier.committed.finish()
        applier.apply(kind, batch)
    applier.finish()


def snapshot_restore(
    *,
    namespace: Namespace,
    source: BinaryIO,
    actor: Actor,
    dry_run: bool = True,
    progress: Callable[[int], None] | None = None,
    reason: str = "",
) -> RestoreResult:
    """Validate the file while applying it, in one transaction (rolled back for a dry run).

    The file is read and checked in a thread, batches ahead of the writes (`stream`); a record
    refused anywhere, a trailer that does not match or any other failure rolls back everything
    written before it, so a bad file leaves nothing behind and is refused as it always was.
    A dry run does every write and then undoes it, so its counts are exactly what a real
    restore would report at that moment. A real restore holds the namespace's write lock
    exclusively from its first read to commit: no forget, erasure or create of the namespace runs
    beside it, so the tombstones, the erasure ledger and the rows it checks stay as it saw them.
    """
    try:
        outermost = not connection.in_atomic_block
        with transaction.atomic():
            if not dry_run:
                lock_namespace_writes(namespace.pk, exclusive=True)
            committed = Committed(namespace)
            rows = partial(_prepare_rows, namespace.pk)
            with Batches(namespace=namespace, source=source, size=BATCH, prepare=rows) as batches:
                header = batches.header()
                applier = Applier(namespace, progress, committed, person=header.user_id, vectors=header.vectors)
                if outermost:
                    bulk_load_settings()
                _apply_all(applier, batches)
            records = batches.records
            merge_gin_pending_lists([*conversation_records.BULK_TABLES, *memory_records.BULK_TABLES])
            totals = applier.totals()
            audit_record(
                actor=actor,
                action="snapshot.restore",
                namespace_id=namespace.pk,
                target_type="snapshot",
                target_id=rfc3339(records.header.created_at) or "",
                user_id=records.header.user_id,
                reason=reason,
                data={
                    "records": records.total,
                    "counts": totals,
                    "scope": "user" if records.header.user_id else "namespace",
                },
            )
            if dry_run:
                raise _DryRunRollback
    except _DryRunRollback:
        pass
    return RestoreResult(
        dry_run=dry_run,
        counts=applier.totals(),
        by_type={k: dict(v) for k, v in applier.by_type.items()},
        samples=dict(applier.samples),
        records=records.total,
    )
