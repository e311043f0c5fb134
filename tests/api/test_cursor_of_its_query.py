"""A cursor goes on only with the query and filters that made it: the same list asked for other rows refuses it
(400 `invalid_cursor`), as a cursor of another list is refused."""

from __future__ import annotations

from memoryadmin.memories.services import memory_create
from tests.conftest import SYSTEM


def remember(namespace, count: int, user_id: str = "alice") -> None:
    for index in range(count):
        memory_create(
            namespace=namespace, user_id=user_id, text=f"Alice noted sister plan number {index}", actor=SYSTEM
        )


def refused(response) -> bool:
    return response.status_code == 400 and response.json()["error"]["code"] == "invalid_cursor"


def test_a_search_cursor_goes_on_only_with_its_search(api, namespace) -> None:
    remember(namespace, 6)
    first = api.post("/api/v1/memories/search", {"query": "sister plan", "user_id": "alice", "limit": 2}).json()
    cursor = first["next_cursor"]
    assert cursor
    same = api.post(
        "/api/v1/memories/search", {"query": "sister plan", "user_id": "alice", "limit": 2, "cursor": cursor}
    )
    assert same.status_code == 200 and same.json()["items"]
    assert not {h["memory"]["id"] for h in same.json()["items"]} & {h["memory"]["id"] for h in first["items"]}
    for other in (
        {"query": "car", "user_id": "alice"},
        {"query": "sister plan", "user_id": "bob"},
        {"query": "sister plan", "user_id": "alice", "syntax": "websearch"},
        {"query": "sister plan", "user_id": "alice", "status": "any"},
    ):
        assert refused(api.post("/api/v1/memories/search", {**other, "cursor": cursor})), other


def test_a_list_cursor_goes_on_only_with_its_filters(api, namespace) -> None:
    remember(namespace, 4)
    first = api.get("/api/v1/memories?user_id=alice&limit=2").json()
    cursor = first["next_cursor"]
    assert cursor
    assert api.get(f"/api/v1/memories?user_id=alice&limit=2&cursor={cursor}").status_code == 200
    assert refused(api.get(f"/api/v1/memories?user_id=bob&limit=2&cursor={cursor}"))
    assert refused(api.get(f"/api/v1/memories?limit=2&cursor={cursor}"))
    assert refused(api.get(f"/api/v1/memories?user_id=alice&status=active&limit=2&cursor={cursor}"))
