"""Paging through a search with recency shows every hit once, however the access updates move scores."""

from __future__ import annotations

from memoryadmin.memories.queries import memories_search
from tests.memories.test_queries import remember


def all_pages(namespace, query: str, limit: int) -> list[str]:
    texts: list[str] = []
    cursor = None
    while True:
        page = memories_search(namespace, query=query, user_id="alice", limit=limit, cursor=cursor)
        texts += [hit.memory.text for hit in page.items]
        cursor = page.next_cursor
        if cursor is None:
            return texts


def test_the_row_fetched_to_see_whether_a_next_page_exists_is_not_touched(namespace) -> None:
    for index in range(7):
        remember(namespace, f"Alice went to town number {index} for jazz")
    # A first search records an access of its page: those rows are not due again for a while,
    # so the next search's page holds rows whose access is not recorded again.
    memories_search(namespace, query="jazz", user_id="alice", limit=3)
    texts = all_pages(namespace, "jazz", limit=3)
    assert len(texts) == 7
    assert len(set(texts)) == 7
