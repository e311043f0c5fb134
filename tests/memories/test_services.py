from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction

from memoryadmin.core.errors import Conflict, InvalidInput
from memoryadmin.core.fingerprints import normalise_text, text_fingerprint
from memoryadmin.memories.models import Memory, MemoryRevision, MemoryStatus, Tombstone, TombstoneReason
from memoryadmin.memories.services import (
    Outcome,
    memory_approve,
    memory_create,
    memory_forget,
    memory_pin,
    memory_reject,
    memory_unpin,
    memory_update,
)
from tests.conftest import SYSTEM


def create(namespace, text="User lives in Lyon", user_id="alice", **kwargs):
    return memory_create(namespace=namespace, user_id=user_id, text=text, actor=SYSTEM, **kwargs)


def test_it_creates_a_memory_with_revision_one_and_an_audit_event(namespace) -> None:
    result = create(namespace)
    assert result.outcome is Outcome.CREATED
    memory = result.memory
    assert memory.status == MemoryStatus.ACTIVE
    assert list(memory.revisions.values_list("revision", "text")) == [(1, "User lives in Lyon")]
    from memoryadmin.audit.models import AuditEvent

    assert AuditEvent.objects.filter(action="memory.create", target_id=str(memory.pk)).count() == 1


def test_normalisation_folds_case_punctuation_space_and_compatibility_forms() -> None:
    assert normalise_text("  User  LIVES in Lyon!! ") == "user lives in lyon"
    assert normalise_text("ｕｓｅｒ lives — in Lyon.") == "user lives in lyon"
    assert text_fingerprint("User lives in Lyon") == text_fingerprint("user lives in LYON.")
    assert text_fingerprint("User lives in Lyon") != text_fingerprint("User lives in Paris")


def test_it_dedupes_normalised_text_per_user(namespace) -> None:
    first = create(namespace, "User likes jazz")
    again = create(namespace, "  user LIKES jazz!  ")
    assert again.outcome is Outcome.DUPLICATE
    assert again.memory.pk == first.memory.pk
    other_user = create(namespace, "User likes jazz", user_id="bob")
    assert other_user.outcome is Outcome.CREATED
    assert Memory.objects.filter(namespace=namespace).count() == 2


def test_the_database_refuses_a_second_copy_of_the_same_text_for_a_user(namespace) -> None:
    memory = create(namespace).memory
    clone = Memory(
        namespace=namespace,
        user_id="alice",
        text="x",
        fingerprint=memory.fingerprint,
        created_at=memory.created_at,
        updated_at=memory.updated_at,
    )
    with pytest.raises(IntegrityError), transaction.atomic():
        clone.save(force_insert=True)


def test_forgetting_leaves_a_tombstone_that_refuses_the_text(namespace) -> None:
    memory = create(namespace, "User has a cat named Miso").memory
    tombstone = memory_forget(memory=memory, actor=SYSTEM, reason="asked")
    assert tombstone.reason == TombstoneReason.FORGOTTEN
    assert tombstone.text == ""  # a person's own request keeps only the fingerprint
    assert not Memory.objects.filter(pk=memory.pk).exists()
    again = create(namespace, "user has a cat named miso.")
    assert again.outcome is Outcome.SUPPRESSED
    assert again.memory is None
    assert create(namespace, "User has a cat named Miso", user_id="bob").outcome is Outcome.CREATED


@pytest.mark.parametrize(
    "hidden",
    ["\u00ad", "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\ufe0f", "\U000e0041", "\U000e0100", "\u202e"],
    ids=["soft-hyphen", "zwsp", "zwnj", "zwj", "word-joiner", "bom", "vs16", "tag", "vs17", "rlo"],
)
def test_an_invisible_character_inside_a_word_does_not_bring_a_forgotten_text_back(namespace, hidden) -> None:
    memory_forget(memory=create(namespace, "Bob likes chess").memory, actor=SYSTEM, reason="asked")
    assert create(namespace, f"Bob li{hidden}kes chess").outcome is Outcome.SUPPRESSED
    assert create(namespace, f"Bob likes{hidden} chess").outcome is Outcome.SUPPRESSED


def test_tombstones_are_unique_per_namespace_user_and_fingerprint(namespace) -> None:
    Tombstone.objects.create(namespace=namespace, user_id="alice", fingerprint="f" * 64, reason="forgotten", actor="t")
    with pytest.raises(IntegrityError), transaction.atomic():
        Tombstone.objects.create(namespace=namespace, user_id="alice", fingerprint="f" * 64, reason="policy", actor="t")


def test_forgetting_a_pinned_memory_needs_force(namespace) -> None:
    memory = create(namespace, pinned=True).memory
    with pytest.raises(Conflict) as exc:
        memory_forget(memory=memory, actor=SYSTEM)
    assert exc.value.code == "pinned"
    assert Memory.objects.filter(pk=memory.pk).exists()
    memory_forget(memory=memory, actor=SYSTEM, force=True)
    assert not Memory.objects.filter(pk=memory.pk).exists()


def test_pin_and_unpin(namespace) -> None:
    memory = create(namespace).memory
    memory_pin(memory=memory, actor=SYSTEM, reason="core fact")
    assert memory.__class__.objects.filter(pk=memory.pk, pin__isnull=False).exists()
    memory_unpin(memory=memory, actor=SYSTEM)
    assert memory.__class__.objects.filter(pk=memory.pk, pin__isnull=True).exists()


def test_updates_append_revisions(namespace) -> None:
    memory = create(namespace).memory
    memory = memory_update(memory=memory, actor=SYSTEM, text="User lives in Paris", reason="moved")
    memory = memory_update(memory=memory, actor=SYSTEM, topics=["home"])
    assert memory.revision == 3
    revisions = list(MemoryRevision.objects.filter(memory=memory).values_list("revision", "text", "topics"))
    assert revisions == [
        (1, "User lives in Lyon", []),
        (2, "User lives in Paris", []),
        (3, "User lives in Paris", ["home"]),
    ]
    unchanged = memory_update(memory=memory, actor=SYSTEM, text="User lives in Paris")
    assert unchanged.revision == 3


def test_an_update_cannot_take_a_tombstoned_or_duplicate_text(namespace) -> None:
    forgotten = create(namespace, "User is allergic to nuts").memory
    memory_forget(memory=forgotten, actor=SYSTEM)
    memory = create(namespace).memory
    other = create(namespace, "User likes tea").memory
    with pytest.raises(Conflict) as exc:
        memory_update(memory=memory, actor=SYSTEM, text="user is allergic to nuts")
    assert exc.value.code == "tombstoned"
    with pytest.raises(Conflict) as exc:
        memory_update(memory=memory, actor=SYSTEM, text=other.text)
    assert exc.value.code == "duplicate"
    memory.refresh_from_db()
    assert memory.text == "User lives in Lyon" and memory.revision == 1


def test_review_required_makes_extracted_memories_candidates(make_namespace) -> None:
    ns = make_namespace("review", review_required=True)
    candidate = create(ns, source="extraction").memory
    assert candidate.status == MemoryStatus.CANDIDATE
    assert create(ns, "User likes tea", source="api").memory.status == MemoryStatus.ACTIVE
    memory_approve(memory=candidate, actor=SYSTEM)
    candidate.refresh_from_db()
    assert candidate.status == MemoryStatus.ACTIVE
    with pytest.raises(Conflict):
        memory_approve(memory=candidate, actor=SYSTEM)


def test_rejecting_a_candidate_keeps_its_text_in_the_tombstone(make_namespace) -> None:
    ns = make_namespace("review", review_required=True)
    candidate = create(ns, "User is a spy", source="extraction").memory
    tombstone = memory_reject(memory=candidate, actor=SYSTEM, reason="wrong")
    assert tombstone.reason == TombstoneReason.REJECTED
    assert tombstone.text == "User is a spy"
    assert create(ns, "User is a spy", source="extraction").outcome is Outcome.SUPPRESSED


@pytest.mark.parametrize("text", ["", "   ", "nul\x00byte", "x" * 5000, "\u200b\u00ad \u2060"])
def test_it_refuses_bad_text(namespace, text) -> None:
    with pytest.raises(InvalidInput):
        create(namespace, text)
    assert not Memory.objects.exists()


def test_near_duplicates_merge_only_into_a_cohesive_group(namespace) -> None:
    base = create(namespace, "User prefers window seats on long flights").memory
    merged = create(namespace, "User prefers window seats on long flight", merge_near_duplicates=True)
    assert merged.outcome is Outcome.MERGED
    assert merged.memory.pk == base.pk
    separate = create(namespace, "User prefers aisle seats on short trains", merge_near_duplicates=True)
    assert separate.outcome is Outcome.CREATED


def test_the_generated_tsvector_is_searchable_in_the_writing_transaction(namespace) -> None:
    with transaction.atomic():
        memory = create(namespace, "User adores Portuguese custard tarts").memory
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT id FROM memories_memory WHERE search_vector @@ websearch_to_tsquery('english', %s)",
                ["custard tart"],
            )
            assert [row[0] for row in cursor.fetchall()] == [memory.pk]
