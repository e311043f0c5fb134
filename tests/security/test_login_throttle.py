"""Console sign-in throttling: failures per address and username, per address, lockout with Retry-After."""

from __future__ import annotations

import re
import threading
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from django.contrib.auth.signals import user_login_failed
from django.test import Client

from tests.conftest import PASSWORD, operator_user


@pytest.fixture
def adam(db):
    return operator_user("adam", "admin")


def attempt(client: Client, username: str, password: str, ip: str = "203.0.113.7"):
    return client.post("/login/", {"username": username, "password": password}, REMOTE_ADDR=ip)


def test_it_locks_out_an_address_and_username_after_too_many_failures(settings, adam) -> None:
    settings.LOGIN_FAILURE_LIMIT = 3
    client = Client()
    assert [attempt(client, "adam", "wrong-password").status_code for _ in range(3)] == [200, 200, 200]
    locked = attempt(client, "adam", PASSWORD)
    assert locked.status_code == 429
    assert 1 <= int(locked["Retry-After"]) <= settings.LOGIN_LOCKOUT_SECONDS
    assert b"Too many failed sign-in attempts" in locked.content
    assert "_auth_user_id" not in client.session


def test_the_lockout_is_per_username(settings, adam) -> None:
    settings.LOGIN_FAILURE_LIMIT = 2
    operator_user("bea", "viewer")
    for _ in range(2):
        attempt(Client(), "adam", "wrong-password")
    assert attempt(Client(), "adam", PASSWORD).status_code == 429
    assert attempt(Client(), "bea", PASSWORD).status_code == 302


def test_the_lockout_is_per_address(settings, adam) -> None:
    settings.LOGIN_FAILURE_LIMIT = 2
    for _ in range(2):
        attempt(Client(), "adam", "wrong-password", ip="203.0.113.7")
    assert attempt(Client(), "adam", PASSWORD, ip="198.51.100.9").status_code == 302


def test_it_locks_out_an_address_spraying_many_usernames(settings, adam) -> None:
    settings.LOGIN_FAILURE_LIMIT = 100
    settings.LOGIN_FAILURE_LIMIT_PER_IP = 4
    for n in range(4):
        attempt(Client(), f"guess{n}", "wrong-password")
    assert attempt(Client(), "adam", PASSWORD).status_code == 429


def test_a_successful_sign_in_clears_the_failures(settings, adam) -> None:
    settings.LOGIN_FAILURE_LIMIT = 3
    for _ in range(2):
        attempt(Client(), "adam", "wrong-password")
    assert attempt(Client(), "adam", PASSWORD).status_code == 302
    for _ in range(2):
        attempt(Client(), "adam", "wrong-password")
    assert attempt(Client(), "adam", PASSWORD).status_code == 302


def test_the_window_ends(settings, adam, redis_client) -> None:
    settings.LOGIN_FAILURE_LIMIT = 1
    attempt(Client(), "adam", "wrong-password")
    assert attempt(Client(), "adam", PASSWORD).status_code == 429
    for key in redis_client.keys("login-fail*"):
        redis_client.delete(key)
    assert attempt(Client(), "adam", PASSWORD).status_code == 302


def test_it_keeps_no_username_or_address_in_redis(adam, redis_client) -> None:
    attempt(Client(), "adam", "wrong-password")
    keys = redis_client.keys("login-fail*")
    assert len(keys) == 2
    assert not any("adam" in key or "203.0.113.7" in key for key in keys)


def test_it_fails_open_when_redis_is_down(settings, adam) -> None:
    settings.LOGIN_FAILURE_LIMIT = 1
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    assert attempt(Client(), "adam", "wrong-password").status_code == 200
    assert attempt(Client(), "adam", PASSWORD).status_code == 302


def test_the_lockout_page_carries_the_security_headers(settings, adam) -> None:
    settings.LOGIN_FAILURE_LIMIT = 1
    attempt(Client(), "adam", "wrong-password")
    locked = attempt(Client(), "adam", PASSWORD)
    assert locked.status_code == 429
    assert "Content-Security-Policy" in locked
    assert locked["X-Frame-Options"] == "DENY"


def test_parallel_attempts_never_try_more_passwords_than_the_limit(settings, live_server, transactional_db) -> None:
    settings.LOGIN_FAILURE_LIMIT = 5
    operator_user("adam", "admin")
    with httpx.Client(base_url=live_server.url) as first:
        form = first.get("/login/")
        csrf = first.cookies["csrftoken"]
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form.text).group(1)
    attempts = 24
    start = threading.Barrier(attempts)

    def guess(n: int) -> int | None:
        with httpx.Client(base_url=live_server.url, cookies={"csrftoken": csrf}, timeout=60) as client:
            start.wait()
            data = {"username": "adam", "password": f"guess-{n}", "csrfmiddlewaretoken": token}
            try:
                return client.post("/login/", data=data).status_code
            except httpx.TransportError:
                # The test server's small accept queue may drop a connection of the burst.
                return None

    # What was tried is what the server checked: Django signals every refused password.
    checked: list[str] = []

    def count(sender, credentials, **kwargs) -> None:
        checked.append(credentials.get("username", ""))

    user_login_failed.connect(count, dispatch_uid="test-parallel-attempts")
    try:
        with ThreadPoolExecutor(attempts) as pool:
            statuses = [status for status in pool.map(guess, range(attempts)) if status is not None]
    finally:
        user_login_failed.disconnect(dispatch_uid="test-parallel-attempts")
    assert len(statuses) >= 2 * settings.LOGIN_FAILURE_LIMIT, statuses
    assert len(checked) == settings.LOGIN_FAILURE_LIMIT, (checked, statuses)
    # A refused password re-shows the form (200); every other attempt was turned away unchecked.
    assert set(statuses) <= {200, 429} and statuses.count(200) <= settings.LOGIN_FAILURE_LIMIT, statuses
