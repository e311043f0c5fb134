"""Deleting a session and clearing its working memory from the console, confirmed and audited."""

from __future__ import annotations

from django.urls import reverse

from memoryadmin.audit.models import AuditEvent
from memoryadmin.conversations.models import Message, Session
from memoryadmin.conversations.working_memory import working_memory_get, working_memory_put
from memoryadmin.extraction.models import ExtractionRun, RunStatus
from memoryadmin.memories.models import Memory, MemoryEvidence


def test_deleting_asks_for_confirmation_first(operator_client, make_session):
    session, _ = make_session("s1")
    r = operator_client.get(reverse("console:session_delete", args=[session.pk]))
    assert r.status_code == 200 and b"Delete session" in r.content
    assert Session.objects.filter(pk=session.pk).exists()


def test_it_deletes_a_session_its_messages_evidence_and_working_memory(
    operator_client, namespace, make_session, make_memory
):
    session, messages = make_session("s1")
    other, _ = make_session("s2")
    memory = make_memory("User lives in Lyon", evidence_message_ids=[messages[1].pk])
    working_memory_put(namespace_id=namespace.pk, session_id="s1", state={"step": 2}, ttl_seconds=600)

    r = operator_client.post(reverse("console:session_delete", args=[session.pk]), {"reason": "test data"})
    assert r.status_code == 302 and r["Location"] == "/sessions/?ns=alpha"
    assert not Session.objects.filter(pk=session.pk).exists()
    assert not Message.objects.filter(session_id=session.pk).exists()
    assert not MemoryEvidence.objects.filter(memory=memory).exists()
    assert Memory.objects.filter(pk=memory.pk).exists(), "memories stay"
    assert working_memory_get(namespace_id=namespace.pk, session_id="s1") is None
    assert Message.objects.filter(session=other).count() == 3
    event = AuditEvent.objects.get(action="session.delete")
    assert (event.actor, event.target_id, event.reason) == ("olivia", str(session.pk), "test data")


def test_viewers_cannot_delete(viewer_client, make_session):
    session, _ = make_session("s1")
    assert viewer_client.post(reverse("console:session_delete", args=[session.pk])).status_code == 403
    assert Session.objects.filter(pk=session.pk).exists()


def test_it_clears_working_memory_in_place(operator_client, namespace, make_session, htmx):
    session, _ = make_session("s1")
    working_memory_put(namespace_id=namespace.pk, session_id="s1", state={"step": 2}, ttl_seconds=600)
    page = operator_client.get(reverse("console:transcript", args=[session.pk]))
    assert b"Clear working memory" in page.content
    url = reverse("console:working_memory_clear", args=[session.pk])

    r = operator_client.post(url, {"reason": "stuck agent"}, headers=htmx)
    assert r.status_code == 200 and b"Working memory cleared." in r.content and b"<html" not in r.content
    assert working_memory_get(namespace_id=namespace.pk, session_id="s1") is None
    event = AuditEvent.objects.get(action="working_memory.clear")
    assert (event.actor, event.target_id, event.reason) == ("olivia", str(session.pk), "stuck agent")

    r = operator_client.post(url, headers=htmx)
    assert b"no working memory to clear" in r.content
    assert AuditEvent.objects.filter(action="working_memory.clear").count() == 1


def test_clearing_without_javascript_redirects_to_the_transcript(operator_client, namespace, make_session):
    session, _ = make_session("s1")
    working_memory_put(namespace_id=namespace.pk, session_id="s1", state={"step": 2}, ttl_seconds=600)
    r = operator_client.post(reverse("console:working_memory_clear", args=[session.pk]))
    assert r.status_code == 302 and r["Location"] == reverse("console:transcript", args=[session.pk])
    assert working_memory_get(namespace_id=namespace.pk, session_id="s1") is None


def test_the_extraction_card_polls_while_a_run_is_queued_and_stops_when_done(operator_client, make_session, htmx):
    session, _ = make_session("s1")
    r = operator_client.post(reverse("console:extract_now", args=[session.pk]), headers=htmx)
    url = reverse("console:session_runs", args=[session.pk])
    assert f'hx-get="{url}" hx-trigger="every 2s"'.encode() in r.content
    ExtractionRun.objects.filter(session=session).update(status=RunStatus.SUCCEEDED)
    r = operator_client.get(url, headers=htmx)
    assert r.status_code == 200 and b"succeeded" in r.content
    assert b"every 2s" not in r.content
    assert operator_client.get(url).status_code == 302
