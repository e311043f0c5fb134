from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from memoryadmin.extraction.models import ExtractionRun, RunStatus
from memoryadmin.memories.services import memory_forget
from tests.conftest import SYSTEM


def test_it_works(viewer_client, namespace, make_memory, make_candidate):
    make_memory("User likes jazz")
    make_candidate("User prefers tea")
    response = viewer_client.get("/")
    assert response.status_code == 200
    figures = {f.namespace.slug: f for f in response.context["figures"]}
    assert figures["alpha"].memories.value == 1
    assert figures["alpha"].candidates.value == 1
    assert response.context["review_queue"].value == 1


def test_it_charts_created_and_forgotten_per_day(viewer_client, make_memory):
    make_memory("User likes jazz")
    old = make_memory("User likes tea", created_at=timezone.now() - timedelta(days=40))
    memory_forget(memory=make_memory("User likes rain"), actor=SYSTEM)
    activity = viewer_client.get("/").context["activity"]
    assert len(activity.days) == 30
    # A memory forgotten since counts as forgotten, not as created: the chart shows what is held.
    assert activity.days[-1].created == 1
    assert activity.days[-1].forgotten == 1
    assert activity.totals["created"] == 1
    assert old.created_at.date() not in [d.day for d in activity.days]


def test_it_charts_extraction_runs_and_lists_failures(viewer_client, namespace, make_session):
    session, _ = make_session()
    ExtractionRun.objects.create(namespace=namespace, session=session, strategy="rules", status=RunStatus.SUCCEEDED)
    ExtractionRun.objects.create(
        namespace=namespace, session=session, strategy="rules", status=RunStatus.FAILED, error="model timed out"
    )
    response = viewer_client.get("/")
    assert response.context["activity"].totals == {
        "created": 0,
        "forgotten": 0,
        "runs_succeeded": 1,
        "runs_failed": 1,
    }
    assert [run.status for run in response.context["recent_failures"]] == ["failed"]
    assert b"model timed out" in response.content


def test_it_renders_bars_as_svg_without_inline_styles(viewer_client, make_memory):
    make_memory("User likes jazz")
    html = viewer_client.get("/").content.decode()
    assert '<rect class="bar created"' in html
    assert "style=" not in html


def test_it_keeps_its_query_count_flat(viewer_client, make_namespace, make_memory, django_assert_max_num_queries):
    for slug in ("n1", "n2", "n3", "n4"):
        ns = make_namespace(slug)
        make_memory("User likes jazz", ns=ns)
    # session + user + groups, then per namespace 4 bounded counts, then a fixed number of chart and run queries
    with django_assert_max_num_queries(8 + 5 * 4 + 8):
        assert viewer_client.get("/").status_code == 200


def test_it_loads_health_after_the_page(viewer_client, htmx):
    response = viewer_client.get("/health/", headers=htmx)
    assert response.status_code == 200
    assert response.context["health"]["database"] is True
    assert response.context["health"]["redis"] is True
    assert b"<html" not in response.content


def test_it_says_when_no_worker_answers(viewer_client):
    response = viewer_client.get("/health/")
    assert response.context["health"]["workers"] == []
    assert b"none answered" in response.content


def test_it_explains_what_to_do_without_namespaces(viewer_client):
    assert b"create_namespace" in viewer_client.get("/").content


def test_it_names_the_workers_that_answer_a_ping(transactional_db, viewer_client):
    # Transactional: the worker's start-up closes the thread's database connections.
    from celery.contrib.testing.worker import start_worker

    from memoryadmin.celery import app as celery_app

    with start_worker(celery_app, pool="solo", perform_ping_check=False, shutdown_timeout=10) as worker:
        # The ping waits half a second; a worker still starting on a busy machine gets a few chances.
        for _ in range(5):
            response = viewer_client.get("/health/")
            if response.context["health"]["workers"]:
                break
    assert response.context["health"]["workers"] == [worker.hostname]
    assert b"1 answering" in response.content


def test_it_filters_by_namespace(viewer_client, namespace, make_namespace, make_memory, make_candidate):
    other = make_namespace("bravo")
    make_memory("User likes jazz")
    make_candidate("User prefers tea", ns=other)
    response = viewer_client.get("/?ns=bravo")
    assert [f.namespace.slug for f in response.context["figures"]] == ["bravo"]
    assert response.context["review_queue"].value == 1
    assert response.context["activity"].totals["created"] == 1
    assert viewer_client.get("/?ns=alpha").context["review_queue"].value == 0


def test_an_unknown_namespace_is_404(viewer_client, namespace):
    assert viewer_client.get("/?ns=nope").status_code == 404


def test_it_shows_the_days_asked_for(viewer_client, make_memory):
    forty_days_ago = timezone.now() - timedelta(days=40)
    make_memory("User likes tea", created_at=forty_days_ago)
    make_memory("User likes jazz")
    day = forty_days_ago.date()
    response = viewer_client.get(f"/?start={day - timedelta(days=2)}&end={day + timedelta(days=2)}")
    activity = response.context["activity"]
    assert [d.day for d in activity.days] == [day + timedelta(days=i) for i in range(-2, 3)]
    assert activity.totals["created"] == 1
    assert f"{day - timedelta(days=2)} to {day + timedelta(days=2)}" in response.content.decode()
    # Only a start: the 30 days from it.
    days = viewer_client.get(f"/?start={day}").context["activity"].days
    assert (days[0].day, len(days)) == (day, 30)


def test_it_refuses_a_backwards_range_and_says_so(viewer_client, namespace):
    response = viewer_client.get("/?start=2026-03-10&end=2026-03-01")
    assert response.status_code == 400
    assert "the start of the date range is after its end" in response.content.decode()
    assert len(response.context["activity"].days) == 30


def test_the_review_tile_opens_the_namespace_that_has_candidates(
    viewer_client, namespace, make_namespace, make_candidate
):
    make_namespace("bravo")
    make_candidate("User prefers tea", ns=make_namespace("charlie"))
    # The queue would otherwise open the namespace last browsed, where nothing waits.
    viewer_client.get("/memories/?ns=bravo")
    response = viewer_client.get("/")
    assert response.context["review_namespace"].slug == "charlie"
    assert 'href="/review/?ns=charlie"' in response.content.decode()


def test_it_counts_failed_runs_per_namespace_and_links_to_them(viewer_client, namespace, make_namespace, make_session):
    other = make_namespace("bravo")
    session, _ = make_session(ns=other)
    for _ in range(3):
        ExtractionRun.objects.create(namespace=other, session=session, strategy="rules", status=RunStatus.SUCCEEDED)
    ExtractionRun.objects.create(
        namespace=other, session=session, strategy="rules", status=RunStatus.FAILED, error="model timed out"
    )
    response = viewer_client.get("/")
    figures = {f.namespace.slug: f for f in response.context["figures"]}
    assert (figures["alpha"].failed_runs, figures["bravo"].failed_runs) == (0, 1)
    assert response.context["failures_namespace"].slug == "bravo"
    today = timezone.now().date()
    link = f"/runs/?ns=bravo&amp;status=failed&amp;start={today - timedelta(days=29)}&amp;end={today}"
    assert link in response.content.decode()


@pytest.mark.parametrize(
    "query", ["start=9999-12-31", "end=9999-12-31", "start=9999-12-30&end=9999-12-31", "end=0001-01-01"]
)
def test_it_refuses_a_day_at_the_calendar_s_ends_and_says_so(viewer_client, namespace, query):
    for page in ("/", "/runs/"):
        response = viewer_client.get(f"{page}?ns={namespace.slug}&{query}")
        assert response.status_code == 400, (page, query)
        assert "a date lies between 0002-01-01 and 9998-12-31" in response.content.decode()
