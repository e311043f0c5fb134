from __future__ import annotations

from django.test import Client

from memoryadmin.memories.services import memory_create
from tests.conftest import SYSTEM


def append(api, *messages):
    return api.post("/api/v1/sessions/s1/messages", {"user_id": "alice", "messages": list(messages)})


def test_it_gives_the_newest_messages_that_fit_and_relevant_memories(api, namespace, django_assert_max_num_queries):
    memory_create(namespace=namespace, user_id="alice", text="Alice is allergic to peanuts", actor=SYSTEM)
    memory_create(namespace=namespace, user_id="alice", text="Alice lives in Lisbon", actor=SYSTEM)
    memory_create(namespace=namespace, user_id="bob", text="Bob is allergic to peanuts", actor=SYSTEM)
    append(api, *[{"role": "user", "content": "x" * 400} for _ in range(5)])
    append(api, {"role": "user", "content": "Can I eat peanuts tonight?"})
    with django_assert_max_num_queries(8):
        r = api.get("/api/v1/sessions/s1/context?token_budget=200")
    assert r.status_code == 200
    body = r.json()
    assert [m["text"] for m in body["memories"]] == ["Alice is allergic to peanuts"]
    assert [m["seq"] for m in body["messages"]] == [5, 6]
    assert body["summary"] is None
    assert body["token_estimate"] <= 200
    assert body["token_estimate"] == 7 + 100 + 7


def test_it_searches_by_the_given_query(api, namespace) -> None:
    memory_create(namespace=namespace, user_id="alice", text="Alice lives in Lisbon", actor=SYSTEM)
    append(api, {"role": "user", "content": "peanuts?"})
    body = api.get("/api/v1/sessions/s1/context?query=where+does+she+live").json()
    assert [m["text"] for m in body["memories"]] == ["Alice lives in Lisbon"]


def test_a_summary_stands_for_older_messages(api, namespace) -> None:
    memory_create(
        namespace=namespace,
        user_id="alice",
        text="They talked about tea",
        actor=SYSTEM,
        session_id="s1",
        memory_type="summary",
    )
    append(api, *[{"role": "user", "content": "y" * 400} for _ in range(3)])
    body = api.get("/api/v1/sessions/s1/context?token_budget=150&memory_limit=0").json()
    assert body["summary"] == "They talked about tea"
    assert len(body["messages"]) == 1
    body = api.get("/api/v1/sessions/s1/context?token_budget=5000&memory_limit=0").json()
    assert body["summary"] is None
    assert len(body["messages"]) == 3


def test_context_of_a_missing_session_is_404(api) -> None:
    assert api.get("/api/v1/sessions/nope/context").status_code == 404


def test_a_nul_in_the_query_is_refused_as_the_schema_says(api, namespace) -> None:
    api.post("/api/v1/sessions/s1/messages", {"user_id": "alice", "messages": [{"role": "user", "content": "hi"}]})
    response = api.get("/api/v1/sessions/s1/context?query=tea%00time")
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "validation_error"
    schema = Client().get("/api/v1/openapi.json").json()
    context = schema["paths"]["/api/v1/sessions/{session_id}/context"]["get"]
    query = next(p for p in context["parameters"] if p["name"] == "query")
    assert any("pattern" in option for option in query["schema"]["anyOf"])
