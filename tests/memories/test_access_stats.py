"""A search's access update stays on the row's page and writes no index entry (a HOT update)."""

from __future__ import annotations

import random

from django.db import connection

from memoryadmin.memories.models import Memory
from memoryadmin.memories.queries import memories_search
from tests.memories.test_queries import remember


def table_stat(name: str) -> int:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT pg_stat_get_xact_{name}('memories_memory'::regclass)")
        return cursor.fetchone()[0]


def test_recording_an_access_on_a_full_page_is_a_hot_update(namespace) -> None:
    # Pages as inserts leave them, without the dead rows of earlier tests' rolled-back inserts
    # (TRUNCATE is transactional: the test's rollback brings the table back).
    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE memories_memory CASCADE")
    # Enough memories, each of its own words, to fill a few pages.
    rng = random.Random(7)
    letters = "bcdfghjklmnprstvz"
    texts = [
        f"User fact{i} "
        + " ".join("".join(rng.choice(letters) + rng.choice("aeiou") for _ in range(4)) for _ in range(10))
        for i in range(80)
    ]
    memories = [remember(namespace, text) for text in texts]
    with connection.cursor() as cursor:
        cursor.execute("SELECT (ctid::text::point)[0]::int FROM memories_memory WHERE id = %s", [memories[0].pk])
        first_page = cursor.fetchone()[0]
        cursor.execute("SELECT count(*) FROM memories_memory WHERE (ctid::text::point)[0]::int = %s", [first_page])
        assert cursor.fetchone()[0] > 10, "the first memory's page should be full"
    updated, hot = table_stat("tuples_updated"), table_stat("tuples_hot_updated")

    hits = memories_search(namespace, query="fact0", user_id="alice", limit=1).items

    assert [h.memory.pk for h in hits] == [memories[0].pk]
    assert Memory.objects.get(pk=memories[0].pk).access_count == 1
    assert table_stat("tuples_updated") - updated == 1
    assert table_stat("tuples_hot_updated") - hot == 1
