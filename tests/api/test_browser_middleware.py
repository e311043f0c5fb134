"""The browser pages' middleware runs for the console and the privacy page, never for the API."""

from __future__ import annotations

import uuid

from django.contrib.auth.models import User
from django.test import Client


def test_api_requests_skip_the_browser_middleware(namespace, make_key) -> None:
    operator = User.objects.create_user(username="olga", password="x" * 12, is_staff=True)
    client = Client(headers={"Authorization": f"Bearer {make_key(namespace)[1]}"})
    client.force_login(operator)
    response = client.get("/api/v1/memories")
    assert response.status_code == 200
    # No CSP nonce, no frame header, no session or CSRF cookie, no `request.user` from the cookie.
    assert "Content-Security-Policy" not in response
    assert "X-Frame-Options" not in response
    assert not response.cookies
    assert not hasattr(response.wsgi_request, "user")
    # The security middleware in front of everything still runs.
    assert response["X-Content-Type-Options"] == "nosniff"


def test_browser_requests_get_the_whole_stack(db) -> None:
    response = Client().get("/login/")
    assert response.status_code == 200
    assert "frame-ancestors 'none'" in response["Content-Security-Policy"]
    assert response["X-Frame-Options"] == "DENY"
    assert "csrftoken" in response.cookies
    assert response.wsgi_request.user.is_anonymous


def test_a_forged_console_post_is_refused_before_the_view_runs(db) -> None:
    # Console views rely on the CSRF middleware's view hook: without it this would reach the view (404).
    operator = User.objects.create_superuser(username="olga", password="x" * 12)
    client = Client(enforce_csrf_checks=True)
    client.force_login(operator)
    assert client.post(f"/memories/{uuid.uuid4()}/pin/").status_code == 403
    assert Client().post(f"/memories/{uuid.uuid4()}/pin/").status_code in (302, 403)
