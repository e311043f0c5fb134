from __future__ import annotations

import json
from urllib.parse import parse_qs, urlparse

import pytest

from memoryadmin.conversations.services import NewMessage
from memoryadmin.conversations.working_memory import working_memory_put
from memoryadmin.extraction.models import ExtractionRun, RunStatus


def test_it_lists_sessions_by_recent_activity(viewer_client, make_session):
    _first, _ = make_session("s1")
    _second, _ = make_session("s2")
    make_session("s1", [NewMessage(role="user", content="again")])
    response = viewer_client.get("/sessions/")
    assert response.status_code == 200
    assert [s.session_id for s in response.context["items"]] == ["s1", "s2"]


@pytest.mark.parametrize(("query", "expected"), [("user=u2", ["s2"]), ("agent=bot-b", ["s2"]), ("user=u1", ["s1"])])
def test_it_filters_by_user_and_agent(viewer_client, make_session, query, expected):
    make_session("s1", user_id="u1", agent_id="bot-a")
    make_session("s2", user_id="u2", agent_id="bot-b")
    assert [s.session_id for s in viewer_client.get(f"/sessions/?{query}").context["items"]] == expected


def test_it_loads_more(viewer_client, make_session, htmx, settings):
    for i in range(55):
        make_session(f"s{i:02d}")
    first = viewer_client.get("/sessions/")
    assert len(first.context["items"]) == 50
    cursor = parse_qs(urlparse(first.context["next_url"]).query)["cursor"][0]
    more = viewer_client.get(f"/sessions/?cursor={cursor}", headers=htmx)
    assert len(more.context["items"]) == 5
    seen = {s.pk for s in first.context["items"]} | {s.pk for s in more.context["items"]}
    assert len(seen) == 55


def test_it_lists_without_n_plus_one(viewer_client, make_session, django_assert_max_num_queries):
    for i in range(20):
        make_session(f"s{i:02d}")
    with django_assert_max_num_queries(7):
        assert len(viewer_client.get("/sessions/").context["items"]) == 20


def test_it_answers_400_to_a_bad_filter(viewer_client, namespace):
    assert viewer_client.get("/sessions/?user=bad%20id").status_code == 400


class TestTranscript:
    def test_it_shows_messages_in_seq_order_with_injected_guidance_set_apart(self, viewer_client, make_session):
        session, _ = make_session()
        response = viewer_client.get(f"/sessions/{session.pk}/")
        assert response.status_code == 200
        lines = response.context["page"].lines
        assert [line.message.seq for line in lines] == [1, 2, 3]
        html = response.content.decode()
        assert 'class="msg role-system injected"' in html
        assert 'id="hide-injected"' in html

    def test_it_pairs_tool_calls_with_their_results(self, viewer_client, make_session):
        call = {
            "id": "call_1",
            "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city": "Lyon"}'},
        }
        session, _ = make_session(
            messages=[
                NewMessage(role="user", content="Weather?"),
                NewMessage(role="assistant", content="", tool_calls=[call]),
                NewMessage(role="tool", content='{"temp": 21}', tool_call_id="call_1"),
                NewMessage(role="assistant", content="It is 21 degrees."),
            ]
        )
        response = viewer_client.get(f"/sessions/{session.pk}/")
        lines = response.context["page"].lines
        assert [line.message.seq for line in lines] == [1, 2, 4]
        assert lines[1].calls[0].name == "get_weather"
        assert lines[1].calls[0].result.seq == 3
        html = response.content.decode()
        assert 'class="tool-result" id="msg-3"' in html
        assert "{&quot;temp&quot;: 21}" in html

    def test_it_highlights_evidence_and_links_to_the_memory(self, viewer_client, make_session, make_memory):
        session, messages = make_session()
        memory = make_memory("User lives in Lyon", evidence_message_ids=[messages[1].pk])
        html = viewer_client.get(f"/sessions/{session.pk}/").content.decode()
        assert 'id="msg-2" class="msg role-user evidence"' in html
        assert f'href="/memories/{memory.pk}/"' in html

    def test_it_opens_at_a_message(self, viewer_client, make_session):
        session, _ = make_session(messages=[NewMessage(role="user", content=f"m{i}") for i in range(20)])
        response = viewer_client.get(f"/sessions/{session.pk}/?at=15")
        lines = response.context["page"].lines
        assert lines[0].message.seq == 10
        assert response.context["earlier_url"] == f"/sessions/{session.pk}/?after=0"
        assert 'id="msg-15" class="msg role-user target"' in response.content.decode()

    def test_it_loads_later_messages(self, viewer_client, make_session, htmx):
        session, _ = make_session(messages=[NewMessage(role="user", content=f"m{i}") for i in range(100)])
        make_session(messages=[NewMessage(role="user", content=f"n{i}") for i in range(30)])
        first = viewer_client.get(f"/sessions/{session.pk}/")
        assert first.context["next_url"] == f"/sessions/{session.pk}/?after=100"
        more = viewer_client.get(first.context["next_url"], headers=htmx)
        assert [line.message.seq for line in more.context["page"].lines] == list(range(101, 131))
        assert b"<html" not in more.content

    def test_it_shows_working_memory_with_its_ttl(self, viewer_client, make_session):
        session, _ = make_session()
        working_memory_put(namespace_id=session.namespace_id, session_id="s1", state={"cart": ["tea"]}, ttl_seconds=600)
        html = viewer_client.get(f"/sessions/{session.pk}/").content.decode()
        assert 'data-ttl="600"' in html
        assert json.dumps(["tea"], indent=2).replace('"', "&quot;") in html

    def test_it_says_when_there_is_no_working_memory(self, viewer_client, make_session):
        session, _ = make_session()
        assert b"No working memory" in viewer_client.get(f"/sessions/{session.pk}/").content

    def test_it_shows_extraction_runs_with_counts_and_errors(self, viewer_client, namespace, make_session):
        session, _ = make_session()
        ExtractionRun.objects.create(
            namespace=namespace, session=session, strategy="rules", status=RunStatus.FAILED, error="bad output"
        )
        html = viewer_client.get(f"/sessions/{session.pk}/").content.decode()
        assert "bad output" in html
        assert 'class="badge failed"' in html

    def test_it_escapes_message_content(self, viewer_client, make_session):
        session, _ = make_session(messages=[NewMessage(role="user", content="<img src=x onerror=alert(1)>")])
        html = viewer_client.get(f"/sessions/{session.pk}/").content.decode()
        assert "<img src=x" not in html

    def test_it_reads_with_a_fixed_number_of_queries(
        self, viewer_client, make_session, make_memory, django_assert_max_num_queries
    ):
        session, messages = make_session(
            messages=[NewMessage(role="user", content=f"I like thing {i}.") for i in range(40)]
        )
        for i, message in enumerate(messages[:20]):
            make_memory(f"User likes thing {i}", evidence_message_ids=[message.pk])
        with django_assert_max_num_queries(8):
            assert viewer_client.get(f"/sessions/{session.pk}/").status_code == 200

    def test_it_answers_404_for_an_unknown_session(self, viewer_client, db):
        assert viewer_client.get("/sessions/999999/").status_code == 404


class TestExtractNow:
    def test_it_schedules_an_extraction(self, operator_client, make_session, htmx):
        session, _ = make_session()
        response = operator_client.post(f"/sessions/{session.pk}/extract/", headers=htmx)
        assert response.status_code == 200
        run = ExtractionRun.objects.get(session=session)
        assert run.status == RunStatus.QUEUED
        assert b"Extraction scheduled" in response.content

    def test_it_requires_the_operator_role(self, viewer_client, make_session):
        session, _ = make_session()
        assert viewer_client.post(f"/sessions/{session.pk}/extract/").status_code == 403
        assert not ExtractionRun.objects.exists()

    def test_it_answers_404_for_an_unknown_session(self, operator_client, db):
        assert operator_client.post("/sessions/999999/extract/").status_code == 404


def test_it_says_how_many_match_the_filters(viewer_client, make_session):
    make_session("s1", user_id="u1")
    make_session("s2", user_id="u1")
    make_session("s3", user_id="u2")
    response = viewer_client.get("/sessions/?user=u1")
    assert response.context["matching"].value == 2
    assert "2 match these filters." in response.content.decode()


def test_its_activity_column_sorts_both_ways_and_pages_in_that_order(viewer_client, make_session, htmx):
    for i in range(55):
        make_session(f"s{i:02d}")
    newest = viewer_client.get("/sessions/?ns=alpha")
    assert newest.context["reverse_url"] == "?ns=alpha&order=oldest"
    assert 'aria-sort="descending"' in newest.content.decode()
    first = viewer_client.get("/sessions/?ns=alpha&order=oldest")
    assert [s.session_id for s in first.context["items"]][:3] == ["s00", "s01", "s02"]
    assert 'aria-sort="ascending"' in first.content.decode()
    assert first.context["reverse_url"] == "?ns=alpha"
    assert "order=oldest" in first.context["next_url"]
    more = viewer_client.get("/sessions/" + first.context["next_url"], headers=htmx)
    assert [s.session_id for s in more.context["items"]] == [f"s{i}" for i in range(50, 55)]
    # A cursor of one order is no position in the other.
    cursor = parse_qs(urlparse(first.context["next_url"]).query)["cursor"][0]
    assert viewer_client.get(f"/sessions/?ns=alpha&cursor={cursor}").status_code == 400
