from __future__ import annotations

from datetime import timedelta
from urllib.parse import parse_qs, urlparse

import pytest
from django.utils import timezone

from memoryadmin.memories.services import memory_pin
from tests.conftest import SYSTEM


def test_it_works(viewer_client, make_memory):
    memory = make_memory("User likes jazz")
    response = viewer_client.get("/memories/")
    assert response.status_code == 200
    assert [m.pk for m in response.context["items"]] == [memory.pk]
    assert b"User likes jazz" in response.content


def test_it_lists_newest_first(viewer_client, make_memory):
    now = timezone.now()
    older = make_memory("User likes tea", created_at=now - timedelta(days=2))
    newer = make_memory("User likes jazz", created_at=now - timedelta(days=1))
    assert [m.pk for m in viewer_client.get("/memories/").context["items"]] == [newer.pk, older.pk]


def test_it_checks_the_namespace(viewer_client, namespace, other_namespace, make_memory):
    make_memory("User likes jazz")
    theirs = make_memory("User likes tea", ns=other_namespace)
    response = viewer_client.get("/memories/?ns=bravo")
    assert [m.pk for m in response.context["items"]] == [theirs.pk]
    assert viewer_client.get("/memories/?ns=nope").status_code == 404


def test_it_remembers_the_chosen_namespace(viewer_client, namespace, other_namespace, make_memory):
    theirs = make_memory("User likes tea", ns=other_namespace)
    viewer_client.get("/memories/?ns=bravo")
    assert [m.pk for m in viewer_client.get("/memories/").context["items"]] == [theirs.pk]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("user=u2", ["User likes tea"]),
        ("type=preference", ["User prefers rain"]),
        ("status=candidate", ["User prefers rain"]),
        ("pinned=yes", ["User likes jazz"]),
        ("topic=music", ["User likes jazz"]),
        ("q=tea", ["User likes tea"]),
        ("q=likes&user=u1", ["User likes jazz"]),
        ("q=rain&status=candidate", ["User prefers rain"]),
    ],
)
def test_it_filters(viewer_client, make_memory, make_candidate, query, expected):
    jazz = make_memory("User likes jazz", topics=["music"])
    memory_pin(memory=jazz, actor=SYSTEM)
    make_memory("User likes tea", user_id="u2")
    make_candidate("User prefers rain", memory_type="preference")
    response = viewer_client.get(f"/memories/?{query}")
    assert response.status_code == 200
    assert sorted(m.text for m in response.context["items"]) == expected


def test_it_filters_by_created_range_inclusive_of_both_days(viewer_client, make_memory):
    now = timezone.now()
    make_memory("User likes tea", created_at=now - timedelta(days=10))
    inside = make_memory("User likes jazz", created_at=now - timedelta(days=5))
    make_memory("User likes rain", created_at=now)
    start = (now - timedelta(days=6)).date().isoformat()
    end = (now - timedelta(days=5)).date().isoformat()
    response = viewer_client.get(f"/memories/?created_from={start}&created_to={end}")
    assert [m.pk for m in response.context["items"]] == [inside.pk]


def test_it_shows_candidates_in_a_search_without_a_status(viewer_client, make_candidate):
    candidate = make_candidate("User prefers rain")
    assert [m.pk for m in viewer_client.get("/memories/?q=rain").context["items"]] == [candidate.pk]


def test_it_does_not_count_an_operators_search_as_an_access(viewer_client, make_memory):
    memory = make_memory("User likes jazz")
    viewer_client.get("/memories/?q=jazz")
    memory.refresh_from_db()
    assert memory.access_count == 0


@pytest.mark.parametrize(
    "query",
    ["created_from=yesterday", "created_from=2024-05-02&created_to=2024-05-01", "type=nonsense", "user=bad%20id"],
)
def test_it_answers_400_to_bad_filters(viewer_client, namespace, query):
    response = viewer_client.get(f"/memories/?{query}")
    assert response.status_code == 400
    assert b'role="alert"' in response.content


def test_it_answers_400_to_a_tampered_cursor(viewer_client, namespace):
    assert viewer_client.get("/memories/?cursor=not-a-cursor").status_code == 400


def test_it_loads_more_with_a_keyset_cursor(viewer_client, make_memory, htmx):
    now = timezone.now()
    memories = [make_memory(f"User fact number {i}", created_at=now - timedelta(minutes=i)) for i in range(55)]
    first = viewer_client.get("/memories/")
    assert len(first.context["items"]) == 50
    next_url = first.context["next_url"]
    assert 'hx-trigger="revealed"' in first.content.decode()
    cursor = parse_qs(urlparse(next_url).query)["cursor"][0]
    more = viewer_client.get(f"/memories/?ns=alpha&cursor={cursor}", headers=htmx)
    assert more.status_code == 200
    assert [m.pk for m in more.context["items"]] == [m.pk for m in memories[50:]]
    assert b"<html" not in more.content
    assert b"<thead>" not in more.content
    assert more.context.get("next_url") is None


def test_it_answers_filters_with_the_results_and_pushes_a_clean_url(viewer_client, make_memory, htmx):
    make_memory("User likes jazz")
    response = viewer_client.get("/memories/?ns=alpha&q=jazz&user=&type=&status=", headers=htmx)
    assert response.status_code == 200
    assert b"<html" not in response.content
    assert b"<thead>" in response.content
    assert response["HX-Push-Url"] == "/memories/?ns=alpha&q=jazz"
    assert "HX-Request" in response["Vary"]


def test_it_renders_a_full_page_for_a_history_restore(viewer_client, make_memory, htmx):
    response = viewer_client.get("/memories/?q=jazz", headers={**htmx, "HX-History-Restore-Request": "true"})
    assert b"<html" in response.content


def test_it_escapes_memory_text(viewer_client, make_memory):
    make_memory("<script>alert(1)</script>")
    html = viewer_client.get("/memories/").content.decode()
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_it_lists_without_n_plus_one(viewer_client, make_memory, django_assert_max_num_queries):
    for i in range(30):
        memory = make_memory(f"User fact {i}", topics=["t"])
        if i % 3 == 0:
            memory_pin(memory=memory, actor=SYSTEM)
    # session, user, groups, namespaces, the page, the bounded total
    with django_assert_max_num_queries(7):
        response = viewer_client.get("/memories/")
    assert len(response.context["items"]) == 30


def test_it_searches_without_n_plus_one(viewer_client, make_memory, django_assert_max_num_queries):
    for i in range(30):
        make_memory(f"User likes jazz number {i}")
    # The page's own queries and search's three statements, whatever the number of rows.
    with django_assert_max_num_queries(8):
        response = viewer_client.get("/memories/?q=jazz")
    assert len(response.context["items"]) == 30


def why_shown(html: str, text: str) -> str:
    """The reasons shown under the search row of the memory with this text."""
    row = html[html.index(text) :]
    return row[row.index('class="why') : row.index("</div>", row.index('class="why'))]


def test_its_search_answers_a_question_and_shows_why_each_memory_matched(viewer_client, make_memory):
    make_memory("User drives a red automobile")
    make_memory("User works as a nurse in Lyon")
    make_memory("User drinks green tea")
    response = viewer_client.get("/memories/?q=Which+car+is+the+user%27s%3F")
    items = response.context["items"]
    assert items[0].text == "User drives a red automobile"
    html = response.content.decode()
    why = why_shown(html, "User drives a red automobile")
    # The query's word and the memory's closest word, and the embedding similarity.
    assert "car ≈ <mark>automobile</mark>" in why
    assert "meaning" in why and "score" in why


def test_its_search_says_when_a_memory_is_about_someone_else_than_the_person_asked_about(viewer_client, make_memory):
    for text in [
        "Caroline relaxes with yoga.",
        "Caroline paints to relax.",
        "Melanie relaxes at her pottery class.",
        "Melanie has kids.",
    ]:
        make_memory(text)
    html = viewer_client.get("/memories/?q=How+does+Melanie+relax%3F").content.decode()

    assert "about someone else" in why_shown(html, "Caroline relaxes with yoga.")
    assert "about someone else" not in why_shown(html, "Melanie relaxes at her pottery class.")


def test_its_search_says_when_a_memory_says_the_opposite_of_what_is_asked(viewer_client, make_memory):
    for text in ["User dislikes spicy food", "User loves sushi"]:
        make_memory(text)
    html = viewer_client.get("/memories/?q=What+food+does+the+user+like%3F").content.decode()

    assert "says the opposite" in why_shown(html, "User dislikes spicy food")
    assert "says the opposite" not in why_shown(html, "User loves sushi")


def test_its_search_says_when_a_memory_states_what_is_asked_or_only_names_the_person(viewer_client, make_memory):
    make_memory("User is starting at KPMG on Monday", user_id="ana", attribute="employer")
    make_memory("User's work laptop broke again", user_id="ana")
    make_memory("User's name is Ana", user_id="ana", attribute="name")
    response = viewer_client.get("/memories/?q=where+does+ana+work%3F&user=ana")
    assert response.context["items"][0].text == "User is starting at KPMG on Monday"
    html = response.content.decode()

    assert "the employer asked about" in why_shown(html, "User is starting at KPMG on Monday")
    assert "asked about" not in why_shown(html, "User&#x27;s work laptop broke again")
    assert "the person's name, not asked" in why_shown(html, "User&#x27;s name is Ana")


def test_its_search_reads_operators_syntax_and_shows_why_each_memory_matched(viewer_client, make_memory):
    make_memory("User drives a red automobile")
    make_memory("User drives a blue bus")
    make_memory("User drinks green tea")
    response = viewer_client.get("/memories/?q=drives+-bus")
    items = response.context["items"]
    assert [m.text for m in items] == ["User drives a red automobile"]
    html = response.content.decode()
    why = why_shown(html, "User drives a red automobile")
    assert "<mark>drives</mark>" in why and "score" in why


def test_it_hides_actions_from_a_viewer(viewer_client, make_memory, make_candidate):
    make_memory("User likes jazz")
    make_candidate("User prefers rain")
    html = viewer_client.get("/memories/").content.decode()
    for action in ("/pin/", "/forget/", "/edit/", "/approve/", "/reject/", "bulk-form"):
        assert action not in html


def test_it_shows_actions_to_an_operator(operator_client, make_candidate):
    make_candidate("User prefers rain")
    html = operator_client.get("/memories/").content.decode()
    for action in ("/pin/", "/forget/", "/edit/", "/approve/", "/reject/", 'id="bulk-form"'):
        assert action in html


def test_it_says_what_to_do_when_nothing_matches(viewer_client, namespace, make_memory):
    assert b"No memory matches" in viewer_client.get("/memories/?q=nothing").content
    make_memory("User likes tea")
    assert b"No memory matches" in viewer_client.get("/memories/?user=nobody").content


def test_an_empty_namespace_says_where_memories_come_from(viewer_client, namespace):
    html = viewer_client.get(f"/memories/?ns={namespace.slug}").content.decode()
    assert "Nothing is remembered in <code>alpha</code> yet" in html and "No memory matches" not in html


def test_it_says_what_to_do_without_a_namespace(viewer_client):
    assert b"create_namespace" in viewer_client.get("/memories/").content


def test_it_never_counts_a_whole_table(viewer_client, make_memory):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    make_memory("User likes jazz")
    with CaptureQueriesContext(connection) as captured:
        viewer_client.get("/memories/")
        viewer_client.get("/")
    big = ("memories_memory", "memories_tombstone", "conversations_session", "conversations_message", "audit_")
    counts = [
        q["sql"]
        for q in captured.captured_queries
        if "COUNT(" in q["sql"].upper() and any(table in q["sql"] for table in big)
    ]
    assert counts
    for sql in counts:
        # Either stopped by a LIMIT, or the dashboard's per-day counts over a range of the created_at index.
        assert "LIMIT" in sql.upper() or '"created_at" >= ' in sql, sql


def test_it_says_how_many_match_the_filters(viewer_client, make_memory, htmx):
    for i in range(3):
        make_memory(f"User likes jazz {i}", memory_type="preference")
    make_memory("User lives in Lyon", memory_type="semantic")
    response = viewer_client.get("/memories/?type=preference", headers=htmx)
    assert response.context["matching"].value == 3
    assert "3 match these filters." in response.content.decode()
    assert "matching" not in viewer_client.get("/memories/").context


def test_its_count_of_matches_stops_at_a_cap(viewer_client, make_memory):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    make_memory("User likes jazz", memory_type="preference")
    with CaptureQueriesContext(connection) as captured:
        viewer_client.get("/memories/?type=preference")
    counts = [q["sql"] for q in captured.captured_queries if "COUNT(" in q["sql"].upper()]
    assert len(counts) == 2  # the namespace's total and the matches
    assert all("LIMIT 10001" in sql for sql in counts), counts


def test_its_created_column_sorts_both_ways(viewer_client, make_memory):
    from datetime import timedelta

    from django.utils import timezone

    now = timezone.now()
    for i in range(3):
        make_memory(f"User likes jazz {i}", created_at=now - timedelta(days=i))
    oldest = viewer_client.get("/memories/?ns=alpha&order=oldest")
    assert [m.text for m in oldest.context["items"]] == ["User likes jazz 2", "User likes jazz 1", "User likes jazz 0"]
    assert 'href="?ns=alpha"' in oldest.content.decode()
    # A search is ordered by relevance: no column to sort by.
    assert "reverse_url" not in viewer_client.get("/memories/?ns=alpha&q=jazz").context


def test_its_summary_says_the_order_shown(viewer_client, make_memory):
    make_memory("User likes jazz")

    def summary(query: str) -> str:
        html = viewer_client.get("/memories/?ns=alpha" + query).content.decode()
        return html[html.index('id="list-summary"') : html.index("</p>", html.index('id="list-summary"'))]

    assert "Newest first." in summary("")
    assert "Oldest first." in summary("&order=oldest") and "Newest" not in summary("&order=oldest")
    assert "Best match first." in summary("&q=jazz") and "Newest" not in summary("&q=jazz")


def test_a_search_says_how_many_memories_it_found(viewer_client, make_memory):
    make_memory("User drives a red automobile")
    make_memory("User drives a blue bus")
    make_memory("User drinks green tea")
    html = viewer_client.get("/memories/?q=drives").content.decode()
    assert "2 memories match the search." in html
    html = viewer_client.get("/memories/?q=%22green+tea%22").content.decode()
    assert "1 memory matches the search." in html
