"""memory_create_many: the same memories, outcomes, evidence and audit events as memory_create one by one."""

from __future__ import annotations

import random
import threading
import uuid

import pytest
from django.db import connection, connections, transaction
from django.test.utils import CaptureQueriesContext

from memoryadmin.audit.models import AuditEvent
from memoryadmin.audit.services import verify_audit_chain
from memoryadmin.core.errors import InvalidInput
from memoryadmin.memories.models import Memory, MemoryEvidence, MemoryRevision, MemorySource, MemoryStatus, Pin
from memoryadmin.memories.services import NewMemory, Outcome, memory_create, memory_create_many, memory_forget
from memoryadmin.memories.services.near_duplicates import BatchNearDuplicates
from tests.conftest import SYSTEM
from tests.extraction.conftest import say


class _Undo(Exception):
    pass


def state(namespace) -> dict[str, object]:
    """Everything the write path leaves behind in a namespace, ids included."""
    return {
        "memories": sorted(
            Memory.objects.filter(namespace=namespace).values_list(
                "id", "user_id", "text", "topics", "entities", "status", "memory_type", "metadata", "source", "revision"
            )
        ),
        "revisions": sorted(
            MemoryRevision.objects.filter(memory__namespace=namespace).values_list(
                "memory_id", "revision", "text", "topics", "entities", "metadata", "actor", "reason"
            )
        ),
        "evidence": sorted(
            MemoryEvidence.objects.filter(memory__namespace=namespace).values_list("memory_id", "message_id")
        ),
        "pins": sorted(Pin.objects.filter(memory__namespace=namespace).values_list("memory_id", "pinned_by", "reason")),
        "audit": list(
            AuditEvent.objects.filter(namespace=namespace)
            .order_by("id")
            .values_list("action", "actor_type", "actor", "target_type", "target_id", "subject_hash", "reason", "data")
        ),
    }


def described(results) -> list[tuple]:
    out = []
    for result in results:
        if isinstance(result, InvalidInput):
            out.append(("invalid", str(result)))
        else:
            memory = result.memory
            out.append(
                (
                    result.outcome,
                    memory.pk if memory else None,
                    (memory.topics, memory.entities) if memory else None,
                    result.merged_with,
                )
            )
    return out


def one_by_one(namespace, items, merge) -> list:
    results = []
    for item in items:
        try:
            results.append(memory_create(namespace=namespace, actor=SYSTEM, merge_near_duplicates=merge, **vars(item)))
        except InvalidInput as exc:
            results.append(exc)
    return results


def assert_same_as_one_by_one(namespace, items: list[NewMemory], *, merge: bool = True) -> list:
    """Write `items` one by one, undo it, write them as a batch: results and stored state must match."""
    for item in items:
        item.memory_id = item.memory_id or uuid.uuid4()  # the same ids both ways
    try:
        with transaction.atomic():
            expected = described(one_by_one(namespace, items, merge))
            expected_state = state(namespace)
            raise _Undo
    except _Undo:
        pass
    results = memory_create_many(namespace=namespace, actor=SYSTEM, items=items, merge_near_duplicates=merge)
    assert described(results) == expected
    assert state(namespace) == expected_state
    report = verify_audit_chain()
    assert report.ok, report
    return results


def remember(namespace, text: str, user_id: str = "alice", **kwargs):
    return memory_create(namespace=namespace, user_id=user_id, text=text, actor=SYSTEM, **kwargs).memory


def test_duplicates_within_the_batch_and_of_stored_memories_link_their_evidence(namespace) -> None:
    stored = remember(namespace, "User likes jazz")
    _, said = say(namespace, "a", "b", "c", "d")
    m = [message.pk for message in said]
    results = assert_same_as_one_by_one(
        namespace,
        [
            NewMemory(user_id="alice", text="User lives in Lyon", evidence_message_ids=[m[0]]),
            NewMemory(user_id="alice", text="  user LIVES in Lyon! ", evidence_message_ids=[m[1], m[0]]),
            NewMemory(user_id="alice", text="User likes JAZZ.", evidence_message_ids=[m[2]]),
            NewMemory(user_id="bob", text="User lives in Lyon", evidence_message_ids=[m[3]]),
        ],
        merge=False,
    )
    assert [r.outcome for r in results] == [Outcome.CREATED, Outcome.DUPLICATE, Outcome.DUPLICATE, Outcome.CREATED]
    assert results[1].memory.pk == results[0].memory.pk and results[2].memory.pk == stored.pk
    assert sorted(MemoryEvidence.objects.filter(memory=results[0].memory).values_list("message_id", flat=True)) == [
        m[0],
        m[1],
    ]
    assert Memory.objects.filter(namespace=namespace).count() == 3


def test_tombstoned_texts_are_suppressed_and_leave_nothing(namespace) -> None:
    memory_forget(memory=remember(namespace, "User lives in Lyon"), actor=SYSTEM)
    before = AuditEvent.objects.count()
    results = assert_same_as_one_by_one(
        namespace,
        [
            NewMemory(user_id="alice", text="User lives in LYON"),
            NewMemory(user_id="bob", text="User lives in Lyon"),
            NewMemory(user_id="alice", text="User lives in Lyon."),
        ],
    )
    assert [r.outcome for r in results] == [Outcome.SUPPRESSED, Outcome.CREATED, Outcome.SUPPRESSED]
    assert AuditEvent.objects.count() == before + 1


def test_a_space_that_splits_a_word_is_suppressed_in_a_batch_as_one_by_one(namespace) -> None:
    memory_forget(memory=remember(namespace, "User lives in Lyon"), actor=SYSTEM)
    results = assert_same_as_one_by_one(
        namespace,
        [
            NewMemory(user_id="alice", text="User li\u00a0ves in Lyon"),
            NewMemory(user_id="alice", text="User lives in Ly\u202fon"),
            NewMemory(user_id="alice", text="User lives\u00a0in Paris"),
        ],
    )
    assert [r.outcome for r in results] == [Outcome.SUPPRESSED, Outcome.SUPPRESSED, Outcome.CREATED]


def test_near_duplicates_merge_into_stored_and_earlier_memories_under_the_cohesion_gate(namespace) -> None:
    remember(namespace, "User enjoys sailing on Lake Geneva with friends and family", topics=["sailing"])
    results = assert_same_as_one_by_one(
        namespace,
        [
            # Merges into the stored memory, adding its topic.
            NewMemory(user_id="alice", text="User enjoys sailing on Lake Geneva with friends", topics=["lakes"]),
            NewMemory(user_id="alice", text="User collects vintage postcards from Lisbon", topics=["hobby"]),
            # Merges into the memory the batch just created.
            NewMemory(user_id="alice", text="User collects vintage postcards from Lisbon!!", entities=["Lisbon"]),
            NewMemory(user_id="alice", text="User collects old vintage postcards from Lisbon", topics=["paper"]),
            # Similar to the stored memory, not to the text it merged: a loose chain, created.
            NewMemory(user_id="alice", text="User often enjoys sailing on Lake Geneva with friends"),
            # The first text again: it was merged, not stored, and that memory now bridges the group: created.
            NewMemory(user_id="alice", text="User enjoys sailing on Lake Geneva with friends!"),
        ],
    )
    assert [r.outcome for r in results] == [
        Outcome.MERGED,
        Outcome.CREATED,
        Outcome.DUPLICATE,
        Outcome.MERGED,
        Outcome.CREATED,
        Outcome.CREATED,
    ]
    postcards = Memory.objects.get(namespace=namespace, text="User collects vintage postcards from Lisbon")
    assert postcards.topics == ["hobby", "paper"]
    # Revision 1 keeps what was written first; the merged labels are the memory's own.
    assert postcards.revisions.get().topics == ["hobby"]


def test_a_merge_that_would_exceed_the_label_limit_is_skipped_like_one_by_one(namespace) -> None:
    remember(
        namespace, "User enjoys sailing on Lake Geneva with friends and family", topics=[f"t{i}" for i in range(45)]
    )
    results = assert_same_as_one_by_one(
        namespace,
        [
            NewMemory(user_id="alice", text="User enjoys sailing on Lake Geneva with friends", topics=["a", "b"]),
            NewMemory(
                user_id="alice",
                text="User enjoys sailing on Lake Geneva with friends",
                topics=[f"x{i}" for i in range(9)],
            ),
            NewMemory(user_id="alice", text=""),
            NewMemory(user_id="alice", text="User lives in Lyon", pinned=True, pin_reason="core"),
        ],
    )
    assert isinstance(results[1], InvalidInput) and isinstance(results[2], InvalidInput)
    assert results[3].created and Pin.objects.filter(memory=results[3].memory).exists()


def test_crowded_groups_are_read_past_the_group_limit(namespace) -> None:
    # More similar stored memories than a group holds: every member has neighbours outside it.
    for i in range(23):
        remember(namespace, f"User collects vintage postcards from Lisbon number {i:02d}")
    remember(namespace, "User enjoys sailing on Lake Geneva with friends and family")
    items = [
        NewMemory(user_id="alice", text=f"User collects vintage postcards from Lisbon number {i}") for i in range(8)
    ]
    items += [NewMemory(user_id="alice", text="User enjoys sailing on Lake Geneva with friends")]
    results = assert_same_as_one_by_one(namespace, items)
    assert results[-1].outcome is Outcome.MERGED


def test_a_memory_the_batch_created_among_too_many_neighbours_still_bridges_a_group(namespace) -> None:
    base = "User collects vintage postcards from Lisbon and Porto"
    for i in range(22):
        remember(namespace, f"{base} no {i:02d} red")
    stamps = remember(namespace, f"{base} stamps")
    results = assert_same_as_one_by_one(
        namespace,
        [
            # Similar to all the stored ones: more neighbours than a group holds, so it is created.
            NewMemory(user_id="alice", text=base),
            # Similar to "stamps" only, but "stamps" is similar to the memory just created: a bridge.
            NewMemory(user_id="alice", text=f"{base} stamps and coins too"),
        ],
    )
    assert [r.outcome for r in results] == [Outcome.CREATED, Outcome.CREATED]
    assert Memory.objects.get(pk=stamps.pk).revision == 1


@pytest.mark.parametrize("seed", range(6))
def test_random_batches_match_one_by_one(make_namespace, seed) -> None:
    rng = random.Random(seed)
    namespace = make_namespace(f"random-{seed}", review_required=seed % 2 == 1)
    phrases = [
        "enjoys sailing on Lake Geneva with friends and family in summer",
        "collects vintage postcards from Lisbon and Porto markets",
        "likes black coffee early in the morning before work",
    ]

    def variant() -> str:
        words = rng.choice(phrases).split()
        for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
            words.pop(rng.randrange(len(words)))
        text = "User " + " ".join(words)
        return rng.choice([text, text.upper(), text + "!", f"  {text.lower()} "])

    _, said = say(namespace, *[f"message {i}" for i in range(6)])
    for _ in range(rng.randrange(0, 12)):
        memory_create(
            namespace=namespace,
            user_id=rng.choice(["alice", "bob"]),
            text=variant(),
            actor=SYSTEM,
            topics=rng.sample(["a", "b", "c"], rng.randrange(3)),
            merge_near_duplicates=rng.random() < 0.5,
        )
    for memory in list(Memory.objects.filter(namespace=namespace))[:2]:
        memory_forget(memory=memory, actor=SYSTEM)
    items = [
        NewMemory(
            user_id=rng.choice(["alice", "bob"]),
            text=variant(),
            source=MemorySource.EXTRACTION,
            topics=rng.sample(["a", "b", "c", "d"], rng.randrange(4)),
            entities=rng.sample(["Lisbon", "Geneva"], rng.randrange(3)),
            metadata={"n": n},
            evidence_message_ids=rng.sample([m.pk for m in said], rng.randrange(3)),
        )
        for n in range(rng.randrange(5, 30))
    ]
    results = assert_same_as_one_by_one(namespace, items)
    outcomes = {r.outcome for r in results if not isinstance(r, InvalidInput)}
    assert Outcome.CREATED in outcomes
    if namespace.review_required:
        assert set(Memory.objects.filter(source=MemorySource.EXTRACTION).values_list("status", flat=True)) <= {
            MemoryStatus.CANDIDATE
        }


def batch_of(size: int, user_id: str = "alice") -> list[NewMemory]:
    """`size` unlike texts, then an exact and a near duplicate of each."""
    rng = random.Random(size)
    texts = [" ".join(f"{rng.getrandbits(40):010x}" for _ in range(4)) for _ in range(size)]
    return (
        [NewMemory(user_id=user_id, text=text, topics=["t"]) for text in texts]
        + [NewMemory(user_id=user_id, text=text.upper(), topics=["u"]) for text in texts]
        + [NewMemory(user_id=user_id, text=text + " z", topics=["v"]) for text in texts]
    )


def test_the_statements_of_a_batch_do_not_grow_with_its_items(namespace) -> None:
    remember(namespace, "User keeps a notebook about topic 0 and subject 0 daily", user_id="bob")

    def statements(items) -> int:
        with CaptureQueriesContext(connection) as queries:
            memory_create_many(namespace=namespace, actor=SYSTEM, items=items, merge_near_duplicates=True)
        return len(queries)

    small, large = statements(batch_of(2, "alice")), statements(batch_of(12, "carol"))
    assert small == large
    outcomes = {m.text: m.topics for m in Memory.objects.filter(user_id="carol")}
    assert len(outcomes) == 12 and all(topics == ["t", "v"] for topics in outcomes.values())
    # Stored memories to merge into (one locking read, one update) add the same statements whatever their number.
    with_stored = statements(batch_of(2, "bob"))
    assert with_stored == statements(batch_of(12, "alice")) <= small + 2


@pytest.mark.django_db(transaction=True)
def test_another_writer_of_the_same_text_waits_for_the_batch_and_finds_a_duplicate(namespace, monkeypatch) -> None:
    original = BatchNearDuplicates.__init__
    other: dict[str, object] = {}

    def store_elsewhere(self, *args, **kwargs) -> None:
        original(self, *args, **kwargs)

        def work() -> None:
            try:
                other["result"] = memory_create(
                    namespace=namespace, user_id="alice", text="User lives in Lyon", actor=SYSTEM
                )
            finally:
                connections.close_all()

        other["thread"] = thread = threading.Thread(target=work)
        thread.start()
        thread.join(0.5)
        # The batch holds the text's lock: the other writer cannot store it in the middle of the batch.
        other["waited"] = thread.is_alive()

    monkeypatch.setattr(BatchNearDuplicates, "__init__", store_elsewhere)
    _, said = say(namespace, "I live in Lyon.")
    results = memory_create_many(
        namespace=namespace,
        actor=SYSTEM,
        items=[
            NewMemory(user_id="alice", text="User likes jazz"),
            NewMemory(user_id="alice", text="User lives in Lyon", evidence_message_ids=[said[0].pk]),
        ],
        merge_near_duplicates=True,
    )
    other["thread"].join(20)
    assert other["waited"] is True
    assert [r.outcome for r in results] == [Outcome.CREATED, Outcome.CREATED]
    assert other["result"].outcome is Outcome.DUPLICATE
    stored = Memory.objects.get(text="User lives in Lyon")
    assert results[1].memory.pk == stored.pk == other["result"].memory.pk
    assert list(stored.evidence.values_list("message_id", flat=True)) == [said[0].pk]
    assert Memory.objects.count() == 2 and verify_audit_chain().ok
