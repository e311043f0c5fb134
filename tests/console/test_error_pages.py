"""Refusals and failures answered in the console's frame, with a way back; the favicon."""

from __future__ import annotations

import uuid

from django.test import Client

from memoryadmin.console.error_views import server_error


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
