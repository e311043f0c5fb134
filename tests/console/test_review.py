from __future__ import annotations

from datetime import timedelta
from urllib.parse import parse_qs, urlparse

from django.utils import timezone

from memoryadmin.conversations.services import NewMessage


def test_it_lists_candidates_oldest_first(viewer_client, make_memory, make_candidate):
    now = timezone.now()
    newer = make_candidate("User prefers tea", created_at=now - timedelta(hours=1))
    older = make_candidate("User prefers rain", created_at=now - timedelta(hours=2))
    make_memory("User likes jazz")
    response = viewer_client.get("/review/")
    assert response.status_code == 200
    assert [item.memory.pk for item in response.context["items"]] == [older.pk, newer.pk]


def test_it_shows_evidence_inline(viewer_client, make_session, make_candidate):
    session, messages = make_session(messages=[NewMessage(role="user", content="I prefer aisle seats.")])
    make_candidate("User prefers aisle seats", evidence_message_ids=[messages[0].pk])
    html = viewer_client.get("/review/").content.decode()
    assert "I prefer aisle seats." in html
    assert f"/sessions/{session.pk}/?at=1#msg-1" in html


def test_it_offers_keyboard_actions_to_an_operator(operator_client, make_candidate):
    make_candidate()
    html = operator_client.get("/review/").content.decode()
    assert 'data-key="a"' in html
    assert 'data-key="e"' in html
    assert 'data-key="r"' in html


def test_it_hides_actions_from_a_viewer(viewer_client, make_candidate):
    make_candidate()
    html = viewer_client.get("/review/").content.decode()
    assert "data-key" not in html
    assert "/approve/" not in html


def test_it_answers_a_review_card_action_with_a_done_card(operator_client, make_candidate, htmx):
    memory = make_candidate()
    response = operator_client.post(f"/memories/{memory.pk}/approve/", {"view": "review"}, headers=htmx)
    assert b"data-review-done" in response.content


def test_the_queue_s_count_follows_each_review(operator_client, make_candidate, htmx):
    first, second = make_candidate("User likes tea"), make_candidate("User likes jazz")
    make_candidate()
    assert '<span id="review-waiting">3 candidates</span>' in operator_client.get("/review/").content.decode()
    approved = operator_client.post(f"/memories/{first.pk}/approve/", {"view": "review"}, headers=htmx)
    assert '<span id="review-waiting" hx-swap-oob="true">2 candidates</span>' in approved.content.decode()
    rejected = operator_client.post(f"/memories/{second.pk}/reject/", {"view": "review"}, headers=htmx)
    assert '<span id="review-waiting" hx-swap-oob="true">1 candidate</span>' in rejected.content.decode()


def test_it_loads_more(viewer_client, make_candidate, htmx):
    now = timezone.now()
    candidates = [
        make_candidate(f"User prefers thing {i}", created_at=now - timedelta(minutes=60 - i)) for i in range(25)
    ]
    first = viewer_client.get("/review/")
    assert len(first.context["items"]) == 20
    cursor = parse_qs(urlparse(first.context["next_url"]).query)["cursor"][0]
    more = viewer_client.get(f"/review/?cursor={cursor}", headers=htmx)
    assert [item.memory.pk for item in more.context["items"]] == [c.pk for c in candidates[20:]]
    assert b"<html" not in more.content


def test_it_lists_without_n_plus_one(viewer_client, make_session, make_candidate, django_assert_max_num_queries):
    for i in range(15):
        _, messages = make_session(f"s{i}", [NewMessage(role="user", content=f"I prefer thing {i}.")])
        make_candidate(f"User prefers thing {i}", evidence_message_ids=[messages[0].pk])
    with django_assert_max_num_queries(8):
        response = viewer_client.get("/review/")
    assert len(response.context["items"]) == 15


def test_it_says_what_to_do_when_empty(viewer_client, namespace):
    assert b"Nothing to review" in viewer_client.get("/review/").content


def test_it_answers_400_to_a_tampered_cursor(viewer_client, namespace):
    assert viewer_client.get("/review/?cursor=abc").status_code == 400


def test_an_empty_queue_says_where_candidates_wait(viewer_client, namespace, make_namespace, make_candidate):
    make_namespace("bravo")
    charlie = make_namespace("charlie")
    make_candidate("User prefers aisle seats", ns=charlie)
    make_candidate("User prefers window seats", ns=charlie)
    response = viewer_client.get("/review/?ns=alpha")
    assert [(ns.slug, n) for ns, n in response.context["elsewhere"]] == [("charlie", 2)]
    assert '<a href="/review/?ns=charlie">charlie (2)</a>' in response.content.decode()
    assert "elsewhere" not in viewer_client.get("/review/?ns=charlie").context


def test_the_queue_opens_where_candidates_wait(viewer_client, namespace, make_namespace, make_candidate):
    make_namespace("bravo")
    charlie = make_namespace("charlie")
    make_candidate("User prefers aisle seats", ns=charlie)
    # Without ?ns=, the first namespace (alpha) has none: the queue opens on the one that has some.
    response = viewer_client.get("/review/")
    assert response.context["namespace"] == charlie
    assert [item.memory.text for item in response.context["items"]] == ["User prefers aisle seats"]
    # Asked for by name, a namespace is shown even when empty.
    assert viewer_client.get("/review/?ns=alpha").context["namespace"] == namespace
