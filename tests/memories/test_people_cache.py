"""A person's vectors kept between searches (memories/search/people.py): reused while unchanged, never once changed."""

from __future__ import annotations

import time

import numpy as np
import pytest

from memoryadmin.core.replicas import read_connection
from memoryadmin.governance.erasure import erasure_execute, erasure_request
from memoryadmin.memories.embeddings import embed_or_none
from memoryadmin.memories.models import Memory
from memoryadmin.memories.queries import memories_search
from memoryadmin.memories.search.people import PEOPLE, PeopleCache, PersonVectors, person_key
from memoryadmin.memories.services import memory_create, memory_forget, memory_update
from tests.conftest import SYSTEM

FACTS = [
    "Alice plays the cello in a string quartet",
    "Alice adopted a grey cat named Pixel",
    "Alice works as a nurse at the city hospital",
    "Alice is training for a marathon in October",
]


@pytest.fixture(autouse=True)
def _empty_cache():
    PEOPLE.clear()
    yield
    PEOPLE.clear()


def remember(namespace, text: str, user_id: str = "alice") -> Memory:
    result = memory_create(namespace=namespace, user_id=user_id, text=text, actor=SYSTEM)
    assert result.memory is not None
    return result.memory


def held(namespace, user_id: str = "alice") -> PersonVectors | None:
    model = embed_or_none(["probe"])[0].model
    return PEOPLE.held(person_key(read_connection(), namespace.pk, user_id, model))


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_a_persons_vectors_are_reused_while_unchanged(namespace) -> None:
    memories = [remember(namespace, text) for text in FACTS]
    remember(namespace, "Bob keeps bees", user_id="bob")
    first = memories_search(namespace, query="what instrument does she play", user_id="alice").items
    assert first[0].memory.pk == memories[0].pk
    kept = held(namespace)
    assert kept is not None and kept.count == len(FACTS)
    assert {bytes(i) for i in kept.ids} == {m.pk.bytes for m in memories}

    again = memories_search(namespace, query="does she have a pet", user_id="alice").items
    assert again[0].memory.pk == memories[1].pk
    # The same object: the database sent only the mark, which agreed.
    assert held(namespace) is kept


def test_a_new_memory_changes_the_mark_and_is_found(namespace) -> None:
    for text in FACTS:
        remember(namespace, text)
    memories_search(namespace, query="hobbies", user_id="alice")
    before = held(namespace)
    added = remember(namespace, "Alice grows tomatoes on her balcony")
    hits = memories_search(namespace, query="gardening vegetables", user_id="alice").items
    after = held(namespace)
    assert after is not before and after.count == before.count + 1 and after.mark != before.mark
    assert added.pk in {h.memory.pk for h in hits}


def test_an_edit_keeps_the_count_and_changes_the_mark_and_the_vector(namespace) -> None:
    memories = [remember(namespace, text) for text in FACTS]
    memories_search(namespace, query="job", user_id="alice")
    before = held(namespace)
    new_text = "Alice drives a red electric scooter to work"
    memory_update(memory=memories[2], actor=SYSTEM, text=new_text)
    memories_search(namespace, query="job", user_id="alice")
    after = held(namespace)
    assert after is not before and after.count == before.count and after.mark != before.mark
    (position,) = after.positions([memories[2].pk.bytes])
    (old_position,) = before.positions([memories[2].pk.bytes])
    wanted = embed_or_none([new_text])[1][0]
    assert cosine(after.vector(position), wanted) > 0.99
    assert cosine(before.vector(old_position), wanted) < 0.9


def test_a_forgotten_memory_leaves_the_held_vectors(namespace) -> None:
    memories = [remember(namespace, text) for text in FACTS]
    memories_search(namespace, query="cat", user_id="alice")
    memory_forget(memory=memories[1], actor=SYSTEM)
    hits = memories_search(namespace, query="cat", user_id="alice").items
    assert memories[1].pk not in {h.memory.pk for h in hits}
    after = held(namespace)
    assert after.count == len(FACTS) - 1
    assert after.positions([memories[1].pk.bytes]) == [None]


def test_after_an_erasure_the_next_search_lets_the_person_go(namespace) -> None:
    for text in FACTS:
        remember(namespace, text)
    memories_search(namespace, query="cello", user_id="alice")
    assert held(namespace) is not None
    erasure_execute(erasure_id=erasure_request(namespace=namespace, user_id="alice", actor=SYSTEM, enqueue=False).pk)
    assert memories_search(namespace, query="cello", user_id="alice").items == []
    assert held(namespace) is None


def test_the_same_person_in_another_namespace_is_another_entry(namespace, other_namespace) -> None:
    remember(namespace, "Alice plays the cello")
    theirs = remember(other_namespace, "Alice collects vinyl records")
    memories_search(namespace, query="records", user_id="alice")
    hits = memories_search(other_namespace, query="records", user_id="alice").items
    assert [h.memory.pk for h in hits] == [theirs.pk]
    assert held(namespace).count == 1 and held(other_namespace).count == 1
    assert held(namespace).mark != held(other_namespace).mark


def vectors(count: int, seed: int) -> PersonVectors:
    rng = np.random.default_rng(seed)
    blob = b"".join(
        rng.bytes(16) + np.float32(0.01).tobytes() + rng.integers(-127, 128, 8, dtype=np.int8).tobytes()
        for _ in range(count)
    )
    person = PersonVectors.decoded(count, seed, blob, 8)
    assert person is not None
    return person


def test_the_cache_holds_no_more_than_its_budget_least_recently_used_out_first() -> None:
    people = [vectors(10, seed) for seed in range(4)]
    cache = PeopleCache(budget_bytes=people[0].nbytes * 3, idle_seconds=3600)
    for i in range(3):
        cache.keep(("p", i), people[i])
    assert cache.held(("p", 0)) is people[0]  # now the most recently used
    cache.keep(("p", 3), people[3])
    assert cache.held(("p", 1)) is None
    assert [cache.held(("p", i)) is people[i] for i in (0, 2, 3)] == [True, True, True]
    assert cache.nbytes == 3 * people[0].nbytes <= cache.budget
    cache.keep(("big",), vectors(100, 9))
    assert cache.held(("big",)) is None and len(cache) == 3


def test_a_person_left_idle_is_let_go() -> None:
    cache = PeopleCache(budget_bytes=1 << 20, idle_seconds=0.05)
    cache.keep(("p",), vectors(3, 1))
    deadline = time.monotonic() + 0.06
    while time.monotonic() < deadline:
        time.sleep(0.01)
    assert cache.held(("p",)) is None and cache.nbytes == 0


def test_records_that_do_not_add_up_are_not_held() -> None:
    one = vectors(2, 5)
    blob = one.ids.tobytes()[:16] + one.scales[:1].tobytes() + one.codes[0].tobytes()
    assert PersonVectors.decoded(2, 5, blob, 8) is None
