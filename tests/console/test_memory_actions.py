from __future__ import annotations

import uuid

import pytest

from memoryadmin.audit.models import AuditEvent
from memoryadmin.memories.models import Memory, MemoryRevision, Pin, Tombstone
from memoryadmin.memories.services import memory_forget, memory_pin, memory_update
from tests.conftest import SYSTEM

ACTIONS = ["pin", "unpin", "forget", "approve", "reject", "edit"]


def post(client, memory, action, data=None, headers=None):
    return client.post(f"/memories/{memory.pk}/{action}/", data or {}, headers=headers or {})


class TestPin:
    def test_it_pins_and_answers_with_the_row(self, operator_client, make_memory, htmx):
        memory = make_memory()
        response = post(operator_client, memory, "pin", {"reason": "core fact"}, htmx)
        assert response.status_code == 200
        pin = Pin.objects.get(memory=memory)
        assert pin.pinned_by == "operator:olivia"
        assert pin.reason == "core fact"
        html = response.content.decode()
        assert html.lstrip().startswith(f'<tr id="m-{memory.pk}"')
        assert "/unpin/" in html
        assert AuditEvent.objects.filter(action="memory.pin", actor="olivia").exists()

    def test_it_unpins(self, operator_client, make_memory, htmx):
        memory = make_memory()
        memory_pin(memory=memory, actor=SYSTEM)
        response = post(operator_client, memory, "unpin", headers=htmx)
        assert response.status_code == 200
        assert not Pin.objects.filter(memory=memory).exists()
        assert "/pin/" in response.content.decode()

    def test_it_redirects_a_plain_form_post_back(self, operator_client, make_memory):
        memory = make_memory()
        response = post(operator_client, memory, "pin", {"next": "/memories/?ns=alpha"})
        assert response.status_code == 302
        assert response["Location"] == "/memories/?ns=alpha"

    def test_it_ignores_a_next_url_to_another_site(self, operator_client, make_memory):
        memory = make_memory()
        response = post(operator_client, memory, "pin", {"next": "https://evil.example/"})
        assert response["Location"] == f"/memories/{memory.pk}/"

    def test_it_answers_the_detail_summary_when_asked_from_the_detail_page(self, operator_client, make_memory, htmx):
        memory = make_memory()
        response = post(operator_client, memory, "pin", {"view": "detail"}, htmx)
        assert response["HX-Retarget"] == "#summary"
        assert b"memory-text" in response.content


class TestForget:
    def test_it_asks_for_a_reason_first(self, operator_client, make_memory, htmx):
        memory = make_memory()
        response = operator_client.get(f"/memories/{memory.pk}/forget/?view=row", headers=htmx)
        assert response.status_code == 200
        assert b'name="reason"' in response.content
        # The row is the confirmation, asked once: no browser dialog on top of it.
        assert b"hx-confirm" not in response.content
        assert Memory.objects.filter(pk=memory.pk).exists()

    def test_it_forgets_and_leaves_a_tombstone(self, operator_client, make_memory, htmx):
        memory = make_memory("User likes jazz")
        response = post(operator_client, memory, "forget", {"reason": "asked by user", "view": "row"}, htmx)
        assert response.status_code == 200
        assert b"Forgotten" in response.content
        assert not Memory.objects.filter(pk=memory.pk).exists()
        tombstone = Tombstone.objects.get(user_id="u1")
        assert tombstone.reason == "forgotten"
        assert tombstone.text == ""
        event = AuditEvent.objects.get(action="memory.forget")
        assert (event.actor, event.reason) == ("olivia", "asked by user")

    def test_it_refuses_a_pinned_memory_without_force(self, operator_client, make_memory, htmx):
        memory = make_memory()
        memory_pin(memory=memory, actor=SYSTEM)
        response = post(operator_client, memory, "forget", {"view": "row"}, htmx)
        assert response.status_code == 409
        assert b"pinned" in response.content
        assert b'name="force"' in response.content
        assert Memory.objects.filter(pk=memory.pk).exists()
        response = post(operator_client, memory, "forget", {"view": "row", "force": "on"}, htmx)
        assert response.status_code == 200
        assert not Memory.objects.filter(pk=memory.pk).exists()

    def test_it_sends_the_detail_page_to_the_list_afterwards(self, operator_client, make_memory, htmx):
        memory = make_memory()
        response = post(operator_client, memory, "forget", {"view": "detail"}, htmx)
        assert response["HX-Redirect"] == "/memories/?ns=alpha"

    def test_it_works_without_javascript(self, operator_client, make_memory):
        memory = make_memory()
        page = operator_client.get(f"/memories/{memory.pk}/forget/").content
        assert b"<html" in page and b"hx-post" not in page
        response = post(operator_client, memory, "forget", {"reason": "no js"})
        assert response.status_code == 302
        assert not Memory.objects.filter(pk=memory.pk).exists()


class TestEdit:
    def test_it_gives_an_inline_form(self, operator_client, make_memory, htmx):
        memory = make_memory("User likes jazz", topics=["music"])
        response = operator_client.get(f"/memories/{memory.pk}/edit/?view=row", headers=htmx)
        html = response.content.decode()
        assert html.lstrip().startswith(f'<tr id="m-{memory.pk}" class="edit-row">')
        assert "User likes jazz</textarea>" in html
        assert 'value="music"' in html

    def test_it_saves_a_new_revision(self, operator_client, make_memory, htmx):
        memory = make_memory("User likes jazz")
        data = {
            "text": "User loves jazz",
            "memory_type": "preference",
            "topics": "music, evenings",
            "entities": "",
            "revision": "1",
        }
        response = post(operator_client, memory, "edit", {**data, "reason": "typo", "view": "row"}, htmx)
        assert response.status_code == 200
        memory.refresh_from_db()
        assert (memory.text, memory.memory_type, memory.topics, memory.revision) == (
            "User loves jazz",
            "preference",
            ["music", "evenings"],
            2,
        )
        revision = MemoryRevision.objects.get(memory=memory, revision=2)
        assert (revision.actor, revision.reason) == ("operator:olivia", "typo")
        assert b"Saved as a new revision" in response.content

    def test_it_shows_errors_inline(self, operator_client, make_memory, htmx):
        memory = make_memory("User likes jazz")
        response = post(
            operator_client,
            memory,
            "edit",
            {"text": "", "memory_type": "semantic", "view": "row", "revision": "1"},
            htmx,
        )
        assert response.status_code == 422
        assert b'class="error"' in response.content
        memory.refresh_from_db()
        assert memory.revision == 1

    def test_it_refuses_a_text_a_tombstone_forbids(self, operator_client, make_memory, htmx):
        memory_forget(memory=make_memory("User likes tea"), actor=SYSTEM)
        memory = make_memory("User likes jazz")
        data = {"text": "User likes tea", "memory_type": "semantic", "view": "row", "revision": "1"}
        response = post(operator_client, memory, "edit", data, htmx)
        assert response.status_code == 409
        assert b"tombstone" in response.content
        memory.refresh_from_db()
        assert memory.text == "User likes jazz"

    def test_it_edits_and_approves_a_candidate(self, operator_client, make_candidate, htmx):
        memory = make_candidate("User prefers isle seats")
        data = {
            "text": "User prefers aisle seats",
            "memory_type": "preference",
            "approve": "1",
            "view": "review",
            "revision": "1",
        }
        response = post(operator_client, memory, "edit", data, htmx)
        assert response.status_code == 200
        memory.refresh_from_db()
        assert (memory.text, memory.status) == ("User prefers aisle seats", "active")
        assert b"Saved and approved" in response.content
        # The card confirms with the text as saved, not as it was.
        assert b"User prefers aisle seats" in response.content and b"prefers isle" not in response.content

    @pytest.mark.parametrize("query", ["", "?view=review&approve=1", "?view=detail"])
    def test_a_page_opened_on_its_own_posts_plainly(self, operator_client, make_memory, query):
        memory = make_memory()
        html = operator_client.get(f"/memories/{memory.pk}/edit/{query}").content.decode()
        assert "<html" in html and f'action="/memories/{memory.pk}/edit/"' in html
        # htmx would swap the answer into a row, a card or a slot that this page does not have.
        assert "hx-post" not in html and "hx-target" not in html

    def test_a_plain_post_goes_to_the_memory_with_a_message(self, operator_client, make_candidate):
        memory = make_candidate("User prefers isle seats")
        data = {"text": "User prefers aisle seats", "memory_type": "preference", "revision": "1"}
        response = post(operator_client, memory, "edit", {**data, "view": "review", "approve": "1"})
        assert response.status_code == 302 and response["Location"] == f"/memories/{memory.pk}/"
        page = operator_client.get(response["Location"]).content.decode()
        assert "Saved and approved." in page and "User prefers aisle seats" in page

    def test_an_edit_from_the_detail_page_reloads_it(self, operator_client, make_memory, htmx):
        memory = make_memory("User likes jazz")
        data = {"text": "User likes modal jazz", "memory_type": "preference", "revision": "1", "view": "detail"}
        response = post(operator_client, memory, "edit", data, htmx)
        assert response.status_code == 200 and response["HX-Redirect"] == f"/memories/{memory.pk}/"
        page = operator_client.get(response["HX-Redirect"]).content.decode()
        assert "Saved as a new revision." in page and "r1 → r2" in page

    def test_the_form_carries_the_revision_it_shows(self, operator_client, make_memory, htmx):
        memory = make_memory("User likes jazz")
        memory_update(memory=memory, actor=SYSTEM, text="User likes free jazz")
        html = operator_client.get(f"/memories/{memory.pk}/edit/?view=row", headers=htmx).content.decode()
        assert 'name="revision" value="2"' in html

    def test_a_save_from_an_older_revision_shows_the_conflict_and_overwrites_nothing(
        self, operator_client, make_memory, htmx
    ):
        memory = make_memory("User likes jazz")
        # Both operators opened the form at revision 1; the other one saved first.
        memory_update(memory=memory, actor=SYSTEM, text="User likes jazz and blues", reason="the other operator")
        mine = {"text": "User loves jazz", "memory_type": "semantic", "view": "row", "revision": "1"}
        response = post(operator_client, memory, "edit", mine, htmx)
        assert response.status_code == 409
        html = response.content.decode()
        assert "Someone else saved revision 2" in html
        assert "User likes jazz and blues</blockquote>" in html
        assert "User loves jazz</textarea>" in html
        assert 'name="revision" value="2"' in html
        memory.refresh_from_db()
        assert (memory.text, memory.revision) == ("User likes jazz and blues", 2)
        # Saving again, knowingly, from the revision the conflict showed replaces it.
        response = post(operator_client, memory, "edit", {**mine, "revision": "2"}, htmx)
        assert response.status_code == 200
        memory.refresh_from_db()
        assert (memory.text, memory.revision) == ("User loves jazz", 3)

    def test_a_topic_longer_than_its_column_is_refused_not_cut(self, operator_client, make_memory, htmx):
        memory = make_memory("User likes jazz")
        data = {"text": "User likes jazz", "memory_type": "semantic", "topics": "m" * 150, "revision": "1"}
        response = post(operator_client, memory, "edit", {**data, "view": "row"}, htmx)
        assert response.status_code == 422
        assert b"at most 100 characters" in response.content
        memory.refresh_from_db()
        assert (memory.topics, memory.revision) == ([], 1)


class TestReview:
    def test_it_approves_a_candidate(self, operator_client, make_candidate, htmx):
        memory = make_candidate()
        response = post(operator_client, memory, "approve", headers=htmx)
        assert response.status_code == 200
        memory.refresh_from_db()
        assert memory.status == "active"

    def test_it_rejects_a_candidate_and_keeps_its_text_in_the_tombstone(self, operator_client, make_candidate, htmx):
        memory = make_candidate("User prefers aisle seats")
        response = post(operator_client, memory, "reject", {"reason": "wrong"}, htmx)
        assert response.status_code == 200
        assert not Memory.objects.filter(pk=memory.pk).exists()
        tombstone = Tombstone.objects.get()
        assert (tombstone.reason, tombstone.text) == ("rejected", "User prefers aisle seats")

    @pytest.mark.parametrize("action", ["approve", "reject"])
    def test_it_answers_409_for_a_memory_that_is_not_a_candidate(self, operator_client, make_memory, htmx, action):
        memory = make_memory()
        response = post(operator_client, memory, action, headers=htmx)
        assert response.status_code == 409
        assert response["Content-Type"].startswith("text/plain")
        assert Memory.objects.get(pk=memory.pk).status == "active"


@pytest.mark.parametrize("action", ACTIONS)
def test_it_requires_the_operator_role(viewer_client, make_candidate, action):
    memory = make_candidate("User prefers aisle seats")
    before = AuditEvent.objects.count()
    data = {"text": "changed", "memory_type": "semantic", "reason": "x"}
    response = post(viewer_client, memory, action, data)
    assert response.status_code == 403
    memory.refresh_from_db()
    assert (memory.text, memory.status, memory.revision) == ("User prefers aisle seats", "candidate", 1)
    assert not Pin.objects.exists()
    assert not Tombstone.objects.exists()
    assert AuditEvent.objects.count() == before


@pytest.mark.parametrize("action", ACTIONS)
def test_it_answers_404_for_an_unknown_memory(operator_client, db, action):
    response = operator_client.post(f"/memories/{uuid.uuid4()}/{action}/", {})
    assert response.status_code == 404


@pytest.mark.parametrize("action", ["pin", "unpin", "approve", "reject"])
def test_it_allows_only_post_for_actions(operator_client, make_memory, action):
    assert operator_client.get(f"/memories/{make_memory().pk}/{action}/").status_code == 405


def test_it_requires_a_csrf_token(olivia, make_memory):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(olivia)
    memory = make_memory()
    assert client.post(f"/memories/{memory.pk}/pin/").status_code == 403
    assert not Pin.objects.exists()


class TestBulk:
    def test_it_applies_one_action_to_each_selected_memory(self, operator_client, make_memory, htmx):
        memories = [make_memory(f"User fact {i}") for i in range(3)]
        data = {"ns": "alpha", "action": "pin", "ids": [str(m.pk) for m in memories], "reason": "bulk"}
        response = operator_client.post("/memories/bulk/", data, headers=htmx)
        assert response.status_code == 200
        assert Pin.objects.count() == 3
        html = response.content.decode()
        assert "Pin: 3 done." in html
        assert html.count('hx-swap-oob="true"') == 3

    def test_it_reports_each_failure_on_its_own(self, operator_client, make_memory, make_candidate, htmx):
        candidate = make_candidate("User prefers tea")
        active = make_memory("User likes jazz")
        data = {"ns": "alpha", "action": "approve", "ids": [str(candidate.pk), str(active.pk), str(uuid.uuid4())]}
        response = operator_client.post("/memories/bulk/", data, headers=htmx)
        assert b"Approve: 1 done, 2 failed." in response.content
        candidate.refresh_from_db()
        assert candidate.status == "active"

    def test_it_removes_forgotten_rows(self, operator_client, make_memory, htmx):
        memories = [make_memory(f"User fact {i}") for i in range(2)]
        data = {"ns": "alpha", "action": "forget", "ids": [str(m.pk) for m in memories]}
        response = operator_client.post("/memories/bulk/", data, headers=htmx)
        assert Memory.objects.count() == 0
        assert Tombstone.objects.count() == 2
        assert response.content.decode().count('class="gone"') == 2

    def test_it_never_touches_another_namespace(self, operator_client, namespace, other_namespace, make_memory, htmx):
        theirs = make_memory("User likes jazz", ns=other_namespace)
        data = {"ns": "alpha", "action": "forget", "ids": [str(theirs.pk)]}
        response = operator_client.post("/memories/bulk/", data, headers=htmx)
        assert b"0 done, 1 failed" in response.content
        assert Memory.objects.filter(pk=theirs.pk).exists()

    @pytest.mark.parametrize(
        "data",
        [
            {"ns": "alpha", "action": "explode", "ids": ["00000000-0000-0000-0000-000000000000"]},
            {"ns": "alpha", "action": "pin", "ids": ["not-a-uuid"]},
            {"ns": "alpha", "action": "pin"},
        ],
    )
    def test_it_answers_422_to_a_bad_request(self, operator_client, namespace, htmx, data):
        assert operator_client.post("/memories/bulk/", data, headers=htmx).status_code == 422

    def test_it_answers_404_for_an_unknown_namespace(self, operator_client, namespace):
        assert operator_client.post("/memories/bulk/", {"ns": "nope", "action": "pin"}).status_code == 404

    def test_it_requires_the_operator_role(self, viewer_client, make_memory):
        memory = make_memory()
        response = viewer_client.post("/memories/bulk/", {"ns": "alpha", "action": "pin", "ids": [str(memory.pk)]})
        assert response.status_code == 403
        assert not Pin.objects.exists()

    def test_it_keeps_its_query_count_per_memory_bounded(
        self, operator_client, make_memory, htmx, django_assert_max_num_queries
    ):
        memories = [make_memory(f"User fact {i}") for i in range(10)]
        data = {"ns": "alpha", "action": "pin", "ids": [str(m.pk) for m in memories]}
        # One read for the whole selection; then per memory only the service's own work (locked read,
        # pin lookup and insert, the audit event's lock, last hash and insert, and their savepoints).
        with django_assert_max_num_queries(6 + 10 * 12):
            operator_client.post("/memories/bulk/", data, headers=htmx)
