from __future__ import annotations

import uuid

from memoryadmin.conversations.services import NewMessage
from memoryadmin.memories.services import memory_pin, memory_update
from tests.conftest import SYSTEM


def test_it_works(viewer_client, make_memory):
    memory = make_memory("User likes jazz", metadata={"source_app": "web"})
    response = viewer_client.get(f"/memories/{memory.pk}/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "User likes jazz" in html
    assert "source_app" in html
    assert "0 times, never" in html


def test_it_answers_404_for_an_unknown_memory(viewer_client, db):
    assert viewer_client.get(f"/memories/{uuid.uuid4()}/").status_code == 404


def test_it_shows_revisions_with_a_word_diff(viewer_client, make_memory):
    memory = make_memory("User likes jazz")
    memory_update(memory=memory, actor=SYSTEM, text="User loves modal jazz", reason="more precise")
    html = viewer_client.get(f"/memories/{memory.pk}/").content.decode()
    assert "r1 → r2" in html
    assert "<del>likes</del> <ins>loves modal</ins>" in html
    assert "more precise" in html


def test_it_escapes_text_inside_the_diff(viewer_client, make_memory):
    memory = make_memory("User likes jazz")
    memory_update(memory=memory, actor=SYSTEM, text="User likes <b>jazz</b>")
    html = viewer_client.get(f"/memories/{memory.pk}/").content.decode()
    assert "<b>jazz</b>" not in html
    assert "&lt;b&gt;jazz&lt;/b&gt;" in html


def test_it_links_evidence_to_its_place_in_the_transcript(viewer_client, make_session, make_memory):
    session, messages = make_session(
        messages=[NewMessage(role="user", content="Hello"), NewMessage(role="user", content="I live in Lyon.")]
    )
    memory = make_memory("User lives in Lyon", evidence_message_ids=[messages[1].pk])
    html = viewer_client.get(f"/memories/{memory.pk}/").content.decode()
    assert f'href="/sessions/{session.pk}/?at=2#msg-2"' in html
    assert "I live in Lyon." in html


def test_it_shows_access_stats_pin_and_audit_trail(viewer_client, make_memory):
    memory = make_memory("User likes jazz")
    memory_pin(memory=memory, actor=SYSTEM, reason="core")
    html = viewer_client.get(f"/memories/{memory.pk}/").content.decode()
    assert "by system:tests" in html
    assert "memory.create" in html
    assert "memory.pin" in html


def test_it_reads_with_a_fixed_number_of_queries(
    viewer_client, make_session, make_memory, django_assert_max_num_queries
):
    _session, messages = make_session()
    memory = make_memory("User lives in Lyon", evidence_message_ids=[m.pk for m in messages])
    for i in range(5):
        memory_update(memory=memory, actor=SYSTEM, text=f"User lives in Lyon {i}")
    with django_assert_max_num_queries(10):
        assert viewer_client.get(f"/memories/{memory.pk}/").status_code == 200


def test_it_hides_actions_from_a_viewer(viewer_client, make_memory):
    memory = make_memory()
    html = viewer_client.get(f"/memories/{memory.pk}/").content.decode()
    assert "/forget/" not in html
    assert "/pin/" not in html


def test_a_forgotten_memory_s_page_says_so_with_what_the_audit_log_keeps(
    viewer_client, olivia, namespace, other_namespace, make_memory
):
    from django.test import Client

    from memoryadmin.memories.services import memory_forget
    from memoryadmin.tenancy.services import operator_namespaces_set

    memory = make_memory("User likes jazz")
    memory_forget(memory=memory, actor=SYSTEM, reason="asked")
    response = viewer_client.get(f"/memories/{memory.pk}/")
    assert response.status_code == 404
    html = response.content.decode()
    assert "Memory no longer held" in html and str(memory.pk) in html
    assert "<code>memory.create</code>" in html and "<code>memory.forget</code>" in html
    # An operator limited to another namespace learns nothing of it.
    operator_namespaces_set(user=olivia, namespaces=[other_namespace], actor=SYSTEM)
    client = Client()
    client.force_login(olivia)
    hidden = client.get(f"/memories/{memory.pk}/")
    assert hidden.status_code == 404 and "no longer held" not in hidden.content.decode()
