"""Refusals and failures answered in the console's frame, with a way back; the favicon."""

from __future__ import annotations

import re
import uuid

import pytest
from django.test import Client

from memoryadmin.console.error_views import server_error
from memoryadmin.memories.services import memory_forget
from memoryadmin.tenancy.services import operator_create, operator_namespaces_set
from tests.conftest import SYSTEM


def test_a_missing_memory_is_a_console_page(viewer_client, db) -> None:
    response = viewer_client.get(f"/memories/{uuid.uuid4()}/")
    assert response.status_code == 404
    html = response.content.decode()
    assert "<h1>Not found</h1>" in html and 'class="topbar"' in html and "Back to the dashboard" in html


def test_a_missing_page_offers_to_sign_in_when_signed_out(db) -> None:
    response = Client().get("/no-such-page/")
    assert response.status_code == 404
    html = response.content.decode()
    assert "Sign in to the console" in html and 'class="topbar"' not in html


def test_a_missing_page_asked_by_htmx_is_words(viewer_client, htmx, db) -> None:
    response = viewer_client.get(f"/memories/{uuid.uuid4()}/", headers=htmx)
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/plain")


def test_a_missing_privacy_page_stays_in_the_privacy_frame(db) -> None:
    response = Client().get("/privacy/no-such-page/x/")
    assert response.status_code == 404
    html = response.content.decode()
    assert "Nothing here" in html and "console" not in html.lower()


def test_the_api_keeps_its_own_error_body(db) -> None:
    response = Client().get("/api/v1/no-such-endpoint")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/json")


def test_a_form_without_its_token_says_what_to_do(olivia, make_memory) -> None:
    memory = make_memory()
    client = Client(enforce_csrf_checks=True)
    client.force_login(olivia)
    response = client.post(f"/memories/{memory.pk}/forget/", {"reason": "asked"})
    assert response.status_code == 403
    html = response.content.decode()
    assert "Form expired" in html and "reload the page" in html and "Back to the dashboard" in html


def test_a_server_error_page_stands_on_its_own(rf) -> None:
    response = server_error(rf.get("/"))
    assert response.status_code == 500
    assert "Something went wrong" in response.content.decode()


def test_the_favicon_is_the_static_icon(db) -> None:
    response = Client().get("/favicon.ico")
    assert response.status_code == 302 and response["Location"].endswith("favicon.svg")


def test_an_expired_form_on_the_privacy_page_says_so_in_its_frame(db) -> None:
    response = Client(enforce_csrf_checks=True).post("/privacy/some-token/erase/")
    assert response.status_code == 403
    html = response.content.decode()
    assert "This form has expired" in html and "console" not in html.lower()


def _page_of(response) -> str:
    """The page without what differs from one request to the next (the CSRF token, the CSP nonce)."""
    html = response.content.decode()
    html = re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", html)
    html = re.sub(r'"x-csrftoken": "[^"]*"', "", html)
    return re.sub(r'nonce="[^"]*"', "", html)


@pytest.mark.parametrize("debug", [True, False], ids=["debug", "production"])
def test_every_missing_or_walled_memory_is_the_same_console_page(
    settings, debug, namespace, other_namespace, make_memory, htmx
) -> None:
    settings.DEBUG = debug
    lena = operator_create(username="lena", role="operator", password="pw-lena-123", actor=SYSTEM)
    operator_namespaces_set(user=lena, namespaces=[other_namespace], actor=SYSTEM)
    client = Client()
    client.force_login(lena)
    outside = make_memory("User lives in Berlin")
    forgotten = make_memory("User lives in Paris", ns=other_namespace)
    memory_forget(memory=forgotten, actor=SYSTEM, reason="asked")
    ids = {"outside": outside.pk, "forgotten": forgotten.pk, "never": uuid.uuid4()}

    for path in ("/memories/{}/", "/memories/{}/edit/", "/memories/{}/row/"):
        pages = {name: client.get(path.format(pk)) for name, pk in ids.items()}
        assert {name: r.status_code for name, r in pages.items()} == dict.fromkeys(ids, 404)
        html = _page_of(pages["never"])
        assert "<h1>Not found</h1>" in html and 'class="topbar"' in html
        # A memory forgotten in the operator's own namespace: its page says so, with what the audit log keeps
        # (which the operator reads anyway); one walled off is a memory that never was.
        shown = ("outside", "never") if path == "/memories/{}/" else tuple(ids)
        assert all(_page_of(pages[name]) == html for name in shown), path
        words = {client.get(path.format(ids[name]), headers=htmx).content for name in shown}
        assert len(words) == 1, path
    gone = _page_of(client.get(f"/memories/{forgotten.pk}/"))
    assert "Memory no longer held" in gone and "Paris" not in gone
    posts = {name: client.post(f"/memories/{pk}/pin/", {"reason": "x"}) for name, pk in ids.items()}
    assert {name: r.status_code for name, r in posts.items()} == dict.fromkeys(ids, 404)
    assert len({_page_of(r) for r in posts.values()}) == 1
    # A namespace named in a list's address: one outside the limits reads as one that does not exist.
    lists = [client.get("/memories/", {"ns": slug}) for slug in ("alpha", "no-such-namespace")]
    assert [r.status_code for r in lists] == [404, 404]
    assert "<h1>Not found</h1>" in _page_of(lists[0])
    assert _page_of(lists[0]) == _page_of(lists[1])


@pytest.mark.parametrize("debug", [True, False], ids=["debug", "production"])
def test_an_address_that_names_nothing_is_the_same_console_page(settings, debug, viewer_client) -> None:
    settings.DEBUG = debug
    missing = viewer_client.get(f"/memories/{uuid.uuid4()}/")
    for path in ("/memories/not-an-id/", "/no-such-page/", "/subjects/not-a-number/u1/"):
        response = viewer_client.get(path)
        assert response.status_code == 404, path
        assert "<h1>Not found</h1>" in response.content.decode(), path
        assert "urlpatterns" not in response.content.decode(), path
    # The same page as a missing memory's (but for the navigation's current section).
    assert _page_of(viewer_client.get("/no-such-page/")) == _page_of(missing).replace(' aria-current="page"', "")


def test_an_address_without_its_slash_is_still_sent_to_it(viewer_client) -> None:
    response = viewer_client.get("/memories")
    assert response.status_code == 301 and response["Location"] == "/memories/"
