from __future__ import annotations

from memoryadmin.audit.models import AuditEvent
from memoryadmin.memories.models import Tombstone
from memoryadmin.memories.services import memory_forget, memory_reject
from tests.conftest import SYSTEM


def test_it_lists_tombstones_newest_first(viewer_client, make_memory, make_candidate):
    memory_forget(memory=make_memory("User likes tea"), actor=SYSTEM)
    memory_reject(memory=make_candidate("User prefers rain", user_id="u2"), actor=SYSTEM)
    response = viewer_client.get("/tombstones/")
    assert response.status_code == 200
    assert [t.reason for t in response.context["items"]] == ["rejected", "forgotten"]
    html = response.content.decode()
    assert "User prefers rain" in html
    assert "User likes tea" not in html


def test_it_filters_by_user_and_reason(viewer_client, make_memory, make_candidate):
    memory_forget(memory=make_memory("User likes tea"), actor=SYSTEM)
    memory_reject(memory=make_candidate("User prefers rain", user_id="u2"), actor=SYSTEM)
    assert [t.user_id for t in viewer_client.get("/tombstones/?user=u2").context["items"]] == ["u2"]
    assert [t.reason for t in viewer_client.get("/tombstones/?reason=forgotten").context["items"]] == ["forgotten"]


def test_it_lists_without_n_plus_one(viewer_client, make_memory, django_assert_max_num_queries):
    for i in range(20):
        memory_forget(memory=make_memory(f"User fact {i}"), actor=SYSTEM)
    with django_assert_max_num_queries(7):
        assert len(viewer_client.get("/tombstones/").context["items"]) == 20


def test_it_lifts_a_tombstone_with_a_reason(admin_client, make_memory, htmx):
    tombstone = memory_forget(memory=make_memory("User likes tea"), actor=SYSTEM)
    response = admin_client.post(f"/tombstones/{tombstone.pk}/lift/", {"reason": "forgotten by mistake"}, headers=htmx)
    assert response.status_code == 200
    assert b"Lifted" in response.content
    assert not Tombstone.objects.exists()
    event = AuditEvent.objects.get(action="tombstone.lift")
    assert (event.actor, event.reason) == ("alice", "forgotten by mistake")


def test_the_count_of_a_filtered_list_follows_a_lift(admin_client, make_memory, htmx):
    first = memory_forget(memory=make_memory("User likes tea"), actor=SYSTEM)
    memory_forget(memory=make_memory("User likes rain"), actor=SYSTEM)
    page = admin_client.get("/tombstones/?user=u1").content.decode()
    assert "2 match these filters" in page and '"list_user": "u1"' in page
    # The lift is sent with the list's filters (hx-vals), and answers the new count out of band.
    response = admin_client.post(
        f"/tombstones/{first.pk}/lift/", {"reason": "by mistake", "list_user": "u1", "list_reason": ""}, headers=htmx
    )
    html = response.content.decode()
    assert 'id="result-count"' in html and 'hx-swap-oob="true"' in html
    assert "1 matches these filters" in html


def test_it_needs_a_reason_to_lift(admin_client, make_memory, htmx):
    tombstone = memory_forget(memory=make_memory("User likes tea"), actor=SYSTEM)
    response = admin_client.post(f"/tombstones/{tombstone.pk}/lift/", {"reason": ""}, headers=htmx)
    assert response.status_code == 422
    assert b"This needs a reason" in response.content
    assert Tombstone.objects.exists()


def test_it_requires_the_admin_role(operator_client, make_memory):
    tombstone = memory_forget(memory=make_memory("User likes tea"), actor=SYSTEM)
    assert operator_client.post(f"/tombstones/{tombstone.pk}/lift/", {"reason": "x"}).status_code == 403
    assert Tombstone.objects.exists()


def test_it_answers_404_for_an_unknown_tombstone(admin_client, db):
    assert admin_client.post("/tombstones/999999/lift/", {"reason": "x"}).status_code == 404


def test_it_hides_lift_from_an_operator(operator_client, make_memory):
    memory_forget(memory=make_memory("User likes tea"), actor=SYSTEM)
    assert "/lift/" not in operator_client.get("/tombstones/").content.decode()


def test_it_says_how_many_match_the_filters(viewer_client, make_memory, make_candidate):
    from memoryadmin.memories.services import memory_forget
    from tests.conftest import SYSTEM

    memory_forget(memory=make_memory("User likes jazz"), actor=SYSTEM)
    memory_forget(memory=make_memory("User likes tea", user_id="u2"), actor=SYSTEM)
    response = viewer_client.get("/tombstones/?user=u2")
    assert "1 matches these filters." in response.content.decode()


def test_its_when_column_sorts_both_ways(viewer_client, make_memory):
    from memoryadmin.memories.services import memory_forget
    from tests.conftest import SYSTEM

    for text in ("User likes jazz", "User likes tea"):
        memory_forget(memory=make_memory(text), actor=SYSTEM, reason=text)
    newest = [t.pk for t in viewer_client.get("/tombstones/").context["items"]]
    oldest = [t.pk for t in viewer_client.get("/tombstones/?order=oldest").context["items"]]
    assert oldest == list(reversed(newest)) and len(oldest) == 2
