"""The list of a namespace's extraction runs, where a failed run is found among many good ones."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from memoryadmin.extraction.models import ExtractionRun, RunStatus


@pytest.fixture
def run(namespace, make_session):
    session, _ = make_session()

    def make(status: str = RunStatus.SUCCEEDED, *, ns=None, session=session, **kwargs) -> ExtractionRun:
        return ExtractionRun.objects.create(
            namespace=ns or namespace, session=session, strategy="rules", status=status, **kwargs
        )

    return make


def test_it_works(viewer_client, run):
    run(RunStatus.FAILED, error="model timed out")
    run()
    response = viewer_client.get("/runs/?ns=alpha")
    assert response.status_code == 200
    assert [r.status for r in response.context["items"]] == ["succeeded", "failed"]
    assert b"model timed out" in response.content
    assert response.context["total"].value == 2


def test_it_finds_the_failed_run_among_hundreds_of_good_ones(viewer_client, run):
    ExtractionRun.objects.bulk_create(
        [
            ExtractionRun(namespace=r.namespace, session=r.session, strategy="rules", status=RunStatus.SUCCEEDED)
            for r in [run()]
            for _ in range(300)
        ]
    )
    failed = run(RunStatus.FAILED, error="model timed out")
    ExtractionRun.objects.filter(pk=failed.pk).update(created_at=timezone.now() - timedelta(days=3))
    response = viewer_client.get("/runs/?ns=alpha&status=failed")
    assert [r.pk for r in response.context["items"]] == [failed.pk]


def test_it_pages_by_keyset_with_the_filters_kept(viewer_client, run, htmx):
    for _ in range(55):
        run(RunStatus.FAILED, error="boom")
    run()
    first = viewer_client.get("/runs/?ns=alpha&status=failed")
    assert len(first.context["items"]) == 50
    next_url = first.context["next_url"]
    assert "status=failed" in next_url
    rest = viewer_client.get("/runs/" + next_url, headers=htmx)
    assert b"<html" not in rest.content
    assert len(rest.context["items"]) == 5
    seen = {r.pk for r in first.context["items"]} | {r.pk for r in rest.context["items"]}
    assert len(seen) == 55


def test_it_filters_by_date(viewer_client, run):
    old = run(RunStatus.FAILED)
    ExtractionRun.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=40))
    run(RunStatus.FAILED)
    day = (timezone.now() - timedelta(days=40)).date()
    response = viewer_client.get(f"/runs/?ns=alpha&start={day}&end={day}")
    assert [r.pk for r in response.context["items"]] == [old.pk]


def test_it_checks_the_namespace(viewer_client, run, make_namespace, make_session):
    other = make_namespace("bravo")
    session, _ = make_session(ns=other)
    run(RunStatus.FAILED, ns=other, session=session, error="bravo's failure")
    response = viewer_client.get("/runs/?ns=alpha")
    assert response.context["items"] == []
    assert b"bravo's failure" not in response.content
    assert b"No run matches" in response.content
    assert viewer_client.get("/runs/?ns=nope").status_code == 404


def test_it_refuses_a_bad_status(viewer_client, run):
    assert viewer_client.get("/runs/?ns=alpha&status=exploded").status_code == 400


def test_it_keeps_its_query_count_flat(viewer_client, run, make_session, django_assert_max_num_queries):
    for i in range(20):
        session, _ = make_session(f"s-{i}")
        run(session=session)
    # session, user, groups, namespaces, the page, the estimate, the session's save: not one per row
    with django_assert_max_num_queries(9):
        assert viewer_client.get("/runs/?ns=alpha").status_code == 200


def test_its_when_column_sorts_both_ways(viewer_client, run):
    older, newer = run(RunStatus.FAILED), run()
    ExtractionRun.objects.filter(pk=older.pk).update(created_at=timezone.now() - timedelta(hours=1))
    assert [r.pk for r in viewer_client.get("/runs/?ns=alpha").context["items"]] == [newer.pk, older.pk]
    assert [r.pk for r in viewer_client.get("/runs/?ns=alpha&order=oldest").context["items"]] == [older.pk, newer.pk]
