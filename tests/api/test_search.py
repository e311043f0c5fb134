from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from memoryadmin.memories.models import Memory, MemoryStatus
from memoryadmin.memories.services import memory_create
from tests.conftest import SYSTEM


def remember(namespace, text: str, user_id: str = "alice", **kwargs) -> Memory:
    return memory_create(namespace=namespace, user_id=user_id, text=text, actor=SYSTEM, **kwargs).memory


def search(api, query: str, **body):
    return api.post("/api/v1/memories/search", {"query": query, **body})


def test_it_finds_and_ranks_memories(api, namespace) -> None:
    remember(namespace, "Alice is allergic to peanuts", topics=["health"])
    remember(namespace, "Alice likes peanut butter cookies")
    remember(namespace, "Alice lives in Lisbon")
    r = search(api, "peanuts", user_id="alice")
    assert r.status_code == 200
    body = r.json()
    assert {hit["memory"]["text"] for hit in body["items"]} == {
        "Alice is allergic to peanuts",
        "Alice likes peanut butter cookies",
    }
    assert all(isinstance(hit["score"], float) for hit in body["items"])
    assert body["next_cursor"] is None
    r = search(api, '"allergic to peanuts" -cookies', syntax="websearch")
    assert [hit["memory"]["text"] for hit in r.json()["items"]] == ["Alice is allergic to peanuts"]
    r = search(api, "What is Alice allergic to?", user_id="alice")
    assert r.json()["items"][0]["memory"]["text"] == "Alice is allergic to peanuts"
    assert "explain" not in r.json()["items"][0]


def test_it_applies_every_filter_and_never_relaxes_them(api, namespace) -> None:
    tea = remember(namespace, "Alice drinks tea", session_id="s1", agent_id="bot", topics=["drinks"], entities=["tea"])
    remember(namespace, "Bob drinks tea", user_id="bob")
    remember(namespace, "Alice prefers tea to coffee", memory_type="preference", pinned=True)
    Memory.objects.filter(pk=tea.pk).update(created_at=timezone.now() - timedelta(days=10))

    def texts(**filters) -> set[str]:
        r = search(api, "tea", **filters)
        assert r.status_code == 200, r.content
        return {hit["memory"]["text"] for hit in r.json()["items"]}

    assert texts(user_id="bob") == {"Bob drinks tea"}
    assert texts(user_id="alice", session_id="s1") == {"Alice drinks tea"}
    assert texts(agent_id="bot") == {"Alice drinks tea"}
    assert texts(memory_types=["preference"]) == {"Alice prefers tea to coffee"}
    assert texts(topics=["drinks"]) == {"Alice drinks tea"}
    assert texts(entities=["tea"]) == {"Alice drinks tea"}
    assert texts(pinned=True) == {"Alice prefers tea to coffee"}
    assert texts(pinned=False, user_id="alice") == {"Alice drinks tea"}
    week_ago = (timezone.now() - timedelta(days=7)).isoformat()
    assert texts(created_before=week_ago) == {"Alice drinks tea"}
    assert "Alice drinks tea" not in texts(created_after=week_ago)
    assert texts(user_id="carol") == set()
    assert texts(user_id="bob", topics=["drinks"]) == set()


def test_it_leaves_candidates_out_unless_asked(api, namespace) -> None:
    remember(namespace, "Alice might like jazz", status=MemoryStatus.CANDIDATE)
    assert search(api, "jazz").json()["items"] == []
    assert len(search(api, "jazz", status="candidate").json()["items"]) == 1


def test_recency_can_be_turned_off_or_tuned(api, namespace) -> None:
    # The same text for two people: equally relevant, so recency alone orders them.
    fresh = remember(namespace, "Likes tea", user_id="alice")
    old = remember(namespace, "Likes tea", user_id="bob")
    Memory.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=300))
    ranked = [h["memory"]["id"] for h in search(api, "tea").json()["items"]]
    assert ranked == [str(fresh.pk), str(old.pk)]
    scores = [h["score"] for h in search(api, "tea", recency={"enabled": False}).json()["items"]]
    assert abs(scores[0] - scores[1]) < 1e-9
    tuned = search(api, "tea", recency={"freshness_half_life_days": 1000, "access_half_life_days": 1000})
    assert tuned.status_code == 200
    assert search(api, "tea", recency={"access_half_life_days": 0}).status_code == 422


def test_search_updates_access_stats(api, namespace) -> None:
    memory = remember(namespace, "Alice likes tea")
    hit = search(api, "tea").json()["items"][0]["memory"]
    assert hit["last_accessed_at"] is not None
    memory.refresh_from_db()
    assert memory.access_count == 1
    search(api, "tea")
    memory.refresh_from_db()
    assert memory.access_count == 1


def test_it_pages_results(api, namespace, django_assert_max_num_queries) -> None:
    for i in range(7):
        remember(namespace, f"tea note {i}")
    search(api, "warm up")
    seen = []
    cursor = None
    while True:
        with django_assert_max_num_queries(4):
            body = search(api, "tea", limit=3, **({"cursor": cursor} if cursor else {})).json()
        seen.extend(h["memory"]["id"] for h in body["items"])
        cursor = body["next_cursor"]
        if not cursor:
            break
    assert len(seen) == len(set(seen)) == 7


def test_search_keeps_its_query_count_flat(api, namespace, django_assert_max_num_queries) -> None:
    for i in range(50):
        remember(namespace, f"tea note {i}", pinned=i % 3 == 0)
    search(api, "warm up")
    # The key lookup, the candidates, and the page with its access update.
    with django_assert_max_num_queries(4):
        r = search(api, "tea", limit=50, user_id="alice")
    assert len(r.json()["items"]) == 50
    with django_assert_max_num_queries(4):
        r = search(api, "tea", limit=50, explain=True)
    assert len(r.json()["items"]) == 50


def test_it_validates_the_search(api) -> None:
    for body in (
        {"query": ""},
        {},
        {"query": "tea", "limit": 0},
        {"query": "tea", "limit": 201},
        {"query": "tea", "status": "gone"},
        {"query": "tea", "memory_types": ["gossip"]},
        {"query": "tea", "created_after": "yesterday"},
        {"query": "nul \u0000"},
    ):
        r = api.post("/api/v1/memories/search", body)
        assert r.status_code == 422, (body, r.content)
    assert search(api, "tea", user_id="not valid").status_code == 400
    assert search(api, "tea", cursor="nonsense").status_code == 400


def test_a_query_of_only_stop_words_finds_nothing(api, namespace) -> None:
    remember(namespace, "The cat is here")
    r = search(api, "the")
    assert r.status_code == 200
    assert r.json()["items"] == []


def test_explain_gives_each_component_of_the_score(api, namespace) -> None:
    remember(namespace, "Alice drives a red automobile")
    remember(namespace, "Alice drinks green tea")
    r = search(api, "What car does Alice drive?", user_id="alice", explain=True, recency={"enabled": False})
    assert r.status_code == 200
    first = r.json()["items"][0]
    assert first["memory"]["text"] == "Alice drives a red automobile"
    parts = first["explain"]
    assert set(parts) == {
        "fulltext",
        "vector",
        "vector_query",
        "terms",
        "dates",
        "relevance",
        "recency",
        "about_other",
        "opposite_sentiment",
        "own_name",
        "attribute_asked",
        "context",
        "sitting",
        "matches",
    }
    assert parts["recency"] is None
    assert first["score"] == parts["relevance"]
    assert abs(parts["relevance"] - (0.3 * parts["fulltext"] + 0.2 * parts["vector"] + 0.5 * parts["terms"])) < 1e-5
    assert ("car", "automobile") in [(m["query"], m["memory"]) for m in parts["matches"]]
    assert 0 < parts["fulltext"] < 1 and 0 < parts["vector"] < 1 and 0 < parts["vector_query"] < 1


def test_a_question_finds_a_memory_that_shares_no_word_with_it(api, namespace) -> None:
    remember(namespace, "Alice owns an automobile")
    remember(namespace, "Bob owns an automobile", user_id="bob")
    items = search(api, "car", user_id="alice", explain=True).json()["items"]
    assert [hit["memory"]["text"] for hit in items] == ["Alice owns an automobile"]
    assert items[0]["explain"]["fulltext"] == 0
    # The same question in websearch syntax asks for the word itself.
    assert search(api, "car", user_id="alice", syntax="websearch").json()["items"] == []


def test_a_holiday_asked_about_finds_the_trip(api, namespace) -> None:
    remember(namespace, "Alice is thinking about learning Spanish for her trip to Seville in April")
    remember(namespace, "Alice's birthday is on March 3rd")
    items = search(api, "is alice going on holiday?", user_id="alice").json()["items"]
    assert items[0]["memory"]["text"] == "Alice is thinking about learning Spanish for her trip to Seville in April"


def test_a_memory_found_by_meaning_alone_is_still_held_to_every_filter(api, namespace) -> None:
    remember(namespace, "Alice owns an automobile", status=MemoryStatus.CANDIDATE)
    remember(namespace, "Alice rents an automobile", memory_type="episodic")

    def texts(**body) -> list[str]:
        return [h["memory"]["text"] for h in search(api, "car", user_id="alice", **body).json()["items"]]

    assert texts() == ["Alice rents an automobile"]
    assert texts(status="candidate") == ["Alice owns an automobile"]
    assert texts(memory_types=["semantic"]) == []
    assert sorted(texts(status="any")) == ["Alice owns an automobile", "Alice rents an automobile"]
