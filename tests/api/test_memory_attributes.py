"""An app states a memory's attribute (POST /memories `attribute`, and `subject` when it is someone else's): of the
person's memories stating it, the one said last is current, as extraction keeps them."""

from __future__ import annotations

import pytest


def add(api, text: str, stated_at: str, **fields) -> dict:
    response = api.post("/api/v1/memories", {"user_id": "ana", "text": text, "stated_at": stated_at, **fields})
    assert response.status_code == 201, response.content
    return response.json()


def status_of(api, memory: dict) -> str:
    return api.get(f"/api/v1/memories/{memory['id']}").json()["status"]


def test_the_value_said_last_is_current(api) -> None:
    lisbon = add(api, "Ana lives in Lisbon", "2025-01-10T09:00:00Z", attribute="residence")
    assert (lisbon["attribute"], lisbon["status"]) == ("residence", "active")
    porto = add(api, "Ana moved from Lisbon to Porto", "2025-09-01T09:00:00Z", attribute="Residence")
    assert (porto["attribute"], porto["status"]) == ("residence", "active")
    assert status_of(api, lisbon) == "superseded"
    found = api.post("/api/v1/memories/search", {"query": "where does Ana live?", "user_id": "ana"}).json()["items"]
    assert [hit["memory"]["text"] for hit in found][:1] == ["Ana moved from Lisbon to Porto"]
    # As of before the move, the value then.
    then = api.post(
        "/api/v1/memories/search",
        {"query": "where does Ana live?", "user_id": "ana", "as_of": "2025-03-01T00:00:00Z"},
    ).json()["items"]
    assert then[0]["memory"]["text"] == "Ana lives in Lisbon"
    # History imported out of order: a value said before the current one is superseded at once.
    older = add(api, "Ana lives in Braga", "2024-05-01T09:00:00Z", attribute="residence")
    assert older["status"] == "superseded"
    assert status_of(api, porto) == "active"


def test_a_value_said_again_later_is_current_again(api) -> None:
    lisbon = add(api, "Ana lives in Lisbon", "2025-01-10T09:00:00Z", attribute="residence")
    porto = add(api, "Ana lives in Porto", "2025-06-01T09:00:00Z", attribute="residence")
    assert status_of(api, lisbon) == "superseded"
    again = api.post(
        "/api/v1/memories",
        {
            "user_id": "ana",
            "text": "Ana lives in Lisbon",
            "stated_at": "2025-11-01T09:00:00Z",
            "attribute": "residence",
        },
    )
    assert again.status_code == 200 and again["X-Deduplicated"] == "true"
    assert (again.json()["id"], again.json()["status"]) == (lisbon["id"], "active")
    assert status_of(api, porto) == "superseded"


def test_a_subject_keeps_its_own_history_and_no_attribute_takes_none(api) -> None:
    hers = add(api, "Ana lives in Porto", "2025-09-01T09:00:00Z", attribute="residence")
    brother = add(
        api, "Ana's brother Luis moved to Berlin", "2025-10-01T09:00:00Z", attribute="residence", subject="Luis"
    )
    plain = add(api, "Ana visited Berlin", "2025-11-01T09:00:00Z")
    assert [status_of(api, m) for m in (hers, brother, plain)] == ["active", "active", "active"]
    assert plain["attribute"] is None or plain["attribute"] == ""


@pytest.mark.parametrize("value", ["a" * 101, "res\u0000idence", 7])
def test_an_attribute_is_short_text(api, value) -> None:
    response = api.post("/api/v1/memories", {"user_id": "ana", "text": "Ana lives in Porto", "attribute": value})
    assert response.status_code == 422, response.content
    assert response.json()["error"]["details"]["fields"][0]["field"] == "attribute"
