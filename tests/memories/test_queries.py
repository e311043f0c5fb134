from __future__ import annotations

import math
import uuid
from datetime import timedelta

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from memoryadmin.core.errors import InvalidInput, NotFound
from memoryadmin.core.pagination import InvalidCursor
from memoryadmin.memories.embeddings import WordLlamaEmbedder
from memoryadmin.memories.models import Memory, MemoryStatus
from memoryadmin.memories.queries import Recency, known_facts, memories_page, memories_search, memory_get
from memoryadmin.memories.representations import memory_dict
from memoryadmin.memories.search import scoring
from memoryadmin.memories.search.scoring import FEEDBACK_WEIGHT
from memoryadmin.memories.services import memory_create, memory_pin
from tests.conftest import SYSTEM


def remember(namespace, text: str, user_id: str = "alice", **kwargs) -> Memory:
    result = memory_create(namespace=namespace, user_id=user_id, text=text, actor=SYSTEM, **kwargs)
    assert result.memory is not None
    return result.memory


def age(memory: Memory, *, created_days: float = 0, accessed_days: float | None = None) -> None:
    now = timezone.now()
    Memory.objects.filter(pk=memory.pk).update(
        created_at=now - timedelta(days=created_days),
        last_accessed_at=None if accessed_days is None else now - timedelta(days=accessed_days),
    )


def test_it_gets_a_memory_with_its_pin(namespace) -> None:
    memory = remember(namespace, "Alice likes green tea")
    memory_pin(memory=memory, actor=SYSTEM)
    found = memory_get(namespace, str(memory.pk))
    assert found.pinned is True
    assert memory_dict(found, pinned=found.pinned)["pinned"] is True


def test_it_checks_namespace(namespace, other_namespace) -> None:
    memory = remember(namespace, "Alice likes green tea")
    with pytest.raises(NotFound):
        memory_get(other_namespace, memory.pk)
    with pytest.raises(NotFound):
        memory_get(namespace, "not-a-uuid")
    with pytest.raises(NotFound):
        memory_get(namespace, uuid.uuid4())


def test_memory_dict_has_exactly_the_api_fields(namespace) -> None:
    memory = memory_get(namespace, remember(namespace, "Alice likes green tea", topics=["drinks"]).pk)
    data = memory_dict(memory, pinned=False)
    assert list(data) == [
        "id",
        "text",
        "user_id",
        "session_id",
        "agent_id",
        "memory_type",
        "status",
        "topics",
        "entities",
        "metadata",
        "pinned",
        "source",
        "created_at",
        "updated_at",
        "last_accessed_at",
        "revision",
        "subject",
        "attribute",
        "event_date",
        "event_date_precision",
        "stated_at",
        "superseded_by",
        "superseded_at",
    ]
    assert data["id"] == str(memory.pk)
    assert data["created_at"].endswith("Z")
    assert data["session_id"] is None
    assert data["topics"] == ["drinks"]


def test_it_pages_newest_first_without_gaps(namespace, django_assert_max_num_queries) -> None:
    memories = [remember(namespace, f"fact number {i}") for i in range(7)]
    start = timezone.now()
    for i, memory in enumerate(memories):
        Memory.objects.filter(pk=memory.pk).update(created_at=start - timedelta(minutes=i))
    seen = []
    cursor = None
    while True:
        with django_assert_max_num_queries(1):
            page = memories_page(namespace, limit=3, cursor=cursor)
        seen.extend(m.pk for m in page.items)
        cursor = page.next_cursor
        if cursor is None:
            break
    assert seen == [m.pk for m in memories]


def test_it_filters_the_page(namespace) -> None:
    tea = remember(namespace, "Alice likes green tea")
    remember(namespace, "Bob likes coffee", user_id="bob")
    memory_pin(memory=tea, actor=SYSTEM)
    assert [m.pk for m in memories_page(namespace, user_id="alice").items] == [tea.pk]
    assert [m.pk for m in memories_page(namespace, pinned=True).items] == [tea.pk]
    assert [m.user_id for m in memories_page(namespace, pinned=False).items] == ["bob"]
    assert memories_page(namespace, status="candidate").items == []


def test_it_refuses_a_foreign_cursor(namespace) -> None:
    remember(namespace, "Alice likes green tea")
    with pytest.raises(InvalidCursor):
        memories_page(namespace, cursor="bm90LWEtY3Vyc29y")


def test_search_ranks_the_memory_that_answers_a_question_first(namespace) -> None:
    remember(namespace, "Alice is allergic to peanuts")
    remember(namespace, "Alice likes green tea with peanuts on the side")
    remember(namespace, "Alice lives in Lisbon")
    page = memories_search(namespace, query="Is Alice allergic to peanuts?", user_id="alice")
    # Any word may match, so the name alone finds the third, ranked last.
    assert [hit.memory.text for hit in page.items] == [
        "Alice is allergic to peanuts",
        "Alice likes green tea with peanuts on the side",
        "Alice lives in Lisbon",
    ]
    assert page.items[0].score > page.items[1].score > page.items[2].score


def _group_chat(namespace) -> None:
    for text in [
        "Caroline relaxes by walking her dog, as Melanie does.",
        "Caroline relaxes with yoga.",
        "Melanie unwinds at her pottery class.",
        "Melanie has two kids.",
        "Relaxing is hard with two kids.",
    ]:
        remember(namespace, text, user_id="chat")


def _relevance(namespace, query: str) -> dict[str, tuple[float, bool]]:
    page = memories_search(namespace, query=query, user_id="chat", explain=True, touch=False)
    return {hit.memory.text: (hit.explain["relevance"], hit.explain["about_other"]) for hit in page.items}


def test_a_memory_about_someone_else_than_the_person_asked_about_ranks_lower(namespace, monkeypatch) -> None:
    _group_chat(namespace)
    ranked = _relevance(namespace, "How does Melanie relax?")
    monkeypatch.setattr(scoring, "OTHER_PERSON_WEIGHT", 1.0)
    plain = _relevance(namespace, "How does Melanie relax?")
    about_caroline = {"Caroline relaxes by walking her dog, as Melanie does.", "Caroline relaxes with yoga."}
    assert {text for text, (_, other) in ranked.items() if other} == about_caroline
    for text, (relevance, _) in ranked.items():
        expected = plain[text][0] * (0.8 if text in about_caroline else 1.0)
        assert relevance == pytest.approx(expected)


def test_a_name_may_have_any_letters_and_a_possessive(namespace) -> None:
    for text in ["José's band plays jazz.", "José sings.", "Zoë plays jazz too.", "Zoë's cat hates jazz."]:
        remember(namespace, text, user_id="chat")
    marks = _relevance(namespace, "What jazz does José's band play?")
    assert {text for text, (_, other) in marks.items() if other} == {"Zoë plays jazz too.", "Zoë's cat hates jazz."}


def test_a_question_naming_no_one_the_memories_are_about_marks_nothing(namespace) -> None:
    _group_chat(namespace)
    remember(namespace, "Caroline: How do you relax? Melanie: Pottery!", user_id="chat", memory_type="utterance")
    assert not any(other for _, other in _relevance(namespace, "How do people relax?").values())
    assert not any(other for _, other in _relevance(namespace, "How does Alice relax?").values())
    both = _relevance(namespace, "How do Caroline and Melanie relax?")
    assert both and not any(other for _, other in both.values())
    # An utterance leads with its speaker, not its subject.
    assert _relevance(namespace, "How does Melanie relax?")["Caroline: How do you relax? Melanie: Pottery!"][1] is False


def test_websearch_syntax_returns_only_its_matches(namespace) -> None:
    remember(namespace, "Alice is allergic to peanuts")
    remember(namespace, "Alice likes green tea with peanuts on the side")
    page = memories_search(namespace, query="peanuts allergic", user_id="alice", syntax="websearch")
    assert [hit.memory.text for hit in page.items] == ["Alice is allergic to peanuts"]
    page = memories_search(namespace, query='peanuts -"green tea"', user_id="alice", syntax="websearch")
    assert [hit.memory.text for hit in page.items] == ["Alice is allergic to peanuts"]


def test_search_never_relaxes_filters(namespace) -> None:
    remember(namespace, "Alice likes green tea", topics=["drinks"])
    assert memories_search(namespace, query="tea", user_id="bob").items == []
    assert memories_search(namespace, query="tea", topics=["food"]).items == []
    assert len(memories_search(namespace, query="tea", topics=["drinks", "food"]).items) == 1


def test_search_leaves_candidates_out_unless_asked(namespace) -> None:
    remember(namespace, "Alice likes green tea", status=MemoryStatus.CANDIDATE)
    assert memories_search(namespace, query="tea").items == []
    assert len(memories_search(namespace, query="tea", status="candidate").items) == 1
    assert len(memories_search(namespace, query="tea", status="any").items) == 1


def test_search_blends_recency_into_the_score(namespace) -> None:
    # The same text for two people: equally relevant, so recency alone orders them.
    recent = remember(namespace, "Likes tea", user_id="alice")
    stale = remember(namespace, "Likes tea", user_id="bob")
    age(recent, created_days=1)
    age(stale, created_days=400, accessed_days=400)
    hits = memories_search(namespace, query="tea", touch=False, explain=True).items
    assert [hit.memory.pk for hit in hits] == [recent.pk, stale.pk]
    assert hits[0].explain["relevance"] == pytest.approx(hits[1].explain["relevance"])
    assert hits[0].explain["recency"] > hits[1].explain["recency"]
    assert hits[0].score == pytest.approx(0.8 * hits[0].explain["relevance"] + 0.2 * hits[0].explain["recency"])
    text_only = memories_search(namespace, query="tea", recency=Recency(enabled=False), touch=False, explain=True)
    assert text_only.items[0].score == pytest.approx(text_only.items[1].score)
    assert text_only.items[0].score == pytest.approx(text_only.items[0].explain["relevance"])
    assert text_only.items[0].explain["recency"] is None


def test_search_touches_access_at_most_once_per_interval(namespace) -> None:
    memory = remember(namespace, "Alice likes green tea")
    memories_search(namespace, query="tea")
    memories_search(namespace, query="tea")
    memory.refresh_from_db()
    assert memory.access_count == 1
    assert memory.last_accessed_at is not None
    Memory.objects.filter(pk=memory.pk).update(last_accessed_at=timezone.now() - timedelta(minutes=16))
    hits = memories_search(namespace, query="tea").items
    memory.refresh_from_db()
    assert memory.access_count == 2
    assert hits[0].memory.access_count == 2


def test_a_search_whose_page_was_just_touched_writes_nothing(namespace) -> None:
    """Searched again within the interval, a person's search reads, and writes nothing at all."""
    remember(namespace, "Alice likes green tea")
    remember(namespace, "Alice drinks tea at noon")
    memories_search(namespace, query="tea")
    with CaptureQueriesContext(connection) as again:
        memories_search(namespace, query="tea")
    assert not [q["sql"] for q in again.captured_queries if "UPDATE" in q["sql"]]
    remember(namespace, "Alice brews tea for her friends")
    with CaptureQueriesContext(connection) as new_memory:
        hits = memories_search(namespace, query="tea").items
    # The new memory is due: the page is touched, and only that memory counts a new access.
    assert [q["sql"] for q in new_memory.captured_queries if "UPDATE" in q["sql"]]
    assert [hit.memory.access_count for hit in hits] == [1, 1, 1]
    assert sorted(Memory.objects.values_list("access_count", flat=True)) == [1, 1, 1]


def test_search_pages_by_score(namespace) -> None:
    for i in range(5):
        remember(namespace, f"tea fact {i} " + "tea " * i)
    seen = []
    cursor = None
    while True:
        page = memories_search(namespace, query="tea", limit=2, cursor=cursor)
        seen.extend(hit.memory.pk for hit in page.items)
        cursor = page.next_cursor
        if cursor is None:
            break
    assert len(seen) == 5
    assert len(set(seen)) == 5


def test_search_refuses_an_empty_query(namespace) -> None:
    with pytest.raises(InvalidInput):
        memories_search(namespace, query="   ")


def test_a_natural_query_matches_any_of_its_words_and_websearch_all(namespace) -> None:
    remember(namespace, "Alice likes green tea")
    assert len(memories_search(namespace, query="what tea should I brew?").items) == 1
    assert memories_search(namespace, query="what tea should I brew?", syntax="websearch").items == []


def test_it_refuses_an_unknown_syntax(namespace) -> None:
    with pytest.raises(InvalidInput):
        memories_search(namespace, query="tea", syntax="regex")


@pytest.mark.django_db(transaction=True)
def test_a_touch_on_its_own_does_not_wait_for_the_wal_and_changes_no_setting(namespace) -> None:
    memory = remember(namespace, "Alice likes green tea")
    with CaptureQueriesContext(connection) as queries:
        memories_search(namespace, query="tea")
    assert "synchronous_commit" in queries.captured_queries[-1]["sql"]
    memory.refresh_from_db()
    assert memory.access_count == 1
    with connection.cursor() as cursor:
        cursor.execute("SHOW synchronous_commit")
        assert cursor.fetchone()[0] == "on"


def test_a_touch_inside_a_callers_transaction_keeps_its_commit_durable(namespace) -> None:
    remember(namespace, "Alice likes green tea")
    with CaptureQueriesContext(connection) as queries:
        memories_search(namespace, query="tea")
    assert "synchronous_commit" not in queries.captured_queries[-1]["sql"]


def test_a_recent_access_needs_no_update_at_all(namespace) -> None:
    remember(namespace, "Alice likes green tea")
    memories_search(namespace, query="tea")
    with CaptureQueriesContext(connection) as queries:
        (hit,) = memories_search(namespace, query="tea").items
    # The page's statement updates no row: the access a quarter of an hour ago still stands.
    assert hit.memory.access_count == 1
    assert Memory.objects.get().access_count == 1
    assert len(queries.captured_queries) == 3


@pytest.mark.django_db(transaction=True)
def test_a_search_is_three_statements_the_last_recording_the_access(namespace, django_assert_num_queries) -> None:
    first = remember(namespace, "Alice likes green tea")
    second = remember(namespace, "Alice likes black tea")
    # The candidates, what scoring reads of them, and the page with its access update.
    with django_assert_num_queries(3):
        page = memories_search(namespace, query="tea", limit=1, user_id="alice")
    (hit,) = page.items
    assert hit.memory.access_count == 1 and hit.memory.last_accessed_at is not None
    # Only the page returned counts as accessed, not the row fetched to see whether more follow.
    counts = dict(Memory.objects.values_list("pk", "access_count"))
    assert counts[hit.memory.pk] == 1
    assert counts[({first.pk, second.pk} - {hit.memory.pk}).pop()] == 0


def idf(n: int, df: int) -> float:
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


def test_a_words_rarity_is_counted_among_the_persons_memories(namespace) -> None:
    for text in ("Alice reads novels", "Alice plays chess", "Alice bakes sourdough", "Alice grows tomatoes"):
        remember(namespace, text)
    remember(namespace, "The kayak club meets on Sundays")
    for text in (
        "Hiking boots need new laces",
        "The train to Porto leaves at nine",
        "Rent is due on the first of the month",
        "The dentist moved to a new street",
        "Spare keys hang behind the door",
        "The library closes early on Fridays",
    ):
        remember(namespace, text)

    def share(**scope) -> float:
        hits = memories_search(namespace, query="alice kayak", explain=True, **scope).items
        return next(h.explain["fulltext"] for h in hits if h.memory.text == "Alice reads novels")

    # Of the person's 11 memories, 4 name Alice and 1 a kayak.
    assert share(user_id="alice") == pytest.approx(idf(11, 4) / (idf(11, 4) + idf(11, 1)))
    # Across a namespace, among the 5 memories that match either word.
    assert share() == pytest.approx(idf(5, 4) / (idf(5, 4) + idf(5, 1)))


def test_a_date_in_a_question_is_not_a_word_to_match(namespace) -> None:
    remember(namespace, "Alice baked bread for her neighbours")
    remember(namespace, "Alice renewed her passport in June 2023")
    hits = memories_search(namespace, query="What did Alice bake on 3 June, 2023?", user_id="alice", explain=True).items
    assert hits[0].memory.text == "Alice baked bread for her neighbours"
    assert {m["query"] for h in hits for m in h.explain["matches"]} <= {"alice", "bake"}
    # A query that is only a date still searches by it.
    hits = memories_search(namespace, query="2023", user_id="alice").items
    assert [h.memory.text for h in hits] == ["Alice renewed her passport in June 2023"]


def test_the_query_vector_is_moved_towards_its_best_hits(namespace) -> None:
    texts = ["Alice adopted a puppy named Luna", "Alice walks the dog every evening", "Alice works as a nurse"]
    for text in texts:
        remember(namespace, text)
    query = "Which pet does Alice have?"
    hits = memories_search(namespace, query=query, user_id="alice", explain=True).items
    assert sorted(h.memory.text for h in hits) == sorted(texts)
    embedder = WordLlamaEmbedder()
    query_vector = embedder.embed([query])[0]
    vectors = dict(zip(texts, embedder.embed(texts), strict=True))
    # Three candidates: all of them are the first ranking's best.
    fed_back = query_vector + FEEDBACK_WEIGHT * np.mean(list(vectors.values()), axis=0)
    fed_back /= np.linalg.norm(fed_back)
    # A person's vectors are compared from their int8 codes: within a few thousandths of the exact cosine.
    for hit in hits:
        assert hit.explain["vector_query"] == pytest.approx(float(vectors[hit.memory.text] @ query_vector), abs=5e-3)
        assert hit.explain["vector"] == pytest.approx(float(vectors[hit.memory.text] @ fed_back), abs=5e-3)
        assert hit.explain["vector"] != pytest.approx(hit.explain["vector_query"], abs=1e-3)


def test_known_facts_are_the_persons_active_statements_of_an_attribute_newest_said_first(namespace) -> None:
    now = timezone.now()
    said = now - timedelta(days=3)
    old = remember(namespace, "Alice lives in Lyon", subject="alice", attribute="home", stated_at=said)
    job = remember(namespace, "Alice works at Acme", subject="alice", attribute="employer")
    remember(namespace, "Alice likes green tea")
    remember(namespace, "Bob lives in Oslo", user_id="bob", subject="bob", attribute="home")
    gone = remember(namespace, "Alice drives a Civic", subject="alice", attribute="car")
    Memory.objects.filter(pk=gone.pk).update(status=MemoryStatus.SUPERSEDED)
    Memory.objects.filter(pk=job.pk).update(stated_at=None, created_at=now - timedelta(days=1))

    facts = known_facts(namespace_id=namespace.pk, user_id="alice")

    assert facts == [
        (job.pk, "Alice works at Acme", "alice", "employer"),
        (old.pk, "Alice lives in Lyon", "alice", "home"),
    ]
    assert known_facts(namespace_id=namespace.pk, user_id="alice", limit=1) == facts[:1]


def _said(namespace, text: str, said) -> Memory:
    return remember(namespace, text, user_id="chat", stated_at=said)


def test_what_was_said_beside_the_best_match_is_its_context(namespace, monkeypatch) -> None:
    sitting = timezone.now() - timedelta(days=30)
    best = _said(namespace, "John joined a march for veterans' rights.", sitting)
    beside = _said(namespace, "John respects the military and stands up for what he believes in.", sitting)
    later = _said(namespace, "John respects his coach and stands up for his teammates.", sitting + timedelta(days=9))

    def ranked() -> dict[str, dict]:
        page = memories_search(
            namespace, query="Why did John join the march?", user_id="chat", explain=True, touch=False
        )
        assert page.items[0].memory.pk == best.pk
        return {hit.memory.text: hit.explain for hit in page.items}

    marked = ranked()
    monkeypatch.setattr(scoring, "CONTEXT_WEIGHT", 0.0)
    plain = ranked()
    assert {text for text, parts in marked.items() if parts["context"]} == {best.text, beside.text}
    bonus = 0.15 * plain[best.text]["relevance"]
    for text in (best.text, beside.text):
        assert marked[text]["relevance"] == pytest.approx(plain[text]["relevance"] + bonus)
    assert marked[later.text]["relevance"] == pytest.approx(plain[later.text]["relevance"])


def test_context_tells_nothing_apart_when_everything_was_said_together(namespace) -> None:
    remember(namespace, "Alice is allergic to peanuts")
    remember(namespace, "Alice lives in Lisbon")
    page = memories_search(namespace, query="Is Alice allergic to peanuts?", user_id="alice", explain=True)
    assert not any(hit.explain["context"] for hit in page.items)


def test_an_irregular_form_matches_its_word(namespace) -> None:
    won = remember(namespace, "Nate won a regional tournament", user_id="nate")
    remember(namespace, "Nate plays in a regional league", user_id="nate")
    page = memories_search(namespace, query="When did Nate win a tournament?", user_id="nate", explain=True)
    first = page.items[0]
    assert first.memory.pk == won.pk
    assert ("win", "won", 1.0) in [(m["query"], m["memory"], m["similarity"]) for m in first.explain["matches"]]
    # Full text counts "won" as "win": every word of the question is in it.
    assert first.explain["fulltext"] == pytest.approx(1.0)
    children = remember(namespace, "Melanie has two children", user_id="mel")
    page = memories_search(namespace, query="How old is Melanie's child?", user_id="mel", syntax="websearch")
    assert page.items == []
    page = memories_search(namespace, query="How old is Melanie's child?", user_id="mel")
    assert page.items[0].memory.pk == children.pk
