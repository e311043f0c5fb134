from __future__ import annotations

import json

from memoryadmin.audit.models import AuditEvent
from memoryadmin.governance.models import ErasureRequest, PrivacyLink
from memoryadmin.memories.services import memory_forget
from tests.conftest import SYSTEM


def subject_url(namespace, user_id="u1", action=""):
    return f"/subjects/{namespace.pk}/{user_id}/" + (f"{action}/" if action else "")


def test_it_looks_a_subject_up(viewer_client, namespace):
    response = viewer_client.get("/subjects/?ns=alpha&user=u1")
    assert response.status_code == 302
    assert response["Location"] == subject_url(namespace)


def test_it_lists_recently_active_subjects(viewer_client, make_session):
    make_session("s1", user_id="u1")
    make_session("s2", user_id="u2")
    make_session("s3", user_id="u1")
    assert [u for u, _ in viewer_client.get("/subjects/").context["recent"]] == ["u1", "u2"]


def test_the_page_opened_for_a_namespace_asks_without_an_error(viewer_client, namespace, make_session):
    # The subject page's breadcrumb opens the list for its namespace: nothing was looked up yet.
    make_session("s1", user_id="u1")
    for url in ("/subjects/?ns=alpha", "/subjects/everywhere/?ns=alpha"):
        response = viewer_client.get(url)
        assert response.status_code == 200, url
        assert "This field is required" not in response.content.decode()
    assert [u for u, _ in viewer_client.get("/subjects/?ns=alpha").context["recent"]] == ["u1"]


def test_it_refuses_a_malformed_user_id(viewer_client, namespace):
    assert viewer_client.get("/subjects/?ns=alpha&user=bad%20id").status_code == 400
    assert viewer_client.get(f"/subjects/{namespace.pk}/bad%20id/").status_code == 404


def test_it_shows_sessions_memories_tombstones_and_counts(viewer_client, namespace, make_session, make_memory):
    make_session("s1")
    make_memory("User likes jazz")
    memory_forget(memory=make_memory("User likes tea"), actor=SYSTEM)
    make_memory("Someone else likes tea", user_id="u2")
    response = viewer_client.get(subject_url(namespace))
    assert response.status_code == 200
    assert [s.session_id for s in response.context["sessions"].items] == ["s1"]
    assert [m.text for m in response.context["memories"].items] == ["User likes jazz"]
    assert [t.reason for t in response.context["tombstones"]] == ["forgotten"]
    figures = response.context["figures"]
    assert (figures["sessions"].value, figures["memories"].value, figures["tombstones"].value) == (1, 1, 1)
    assert b"Someone else" not in response.content


def test_it_answers_404_for_an_unknown_namespace(viewer_client, db):
    assert viewer_client.get("/subjects/999999/u1/").status_code == 404


def test_it_reads_with_a_fixed_number_of_queries(
    viewer_client, namespace, make_session, make_memory, django_assert_max_num_queries
):
    for i in range(10):
        make_session(f"s{i}")
        make_memory(f"User fact {i}")
    with django_assert_max_num_queries(13):
        assert viewer_client.get(subject_url(namespace)).status_code == 200


def test_it_hides_actions_from_a_viewer(viewer_client, namespace):
    html = viewer_client.get(subject_url(namespace)).content.decode()
    for action in ("/export/", "/privacy-link/", "/erase/"):
        assert action not in html


def test_it_shows_erase_only_to_an_admin(operator_client, admin_client, namespace):
    assert "/erase/" not in operator_client.get(subject_url(namespace)).content.decode()
    assert "/erase/" in admin_client.get(subject_url(namespace)).content.decode()


class TestExport:
    def test_it_downloads_the_subjects_snapshot(self, operator_client, namespace, make_memory):
        make_memory("User likes jazz")
        make_memory("Someone else likes tea", user_id="u2")
        response = operator_client.get(subject_url(namespace, action="export"))
        assert response.status_code == 200
        assert response["Content-Type"] == "application/x-ndjson"
        assert "attachment" in response["Content-Disposition"]
        lines = [json.loads(line) for line in b"".join(response.streaming_content).splitlines()]
        assert lines[0]["user_id"] == "u1"
        assert [r["text"] for r in lines if r.get("type") == "memory"] == ["User likes jazz"]
        assert lines[-1]["type"] == "end"
        assert AuditEvent.objects.filter(action="subject.export", actor="olivia").exists()

    def test_it_requires_the_operator_role(self, viewer_client, namespace):
        assert viewer_client.get(subject_url(namespace, action="export")).status_code == 403
        assert not AuditEvent.objects.filter(action="subject.export").exists()


class TestPrivacyLink:
    def test_it_creates_a_link(self, operator_client, namespace, htmx):
        response = operator_client.post(subject_url(namespace, action="privacy-link"), headers=htmx)
        assert response.status_code == 200
        assert "http://testserver/privacy/" in response.content.decode()
        assert AuditEvent.objects.filter(action="privacy_link.create", actor="olivia").exists()

    def test_the_operator_chooses_what_it_allows_and_for_how_long(self, operator_client, admin_client, namespace, htmx):
        page = operator_client.get(subject_url(namespace)).content.decode()
        assert 'name="rights" value="forget"' in page and 'name="rights" value="erase"' not in page
        assert 'name="ttl_seconds"' in page
        response = operator_client.post(
            subject_url(namespace, action="privacy-link"), {"rights": ["read"], "ttl_seconds": "3600"}, headers=htmx
        )
        assert response.status_code == 200
        link = PrivacyLink.objects.get()
        assert link.rights == ["read"]
        assert 3590 <= (link.expires_at - link.created_at).total_seconds() <= 3600
        # Nothing ticked, a lifetime not offered, a right beyond the role: said, and no link made.
        for body in ({"ttl_seconds": "3600"}, {"rights": ["read"], "ttl_seconds": "999999999"}, {"rights": ["erase"]}):
            refused = operator_client.post(subject_url(namespace, action="privacy-link"), body, headers=htmx)
            assert refused.status_code in (403, 422), body
            assert 'role="alert"' in refused.content.decode()
        assert PrivacyLink.objects.count() == 1
        assert 'name="rights" value="erase"' in admin_client.get(subject_url(namespace)).content.decode()

    def test_it_requires_the_operator_role(self, viewer_client, namespace):
        assert viewer_client.post(subject_url(namespace, action="privacy-link")).status_code == 403
        assert not AuditEvent.objects.filter(action="privacy_link.create").exists()


class TestErase:
    def test_it_requests_an_erasure_after_typed_confirmation(self, admin_client, namespace, make_memory, htmx):
        make_memory("User likes jazz")
        data = {"confirm": "u1", "reason": "asked by email"}
        response = admin_client.post(subject_url(namespace, action="erase"), data, headers=htmx)
        assert response.status_code == 200
        erasure = ErasureRequest.objects.get()
        assert (erasure.requested_by, erasure.status) == ("operator:alice", "pending")
        assert str(erasure.pk).encode() in response.content

    def test_it_refuses_a_wrong_confirmation(self, admin_client, namespace, htmx):
        response = admin_client.post(subject_url(namespace, action="erase"), {"confirm": "u2"}, headers=htmx)
        assert response.status_code == 422
        assert b"type the user_id exactly" in response.content
        assert not ErasureRequest.objects.exists()

    def test_it_requires_the_admin_role(self, operator_client, namespace):
        response = operator_client.post(subject_url(namespace, action="erase"), {"confirm": "u1"})
        assert response.status_code == 403
        assert not ErasureRequest.objects.exists()

    def test_it_allows_only_post(self, admin_client, namespace):
        assert admin_client.get(subject_url(namespace, action="erase")).status_code == 405
