"""The memory lifecycle as a Hypothesis state machine over the real database.

Steps: create (with dedupe and tombstones), update, pin, unpin, forget (with
and without force), a forgetting policy, snapshot, restore, erase. A simple
model says what must hold; after every step the database is checked against
it:
- forgotten text never comes back for that user (not by create, update or restore), and
  forgetting a memory forgets every text it ever had, not only its last (edit, then forget);
- a pinned memory is never removed by a policy;
- revisions only grow, and each memory has exactly revisions 1..n;
- every change has its audit event, and the namespace's chain verifies;
- after an erasure nothing comes back from a snapshot taken before it;
- a restore brings back the snapshot's pins and unpins nothing.
"""

from __future__ import annotations

import io
import uuid

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    consumes,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from memoryadmin.audit.models import AuditEvent
from memoryadmin.audit.services import verify_audit_chain
from memoryadmin.core.errors import Conflict, NotFound
from memoryadmin.core.fingerprints import text_fingerprint
from memoryadmin.governance.erasure import erasure_execute, erasure_request
from memoryadmin.governance.forgetting import forgetting_run, policy_clean
from memoryadmin.governance.snapshots import snapshot_export_lines, snapshot_restore
from memoryadmin.memories.models import Memory, MemoryRevision, Pin, Tombstone
from memoryadmin.memories.services import (
    Outcome,
    memory_create,
    memory_forget,
    memory_pin,
    memory_unpin,
    memory_update,
)
from memoryadmin.tenancy.services import namespace_create
from tests.conftest import SYSTEM

USER = "alice"
# Few texts, so that dedupe, tombstones and clashes happen often; two normalise to the same.
TEXTS = st.sampled_from(
    [
        "Alice likes tea",
        "alice likes TEA!",
        "Alice lives in Lyon",
        "Alice plays chess on Sundays",
        "Alice has a cat named Tom",
        "Alice works at night",
    ]
)
TOPICS = st.lists(st.sampled_from(["food", "home", "games", "pets", "work"]), max_size=3, unique=True)


class MemoryLifecycle(RuleBasedStateMachine):
    memories = Bundle("memories")
    snapshots = Bundle("snapshots")

    def __init__(self) -> None:
        super().__init__()
        self.namespace = namespace_create(slug=f"life-{uuid.uuid4().hex[:12]}", actor=SYSTEM)
        self.forgotten: set[str] = set()  # fingerprints that must not come back for USER
        self.pinned: set[uuid.UUID] = set()
        self.revisions: dict[uuid.UUID, int] = {}
        self.texts: dict[uuid.UUID, set[str]] = {}  # every fingerprint each memory has had
        self.erasures = 0
        self.last_event = self._last_event_id()

    # --- helpers ---------------------------------------------------------------------------------

    def _last_event_id(self) -> int:
        return (
            AuditEvent.objects.filter(namespace=self.namespace).order_by("-id").values_list("id", flat=True).first()
            or 0
        )

    def new_actions(self) -> list[str]:
        """Audit actions recorded since the previous call."""
        events = list(
            AuditEvent.objects.filter(namespace=self.namespace, id__gt=self.last_event)
            .order_by("id")
            .values_list("id", "action")
        )
        if events:
            self.last_event = events[-1][0]
        return [action for _, action in events]

    def held_fingerprints(self) -> list[str]:
        return list(Memory.objects.filter(namespace=self.namespace, user_id=USER).values_list("fingerprint", flat=True))

    def live(self, memory_id: uuid.UUID) -> Memory | None:
        return Memory.objects.filter(namespace=self.namespace, pk=memory_id).first()

    def forget_in_model(self, memory_id: uuid.UUID, fingerprint: str, held_by_others: set[str] = frozenset()) -> None:
        """Every text the memory had is forgotten, but one another memory of the person holds now."""
        self.forgotten.add(fingerprint)
        self.forgotten |= self.texts.pop(memory_id, set()) - held_by_others
        self.pinned.discard(memory_id)
        self.revisions.pop(memory_id, None)

    # --- rules -----------------------------------------------------------------------------------

    @rule(target=memories, text=TEXTS, pinned=st.booleans())
    def create(self, text: str, pinned: bool):
        fingerprint = text_fingerprint(text)
        existing = Memory.objects.filter(namespace=self.namespace, user_id=USER, fingerprint=fingerprint).first()
        result = memory_create(namespace=self.namespace, user_id=USER, text=text, actor=SYSTEM, pinned=pinned)
        if fingerprint in self.forgotten:
            assert result.outcome is Outcome.SUPPRESSED
            assert self.new_actions() == []
            return None
        if existing is not None:
            assert result.outcome is Outcome.DUPLICATE and result.memory.pk == existing.pk
            assert self.new_actions() == []
            return existing.pk
        assert result.outcome is Outcome.CREATED
        assert self.new_actions() == ["memory.create"]
        self.revisions[result.memory.pk] = 1
        self.texts[result.memory.pk] = {fingerprint}
        if pinned:
            self.pinned.add(result.memory.pk)
        return result.memory.pk

    @rule(memory_id=memories, text=st.none() | TEXTS, topics=st.none() | TOPICS)
    def update(self, memory_id, text, topics):
        memory = self.live(memory_id) if memory_id else None
        if memory is None:
            return
        try:
            updated = memory_update(memory=memory, actor=SYSTEM, text=text, topics=topics)
        except Conflict as exc:
            assert exc.code in ("tombstoned", "duplicate")
            if exc.code == "tombstoned":
                assert text_fingerprint(text) in self.forgotten
            assert self.new_actions() == []
            return
        if updated.revision > self.revisions[memory_id]:
            assert updated.revision == self.revisions[memory_id] + 1
            assert self.new_actions() == ["memory.update"]
            self.revisions[memory_id] = updated.revision
            self.texts.setdefault(memory_id, set()).add(updated.fingerprint)
        else:
            assert self.new_actions() == []

    @rule(memory_id=memories)
    def pin(self, memory_id):
        memory = self.live(memory_id) if memory_id else None
        if memory is None:
            return
        memory_pin(memory=memory, actor=SYSTEM)
        assert self.new_actions() == ([] if memory_id in self.pinned else ["memory.pin"])
        self.pinned.add(memory_id)

    @rule(memory_id=memories)
    def unpin(self, memory_id):
        memory = self.live(memory_id) if memory_id else None
        if memory is None:
            return
        memory_unpin(memory=memory, actor=SYSTEM)
        assert self.new_actions() == (["memory.unpin"] if memory_id in self.pinned else [])
        self.pinned.discard(memory_id)

    @rule(memory_id=consumes(memories), force=st.booleans())
    def forget(self, memory_id, force):
        memory = self.live(memory_id) if memory_id else None
        if memory is None:
            if memory_id:
                stale = Memory(pk=memory_id, namespace=self.namespace)
                with pytest.raises(NotFound):
                    memory_forget(memory=stale, actor=SYSTEM)
            return
        if memory_id in self.pinned and not force:
            with pytest.raises(Conflict):
                memory_forget(memory=memory, actor=SYSTEM)
            assert self.new_actions() == []
            return
        others = set(self.held_fingerprints()) - {memory.fingerprint}
        memory_forget(memory=memory, actor=SYSTEM, force=force)
        assert self.new_actions() == ["memory.forget"]
        self.forget_in_model(memory_id, memory.fingerprint, others)

    # The argument-free rules wait for something to act on, so steps go to the memories' own lifecycle.
    @precondition(lambda self: len(self.revisions) >= 2)
    @rule()
    def run_a_policy_that_selects_everything(self):
        before = {m.pk: m.fingerprint for m in Memory.objects.filter(namespace=self.namespace)}
        result = forgetting_run(namespace=self.namespace, policy=policy_clean(max_age_days=0), actor=SYSTEM)
        after = set(Memory.objects.filter(namespace=self.namespace).values_list("pk", flat=True))
        assert self.pinned <= after, "a policy removed a pinned memory"
        kept = {before[memory_id] for memory_id in after}
        for memory_id, fingerprint in before.items():
            if memory_id not in after:
                self.forget_in_model(memory_id, fingerprint, kept)
        assert result.run.deleted == len(before) - len(after)
        actions = self.new_actions()
        assert len(actions) == 1 and actions[0].startswith("forgetting"), actions

    @precondition(lambda self: len(self.revisions) >= 1)
    @rule(target=snapshots)
    def snapshot(self):
        body = b"".join(snapshot_export_lines(namespace=self.namespace, user_id=USER))
        return (self.erasures, set(self.pinned), body)

    @rule(snapshot=snapshots)
    def restore(self, snapshot):
        taken_after_erasures, pinned_then, body = snapshot
        before = set(Memory.objects.filter(namespace=self.namespace).values_list("pk", flat=True))
        snapshot_restore(namespace=self.namespace, source=io.BytesIO(body), actor=SYSTEM, dry_run=False)
        assert self.new_actions() == ["snapshot.restore"]
        restored = Memory.objects.filter(namespace=self.namespace).exclude(pk__in=before)
        if taken_after_erasures < self.erasures:
            assert not restored.exists(), "a restore brought back data of an erased person"
        for memory in restored:
            assert memory.fingerprint not in self.forgotten
            self.revisions[memory.pk] = memory.revision
            self.texts[memory.pk] = {memory.fingerprint, *memory.revisions.values_list("fingerprint", flat=True)}
        # A restore brings back the snapshot's pins on every memory of it that is here now,
        # unpinned since or restored just now; it unpins nothing.
        here = set(Memory.objects.filter(namespace=self.namespace).values_list("pk", flat=True))
        self.pinned |= pinned_then & here

    @precondition(lambda self: len(self.revisions) >= 2)
    @rule()
    def erase(self):
        erasure = erasure_request(namespace=self.namespace, user_id=USER, actor=SYSTEM, enqueue=False)
        assert erasure_execute(erasure_id=erasure.pk).status == "completed"
        assert self.new_actions() == ["erasure.request", "erasure.complete"]
        assert not Memory.objects.filter(namespace=self.namespace, user_id=USER).exists()
        # The person is gone with their tombstones: from now on they start afresh.
        self.forgotten.clear()
        self.pinned.clear()
        self.revisions.clear()
        self.texts.clear()
        self.erasures += 1

    # --- invariants ------------------------------------------------------------------------------

    @invariant()
    def forgotten_text_never_comes_back(self):
        held = set(Memory.objects.filter(namespace=self.namespace, user_id=USER).values_list("fingerprint", flat=True))
        assert not held & self.forgotten
        stones = set(
            Tombstone.objects.filter(namespace=self.namespace, user_id=USER).values_list("fingerprint", flat=True)
        )
        assert self.forgotten <= stones

    @invariant()
    def pins_are_what_the_model_says(self):
        pins = set(Pin.objects.filter(memory__namespace=self.namespace).values_list("memory_id", flat=True))
        assert pins == self.pinned

    @invariant()
    def revisions_only_grow_and_have_no_gaps(self):
        memories = dict(Memory.objects.filter(namespace=self.namespace).values_list("pk", "revision"))
        assert set(memories) == set(self.revisions)
        for memory_id, revision in memories.items():
            assert revision >= self.revisions[memory_id]
            numbers = list(
                MemoryRevision.objects.filter(memory_id=memory_id)
                .order_by("revision")
                .values_list("revision", flat=True)
            )
            assert numbers == list(range(1, revision + 1))

    @invariant()
    def the_audit_chain_verifies(self):
        assert self.new_actions() == [], "a change was recorded outside the step that made it"
        report = verify_audit_chain(self.namespace.pk, all_chains=False)
        assert report.ok, report.problem


def run(steps: int, examples: int) -> None:
    run_state_machine_as_test(
        MemoryLifecycle,
        settings=settings(
            max_examples=examples,
            stateful_step_count=steps,
            deadline=None,
            database=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        ),
    )


def test_the_memory_lifecycle_keeps_its_invariants(db) -> None:
    run(steps=20, examples=12)


@pytest.mark.slow
def test_the_memory_lifecycle_keeps_its_invariants_over_many_runs(db) -> None:
    run(steps=40, examples=150)
