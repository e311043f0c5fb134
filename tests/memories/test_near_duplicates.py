"""find_near_duplicates and the cohesion gate of near_duplicate_target."""

from __future__ import annotations

from memoryadmin.memories.services import find_near_duplicates, memory_create, near_duplicate_target
from tests.conftest import SYSTEM


def remember(namespace, text: str, user_id: str = "alice"):
    return memory_create(namespace=namespace, user_id=user_id, text=text, actor=SYSTEM).memory


def test_it_finds_the_user_s_similar_memories_best_first(namespace, other_namespace) -> None:
    close = remember(namespace, "User loves hiking in the Swiss Alps")
    closer = remember(namespace, "User loves hiking the Swiss Alps")
    remember(namespace, "User owns a red bicycle")
    remember(namespace, "User loves hiking the Swiss Alps", user_id="bob")
    remember(other_namespace, "User loves hiking the Swiss Alps")
    found = find_near_duplicates(
        namespace_id=namespace.pk, user_id="alice", text="User loves hiking the Swiss Alps!", threshold=0.8
    )
    assert [pk for pk, _ in found] == [closer.pk, close.pk]
    assert found[0][1] == 1.0 and 0.8 <= found[1][1] < 1.0
    excluded = find_near_duplicates(
        namespace_id=namespace.pk,
        user_id="alice",
        text="User loves hiking the Swiss Alps",
        threshold=0.8,
        exclude=[closer.pk],
    )
    assert [pk for pk, _ in excluded] == [close.pk]


def test_thresholds_below_the_trigram_default_are_exact_too(namespace) -> None:
    loose = remember(namespace, "User likes tea")
    found = find_near_duplicates(namespace_id=namespace.pk, user_id="alice", text="User likes green tea", threshold=0.1)
    assert [pk for pk, _ in found] == [loose.pk]
    assert (
        find_near_duplicates(namespace_id=namespace.pk, user_id="alice", text="User likes green tea", threshold=0.95)
        == []
    )


def test_a_group_merges_only_when_cohesive_and_unbridged(namespace) -> None:
    target = remember(namespace, "User enjoys sailing on Lake Geneva with friends and family")
    text = "User enjoys sailing on Lake Geneva with friends"
    assert near_duplicate_target(namespace_id=namespace.pk, user_id="alice", text=text, threshold=0.8) == target
    # A memory similar to the new text but not to the target: the group is no longer cohesive.
    remember(namespace, "User often enjoys sailing on Lake Geneva with friends")
    assert near_duplicate_target(namespace_id=namespace.pk, user_id="alice", text=text, threshold=0.8) is None


def test_an_outside_neighbour_bridging_the_group_prevents_the_merge(namespace) -> None:
    remember(namespace, "User enjoys sailing on Lake Geneva with friends and family")
    # Similar to that memory, not to the new text: merging would chain unlike texts together.
    remember(namespace, "User enjoys sailing on Lake Geneva with friends and family in summer")
    text = "User enjoys sailing on Lake Geneva with friends"
    assert near_duplicate_target(namespace_id=namespace.pk, user_id="alice", text=text, threshold=0.8) is None
