from __future__ import annotations

import pytest
from django.test import Client

from tests.conftest import PASSWORD

PAGES = ["/", "/memories/", "/review/", "/sessions/", "/subjects/", "/tombstones/", "/namespaces/", "/audit/"]


@pytest.mark.parametrize("path", PAGES)
def test_it_sends_anonymous_visitors_to_the_login_page(db, path):
    response = Client().get(path)
    assert response.status_code == 302
    assert response["Location"].startswith("/login/?next=")


def test_it_answers_401_to_an_anonymous_htmx_request(db, htmx):
    response = Client().get("/memories/", headers=htmx)
    assert response.status_code == 401


@pytest.mark.parametrize("path", PAGES)
def test_it_refuses_a_user_without_a_role(norole_client, path):
    response = norole_client.get(path)
    assert response.status_code == 403
    assert b"needs the viewer role" in response.content


def test_it_logs_in_with_the_right_password(alice):
    client = Client()
    response = client.post("/login/", {"username": "alice", "password": PASSWORD})
    assert response.status_code == 302
    assert response["Location"] == "/"
    assert client.get("/").status_code == 200


def test_it_refuses_a_wrong_password(alice):
    response = Client().post("/login/", {"username": "alice", "password": "nope-nope"})
    assert response.status_code == 200
    assert b"didn't match" in response.content


def test_it_logs_out(admin_client):
    response = admin_client.post("/logout/")
    assert response.status_code == 302
    assert admin_client.get("/").status_code == 302


def test_it_serves_a_strict_csp_and_no_inline_script_or_style(viewer_client, namespace):
    response = viewer_client.get("/")
    policy = response["Content-Security-Policy"]
    assert "script-src 'self'" in policy
    assert "style-src 'self';" in policy
    assert "unsafe" not in policy
    html = response.content.decode()
    assert "<script>" not in html
    assert " style=" not in html
    assert "includeIndicatorStyles" in html


def test_it_shows_the_role_of_the_signed_in_operator(operator_client):
    response = operator_client.get("/")
    assert b'<span class="who-role">operator</span>' in response.content
