"""The app as production serves it: the Procfile's web line (gunicorn, the ASGI app), DEBUG off,
static files collected by `collectstatic` and served by the app itself (WhiteNoise)."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from django.db import connection
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support import expected_conditions as ec

from memoryadmin.audit.services import Actor
from memoryadmin.tenancy.services import operator_create
from tests.browser.conftest import chrome, policy_violations, wait
from tests.deploy.conftest import ROOT, Supervised, app_env

__all__ = ["chrome"]

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct horse battery"
HASHED = re.compile(r"\.[0-9a-f]{12}\.(css|js)$")
POOL_SIZE = 3
PRODUCTION = {
    "DEBUG": "false",
    "ALLOWED_HOSTS": "localhost",
    # Plain HTTP on loopback, where TLS would sit in front in production.
    "SECURE_SSL_REDIRECT": "false",
    "DATABASE_POOL_SIZE": str(POOL_SIZE),
    # libpq names the server's connections, so a test can tell them from any other's.
    "PGAPPNAME": "production-server-test",
}


def collectstatic(static_root: Path) -> None:
    """What the Dockerfile and `make static` run."""
    env = app_env(**PRODUCTION, STATIC_ROOT=str(static_root))
    done = subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--no-input", "-v0"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def static_root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("static")
    collectstatic(root)
    return root


@pytest.fixture(scope="module")
def server(django_db_setup, django_db_blocker, static_root) -> Iterator[Supervised]:
    with django_db_blocker.unblock():
        env = app_env(**PRODUCTION, STATIC_ROOT=str(static_root))
    web = Supervised(["start", "web"], env)
    try:
        web.wait_until_serving()
        yield web
    finally:
        web.stop()


def origin(server: Supervised) -> str:
    # localhost, not 127.0.0.1: with DEBUG off the session cookie is Secure, which a browser
    # accepts over plain HTTP from localhost only.
    return server.url.replace("127.0.0.1", "localhost")


def sign_in(driver: WebDriver, base: str) -> None:
    operator_create(username="olivia", role="operator", password=PASSWORD, actor=Actor.system("tests"))
    driver.get(base + "/login/")
    driver.delete_all_cookies()
    driver.get(base + "/login/")
    driver.get_log("browser")
    driver.find_element(By.NAME, "username").send_keys("olivia")
    driver.find_element(By.NAME, "password").send_keys(PASSWORD)
    driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
    wait(driver).until(ec.presence_of_element_located((By.CSS_SELECTOR, ".topbar")))


@pytest.mark.browser
def test_every_stylesheet_and_script_of_the_dashboard_answers_and_htmx_is_loaded(chrome, server) -> None:
    base = origin(server)
    sign_in(chrome, base)
    chrome.get(base + "/")
    wait(chrome).until(ec.presence_of_element_located((By.CSS_SELECTOR, ".topbar")))

    stylesheets = chrome.execute_script(
        "return [...document.querySelectorAll('link[rel=stylesheet]')].map(l => l.href)"
    )
    scripts = chrome.execute_script("return [...document.querySelectorAll('script[src]')].map(s => s.src)")
    assert stylesheets and scripts
    for url in stylesheets + scripts:
        assert urlsplit(url).netloc == urlsplit(base).netloc, url
        # Collected names carry their content's hash, so they can be cached for good.
        assert HASHED.search(urlsplit(url).path), url
        response = httpx.get(url, headers={"Accept-Encoding": "gzip"})
        assert response.status_code == 200, url
        assert response.headers["Content-Encoding"] == "gzip", url
        assert "immutable" in response.headers["Cache-Control"], url
    assert chrome.execute_script("return typeof htmx === 'object' && htmx.version").startswith("2.")
    # The stylesheet applied: the top bar is laid out by it, not by the browser's defaults.
    assert chrome.execute_script("return getComputedStyle(document.querySelector('.topbar')).display") == "flex"
    assert policy_violations(chrome) == []


@pytest.mark.browser
def test_the_api_docs_load_nothing_from_outside_the_server_and_list_every_endpoint(chrome, server) -> None:
    base = origin(server)
    operations = sum(len(methods) for methods in httpx.get(base + "/api/v1/openapi.json").json()["paths"].values())
    chrome.get(base + "/login/")
    chrome.get_log("browser")
    chrome.get(base + "/api/v1/docs")
    wait(chrome, 20).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".opblock")) == operations)

    listed = {element.text for element in chrome.find_elements(By.CSS_SELECTOR, ".opblock-summary-path")}
    assert {"/api/v1/sessions/{session_id}/messages", "/api/v1/memories/search", "/api/v1/health"} <= listed
    loaded = chrome.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    linked = chrome.execute_script(
        "return [...document.querySelectorAll('script[src], link[href], img[src]')].map(e => e.src || e.href)"
    )
    assert loaded and linked
    for url in loaded + linked:
        assert urlsplit(url).netloc == urlsplit(base).netloc, url
    assert policy_violations(chrome) == []
    errors = [entry["message"] for entry in chrome.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == []


def test_however_many_requests_come_at_once_the_web_process_holds_its_pool_of_connections(server) -> None:
    """Under ASGI each request runs in a thread of its own; persistent connections would pile up."""

    def get(_: int) -> int:
        return httpx.get(origin(server) + "/api/v1/health").status_code

    with ThreadPoolExecutor(max_workers=12) as clients:
        assert set(clients.map(get, range(120))) == {200}
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = %s",
            [PRODUCTION["PGAPPNAME"]],
        )
        (held,) = cursor.fetchone()
    assert 1 <= held <= POOL_SIZE


def test_the_health_check_answers_over_plain_http_while_every_page_redirects_to_https(tmp_path) -> None:
    """The image's HEALTHCHECK (bin/healthcheck.py) against production defaults: HTTPS enforced,
    a host name of the operator's own."""
    env = app_env(DEBUG="false", ALLOWED_HOSTS="memory.example.com", STATIC_ROOT=str(tmp_path))
    web = Supervised(["start", "web"], env)
    try:
        web.wait_for_line(r"^web\s+\| .*Application startup complete")
        check = subprocess.run(
            [sys.executable, "bin/healthcheck.py"], cwd=ROOT, env=env, capture_output=True, text=True, check=False
        )
        assert check.returncode == 0, check.stdout
        page = httpx.get(web.url + "/login/", headers={"Host": "memory.example.com"})
        assert page.status_code == 301
        assert page.headers["Location"] == "https://memory.example.com/login/"
    finally:
        web.stop()

    down = subprocess.run(
        [sys.executable, "bin/healthcheck.py"], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )
    assert down.returncode == 1
    assert down.stdout.startswith("unhealthy: http://127.0.0.1:")
