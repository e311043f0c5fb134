"""Finding erasures by the person's id (by its keyed hash), on the erasures page and the subject page."""

from __future__ import annotations

from django.urls import reverse

from memoryadmin.governance.erasure import erasure_execute, erasure_request
from memoryadmin.governance.models import ErasureRequest
from tests.conftest import SYSTEM


def erase(namespace, user_id: str) -> ErasureRequest:
    erasure = erasure_request(namespace=namespace, user_id=user_id, actor=SYSTEM, enqueue=False)
    return erasure_execute(erasure_id=erasure.pk)


def test_it_finds_a_completed_erasure_by_the_persons_id(viewer_client, namespace, other_namespace, make_memory):
    make_memory("User likes jazz", user_id="u1")
    mine = erase(namespace, "u1")
    assert mine.user_id == "", "the plain id is gone once erased"
    theirs = erase(namespace, "u2")
    elsewhere = erase(other_namespace, "u1")

    r = viewer_client.get(reverse("console:erasures"), {"ns": "alpha", "user": "u1"})
    assert r.status_code == 200
    assert [e.pk for e in r.context["page"].items] == [mine.pk]
    assert str(theirs.pk) not in r.content.decode() and str(elsewhere.pk) not in r.content.decode()
    all_of_them = viewer_client.get(reverse("console:erasures"), {"ns": "alpha"})
    assert {e.pk for e in all_of_them.context["page"].items} == {mine.pk, theirs.pk}


def test_it_says_when_no_erasure_matches_and_refuses_a_bad_id(viewer_client, namespace):
    r = viewer_client.get(reverse("console:erasures"), {"ns": "alpha", "user": "nobody"})
    assert r.status_code == 200 and b"No erasure of <code>nobody</code>" in r.content
    assert viewer_client.get(reverse("console:erasures"), {"ns": "alpha", "user": "no such id!"}).status_code == 400


def test_the_subject_page_lists_the_persons_past_erasures(viewer_client, namespace):
    done = erase(namespace, "u1")
    erase(namespace, "u2")
    r = viewer_client.get(reverse("console:subject", args=[namespace.pk, "u1"]))
    assert [e.pk for e in r.context["past_erasures"]] == [done.pk]
    html = r.content.decode()
    assert reverse("console:erasure_receipt", args=[done.pk]) in html
    assert "Erasing…" not in html and 'hx-trigger="every 2s"' not in html


def test_a_running_erasure_polls_until_it_is_done(viewer_client, namespace, htmx):
    pending = erasure_request(namespace=namespace, user_id="u1", actor=SYSTEM, enqueue=False)
    page = viewer_client.get(reverse("console:subject", args=[namespace.pk, "u1"])).content.decode()
    url = reverse("console:subject_erasures", args=[namespace.pk, "u1"])
    assert "Erasing…" in page and f'hx-get="{url}" hx-trigger="every 2s"' in page

    r = viewer_client.get(url, headers=htmx)
    assert r.status_code == 200 and b"Erasing" in r.content and b"<html" not in r.content
    erasure_execute(erasure_id=pending.pk)
    # Done: the poll stops, and the whole page is read again (the person's data is gone from it too).
    r = viewer_client.get(url, headers=htmx)
    assert r.status_code == 200 and r["HX-Refresh"] == "true"
    page = viewer_client.get(reverse("console:subject", args=[namespace.pk, "u1"])).content.decode()
    assert f"Erasure {pending.pk} of u1 is completed." in page
    assert "completed" in page and "every 2s" not in page
    assert viewer_client.get(url).status_code == 302


def test_erasing_from_the_subject_page_swaps_in_the_polling_list(admin_client, namespace, htmx):
    r = admin_client.post(
        reverse("console:subject_erase", args=[namespace.pk, "u1"]), {"confirm": "u1", "reason": "asked"}, headers=htmx
    )
    html = r.content.decode()
    assert r.status_code == 200
    assert 'id="subject-erasures" aria-labelledby="erasures-head" aria-live="polite" hx-swap-oob="true"' in html
    assert "Erasing…" in html
