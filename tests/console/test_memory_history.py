"""A superseded memory shows what replaced it; the replacement shows what it replaced."""

from __future__ import annotations

from datetime import UTC, datetime

from memoryadmin.memories.models import MemoryStatus
from memoryadmin.memories.services import Statement, memories_apply_statements, memory_forget
from tests.conftest import SYSTEM


def moved(namespace, make_memory):
    lyon = make_memory("User lives in Lyon", attribute="residence", stated_at=datetime(2024, 1, 1, tzinfo=UTC))
    paris = make_memory("User lives in Paris", attribute="residence", stated_at=datetime(2025, 1, 1, tzinfo=UTC))
    memories_apply_statements(
        namespace=namespace, actor=SYSTEM, statements=[Statement(paris.pk, paris.user_id, paris.stated_at)]
    )
    lyon.refresh_from_db()
    assert lyon.status == MemoryStatus.SUPERSEDED
    return lyon, paris


def test_a_superseded_memory_links_to_what_replaced_it(viewer_client, namespace, make_memory):
    lyon, paris = moved(namespace, make_memory)
    html = viewer_client.get(f"/memories/{lyon.pk}/").content.decode()
    assert '<span class="badge superseded">superseded</span>' in html
    assert f'Replaced by <a href="/memories/{paris.pk}/">User lives in Paris</a>' in html
    assert "left out of search and context" in html
    assert "residence" in html


def test_the_replacement_lists_what_it_replaced(viewer_client, namespace, make_memory):
    lyon, paris = moved(namespace, make_memory)
    html = viewer_client.get(f"/memories/{paris.pk}/").content.decode()
    assert "This memory replaced:" in html
    assert f'<a href="/memories/{lyon.pk}/">User lives in Lyon</a>' in html


def test_a_replacement_since_forgotten_is_said_so(viewer_client, namespace, make_memory):
    lyon, paris = moved(namespace, make_memory)
    memory_forget(memory=paris, actor=SYSTEM)
    html = viewer_client.get(f"/memories/{lyon.pk}/").content.decode()
    assert "The memory that replaced it has since been forgotten." in html


def test_the_memory_list_marks_and_filters_superseded_memories(viewer_client, namespace, make_memory):
    moved(namespace, make_memory)
    html = viewer_client.get("/memories/", {"ns": namespace.slug, "status": "superseded"}).content.decode()
    assert "User lives in Lyon" in html and "User lives in Paris" not in html
    assert "is-superseded" in html
