"""Memories know when: stated_at and event_date through the API, filters on them, dates in questions, as_of."""

from __future__ import annotations

import pytest

from memoryadmin.extraction.models import ExtractionRun
from memoryadmin.extraction.services import extraction_run
from memoryadmin.memories.models import Memory


def add(api, text: str, **fields):
    response = api.post("/api/v1/memories", {"text": text, "user_id": "alice", **fields})
    assert response.status_code == 201, response.content
    return response.json()


def search(api, query: str, **fields) -> list[str]:
    response = api.post("/api/v1/memories/search", {"query": query, "user_id": "alice", **fields})
    assert response.status_code == 200, response.content
    return [item["memory"]["text"] for item in response.json()["items"]]


def test_it_keeps_when_a_memory_was_said_and_when_its_event_happened(api) -> None:
    memory = add(
        api,
        "Alice ran the Lyon half marathon",
        stated_at="2023-05-08T13:56:00+02:00",
        event_date="2023-05-07",
        event_date_precision="day",
    )
    assert memory["stated_at"] == "2023-05-08T11:56:00Z"
    assert (memory["event_date"], memory["event_date_precision"]) == ("2023-05-07", "day")
    assert api.get(f"/api/v1/memories/{memory['id']}").json()["stated_at"] == "2023-05-08T11:56:00Z"


def test_a_memory_said_without_a_time_was_said_when_it_was_written(api) -> None:
    memory = add(api, "Alice likes green tea")
    assert memory["stated_at"] == memory["created_at"]
    assert memory["event_date"] is None and memory["event_date_precision"] is None


def test_relative_dates_in_the_text_are_read_against_when_it_was_said(api) -> None:
    memory = add(api, "Alice went to a pottery workshop last week", stated_at="2023-05-10T09:00:00Z")
    # 10 May 2023 is a Wednesday: last week began on Monday 1 May.
    assert (memory["event_date"], memory["event_date_precision"]) == ("2023-05-01", "week")
    given = add(api, "Alice went to a concert yesterday", stated_at="2023-05-10T09:00:00Z", event_date="2023-04-02")
    assert (given["event_date"], given["event_date_precision"]) == ("2023-04-02", "day")


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"stated_at": "2999-01-01T00:00:00Z"}, "stated_at"),
        ({"stated_at": "2023-05-08"}, "stated_at"),
        ({"event_date": "2023-02-30"}, "event_date"),
        ({"event_date": "2023-02-01", "event_date_precision": "decade"}, "event_date_precision"),
    ],
)
def test_a_bad_time_is_refused_and_nothing_is_written(api, fields, field) -> None:
    response = api.post("/api/v1/memories", {"text": "Alice plays chess", "user_id": "alice", **fields})
    assert response.status_code == 422, response.content
    assert response.json()["error"]["code"] == "validation_error"
    assert field in str(response.json()["error"])
    assert api.get("/api/v1/memories?user_id=alice").json()["items"] == []


def test_search_filters_on_when_said_and_when_it_happened_exactly(api) -> None:
    add(api, "Alice baked bread", stated_at="2023-03-02T10:00:00Z")
    add(api, "Alice baked a cake", stated_at="2023-07-15T10:00:00Z", event_date="2023-07-14")
    assert search(api, "baked", stated_after="2023-07-01T00:00:00Z") == ["Alice baked a cake"]
    assert search(api, "baked", stated_before="2023-07-01T00:00:00Z") == ["Alice baked bread"]
    assert search(api, "baked", event_after="2023-07-01", event_before="2023-08-01") == ["Alice baked a cake"]
    # A filter is never relaxed: nothing happened in 2020.
    assert search(api, "baked", event_before="2021-01-01") == []


def test_a_date_in_a_question_ranks_what_was_said_then_first_and_filters_nothing(api) -> None:
    add(api, "Alice went hiking with her sister", stated_at="2023-03-12T10:00:00Z")
    add(api, "Alice went hiking in the Alps", stated_at="2023-07-20T10:00:00Z")
    add(api, "Alice went hiking near the lake", stated_at="2023-10-02T10:00:00Z")
    for question, first in (
        ("Where did Alice go hiking in July 2023?", "Alice went hiking in the Alps"),
        ("Where did Alice go hiking in March 2023?", "Alice went hiking with her sister"),
        ("Where did Alice go hiking on 2 October, 2023?", "Alice went hiking near the lake"),
    ):
        texts = search(api, question)
        assert texts[0] == first, (question, texts)
        assert len(texts) == 3
    # "last summer", asked as of November 2023, is the summer of 2023.
    assert search(api, "Where did Alice hike last summer?", as_of="2023-11-01T00:00:00Z")[0] == (
        "Alice went hiking in the Alps"
    )


def test_as_of_answers_what_was_true_then(api) -> None:
    for when, content in (("2022-03-01T10:00:00Z", "I live in Paris."), ("2024-05-01T10:00:00Z", "I live in Berlin.")):
        response = api.post(
            "/api/v1/sessions/chat-1/messages",
            {"user_id": "alice", "messages": [{"role": "user", "content": content, "created_at": when}]},
        )
        assert response.status_code == 201, response.content
        extraction_run(run=ExtractionRun.objects.get(pk=api.post("/api/v1/sessions/chat-1/extract").json()["run_id"]))
    now = search(api, "Where does Alice live?")
    assert any("Berlin" in t for t in now) and not any("Paris" in t for t in now)
    then = search(api, "Where does Alice live?", as_of="2023-01-01T00:00:00Z")
    assert any("Paris" in t for t in then) and not any("Berlin" in t for t in then)


def test_the_list_filters_on_when_said_and_when_it_happened(api) -> None:
    add(api, "Alice baked bread", stated_at="2023-03-02T10:00:00Z")
    add(api, "Alice baked a cake", stated_at="2023-07-15T10:00:00Z", event_date="2023-07-14")

    def listed(query: str) -> list[str]:
        response = api.get(f"/api/v1/memories?user_id=alice&{query}")
        assert response.status_code == 200, response.content
        return [m["text"] for m in response.json()["items"]]

    assert listed("stated_after=2023-07-01T00:00:00Z") == ["Alice baked a cake"]
    assert listed("stated_before=2023-07-01T00:00:00Z") == ["Alice baked bread"]
    assert listed("event_after=2023-07-14&event_before=2023-07-15") == ["Alice baked a cake"]
    assert api.get("/api/v1/memories?event_after=July").status_code == 422


def test_a_question_asking_for_a_time_alone_finds_what_happened_then_and_what_was_said_then(api) -> None:
    # Said in December about November; said in November; said and happened in October; said later, about March.
    porto, miso = "Alice moved to Porto in November 2023", "Alice adopted a cat called Miso"
    add(api, porto, stated_at="2023-12-06T10:00:00Z", event_date="2023-11-01", event_date_precision="month")
    add(api, miso, stated_at="2023-11-14T10:00:00Z")
    add(api, "Alice ran the Lyon half marathon", stated_at="2023-10-09T10:00:00Z", event_date="2023-10-08")
    add(api, "Alice's sister visits in March 2024", stated_at="2023-12-20T11:00:00Z", event_date="2024-03-01")
    # Its words say nothing but the time: what was said or happened then is the answer, and only that.
    assert set(search(api, "What happened in November 2023?")) == {porto, miso}
    assert set(search(api, "Anything new in November 2023?")) == {porto, miso}
    # With the person's name, everything of theirs matches: what was said or happened then comes first.
    assert set(search(api, "What did Alice do in November 2023?")[:2]) == {porto, miso}
    assert search(api, "What did Alice do last weekend?", as_of="2023-10-10T00:00:00Z")[0] == (
        "Alice ran the Lyon half marathon"
    )


def test_a_person_named_in_lower_case_beside_a_time_is_whose_not_what(api) -> None:
    # Memories that never name her: "alice" is a word nothing matches; read as whose, the time alone answers.
    porto, miso = "Moved to Porto in November 2023", "Adopted a cat called Miso"
    add(api, porto, stated_at="2023-12-06T10:00:00Z", event_date="2023-11-01", event_date_precision="month")
    add(api, miso, stated_at="2023-11-14T10:00:00Z")
    add(api, "Ran the Lyon half marathon", stated_at="2023-10-09T10:00:00Z", event_date="2023-10-08")
    assert set(search(api, "what did alice do in november 2023?")) == {porto, miso}
    assert set(search(api, "so what has alice been up to in november 2023")) == {porto, miso}
    # Another word beside the time is still what is asked about.
    assert search(api, "what did alice bake in november 2023?") == []


def test_the_persons_own_name_says_whose_a_question_is_not_what_it_asks(api) -> None:
    # Memories written of "User": the name appears in one memory only, and matches every question naming her.
    # As extraction writes them, with the attribute each states (the API takes none).
    for text, attribute in (("User's name is Sam", "name"), ("User works as a nurse at St Mary's in Leeds", "job")):
        Memory.objects.filter(pk=add(api, text, stated_at="2023-09-02T09:00:00Z")["id"]).update(attribute=attribute)
    add(api, "User has a cat called Miso", stated_at="2023-09-02T09:00:00Z")
    vet = add(api, "User took Miso to the vet", stated_at="2023-11-14T10:00:00Z")["text"]
    coffee = add(api, "User quit coffee", stated_at="2023-11-28T10:00:00Z", event_date="2023-11-20")["text"]
    assert search(api, "Where does Sam work?")[0] == "User works as a nurse at St Mary's in Leeds"
    assert search(api, "does sam have pets?")[0] == "User has a cat called Miso"
    assert search(api, "What is her name?")[0] == "User's name is Sam"
    # Asking for a time alone, what was said or happened then comes first, whatever matches the name.
    assert set(search(api, "what did sam do in november 2023?")[:2]) == {vet, coffee}
    assert set(search(api, "What did Sam do in November 2023?")[:2]) == {vet, coffee}
