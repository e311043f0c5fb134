"""Security headers and a nonce CSP on every page; cookies secure when DEBUG is off."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from django.conf import settings as django_settings
from django.test import Client
from django.urls import reverse

from memoryadmin.governance.privacy_links import RIGHTS, privacy_link_create
from tests.conftest import PASSWORD, SYSTEM, signed_in
from tests.security.conftest import World
from tests.security.test_console_matrix import VIEWS, url_of

HTML_POLICY = (
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "frame-ancestors 'none'",
    "object-src 'none'",
)


def assert_hardened(response, *, html: bool) -> None:
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] in ("same-origin", "no-referrer")
    assert response["Cross-Origin-Opener-Policy"] == "same-origin"
    if html:
        assert response["X-Frame-Options"] == "DENY"
        policy = response["Content-Security-Policy"]
        for part in HTML_POLICY:
            assert part in policy, (part, policy)
        assert "'unsafe-inline'" not in policy and "'unsafe-eval'" not in policy


def pages(world: World, restore_job) -> list[str]:
    urls = [url_of(view, world, restore_job) for view in VIEWS]
    return [*urls, reverse("console:login"), "/no-such-page/"]


def test_every_console_page_carries_the_headers_and_the_csp(world: World, operators, restore_job) -> None:
    admin = signed_in(operators["admin"])
    for url in pages(world, restore_job):
        response = admin.get(url)
        if response.status_code == 405:
            continue
        if response.streaming:
            b"".join(response.streaming_content)
        html = response.get("Content-Type", "").startswith("text/html")
        assert_hardened(response, html=html)
        if html and response.status_code == 200:
            # Scripts are files of our own origin; nothing inline could run under this policy.
            assert "<script>" not in response.content.decode()


def test_every_privacy_page_carries_the_headers_and_never_leaks_its_link(world: World) -> None:
    url, _ = privacy_link_create(namespace=world.a, user_id="alice", ttl_seconds=600, actor=SYSTEM, grantable=RIGHTS)
    token = url.rstrip("/").rsplit("/", 1)[-1]
    for page in (url, reverse("privacy:erase", args=[token]), reverse("privacy:home", args=["bad-token"])):
        response = Client().get(page)
        assert_hardened(response, html=True)
    # The token is in the URL: it must never go to another site as a referrer, nor sit in a cache.
    assert Client().get(url)["Referrer-Policy"] == "same-origin"
    assert Client().get(url)["Cache-Control"] == "no-store"


def test_api_answers_carry_the_headers(world: World, make_key) -> None:
    raw = make_key(world.a)[1]
    client = Client(headers={"Authorization": f"Bearer {raw}"})
    for path in ("/api/v1/memories", "/api/v1/health", "/api/v1/no-such-route", "/api/v1/memories/not-a-uuid"):
        assert_hardened(client.get(path), html=False)


def test_the_session_and_csrf_cookies_are_http_only_or_same_site(db, operators, settings) -> None:
    client = Client()
    client.get("/login/")
    response = client.post("/login/", {"username": "adam", "password": PASSWORD})
    assert response.status_code == 302
    session_cookie = response.cookies[settings.SESSION_COOKIE_NAME]
    assert session_cookie["httponly"]
    assert session_cookie["samesite"] == "Lax"


def production_settings() -> dict:
    """The settings a DEBUG=false process computes from its environment."""
    script = (
        "import json, django\n"
        "from django.conf import settings\n"
        "django.setup()\n"
        "print(json.dumps({k: getattr(settings, k) for k in ("
        "'DEBUG', 'SESSION_COOKIE_SECURE', 'CSRF_COOKIE_SECURE', 'SESSION_COOKIE_HTTPONLY', 'SECURE_SSL_REDIRECT', "
        "'SECURE_HSTS_SECONDS', 'SECURE_CONTENT_TYPE_NOSNIFF', 'X_FRAME_OPTIONS')}))\n"
    )
    env = {
        **os.environ,
        "DEBUG": "false",
        "SECRET_KEY": "x" * 50,
        "DJANGO_SETTINGS_MODULE": "memoryadmin.settings",
    }
    env.pop("SECURE_SSL_REDIRECT", None)
    env.pop("SECURE_HSTS_SECONDS", None)
    out = subprocess.run(
        [sys.executable, "-c", script],
        env=env,
        cwd=django_settings.BASE_DIR,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_cookies_are_secure_and_https_is_enforced_when_debug_is_off() -> None:
    prod = production_settings()
    assert prod["DEBUG"] is False
    assert prod["SESSION_COOKIE_SECURE"] and prod["CSRF_COOKIE_SECURE"] and prod["SESSION_COOKIE_HTTPONLY"]
    assert prod["SECURE_SSL_REDIRECT"]
    assert prod["SECURE_HSTS_SECONDS"] >= 31536000
    assert prod["SECURE_CONTENT_TYPE_NOSNIFF"] and prod["X_FRAME_OPTIONS"] == "DENY"


def test_with_the_production_cookie_settings_a_sign_in_sets_secure_cookies(db, operators, settings) -> None:
    prod = production_settings()
    settings.SESSION_COOKIE_SECURE = prod["SESSION_COOKIE_SECURE"]
    settings.CSRF_COOKIE_SECURE = prod["CSRF_COOKIE_SECURE"]
    client = Client()
    login = client.get("/login/", secure=True)
    assert login.cookies[settings.CSRF_COOKIE_NAME]["secure"]
    response = client.post("/login/", {"username": "adam", "password": PASSWORD}, secure=True)
    assert response.cookies[settings.SESSION_COOKIE_NAME]["secure"]
