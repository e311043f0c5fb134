"""Headless Chromium against a live server (Debian's chromium and chromium-driver)."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterator

import pytest
from selenium import webdriver
from selenium.common.exceptions import TimeoutException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import WebDriverWait

from tests.conftest import PASSWORD

FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1400,1000",
)


@pytest.fixture(scope="session")
def chrome() -> Iterator[WebDriver]:
    with tempfile.TemporaryDirectory(prefix="console-chrome-") as profile:
        options = webdriver.ChromeOptions()
        options.binary_location = os.environ.get("CHROMIUM_BINARY", "/usr/bin/chromium")
        for flag in FLAGS:
            options.add_argument(flag)
        options.add_argument(f"--user-data-dir={profile}")
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        service = Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
        driver = webdriver.Chrome(service=service, options=options)
        try:
            yield driver
        finally:
            driver.quit()


@pytest.fixture
def browser(chrome: WebDriver, live_server) -> Iterator[WebDriver]:
    """The shared browser, signed out, with its console log emptied.

    A test's page is left only once its own requests are answered, for a blank one, before
    its cookies go: a request still in flight (the dashboard's health check takes a second)
    would otherwise be answered after the next test signed in, and its answer for a session
    that no longer exists deletes the session cookie that sign-in just set.
    """
    chrome.get("about:blank")
    chrome.delete_all_cookies()
    chrome.get(live_server.url + "/login/")
    chrome.get_log("browser")
    yield chrome
    # A page that polls for ever is left all the same: leaving it aborts the poll.
    with contextlib.suppress(TimeoutException):
        WebDriverWait(chrome, 5, ignored_exceptions=(WebDriverException,)).until(
            lambda d: d.execute_script("return document.querySelectorAll('.htmx-request').length === 0")
        )
    chrome.get("about:blank")
    chrome.delete_all_cookies()


@pytest.fixture
def sign_in(browser: WebDriver, live_server) -> Callable[[str], WebDriver]:
    def sign_in(username: str) -> WebDriver:
        browser.get(live_server.url + "/login/")
        browser.find_element(By.NAME, "username").send_keys(username)
        browser.find_element(By.NAME, "password").send_keys(PASSWORD)
        browser.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
        wait(browser).until(ec.presence_of_element_located((By.CSS_SELECTOR, ".topbar")))
        # The page signed in to (the dashboard) finishes its own requests, its health check
        # included, before the test goes elsewhere: none of them is left in flight.
        wait(browser).until(lambda d: d.execute_script(SETTLED))
        return browser

    return sign_in


SETTLED = """
const health = document.querySelector('#health');
return (!health || health.querySelector('.health') !== null)
  && document.querySelectorAll('.htmx-request').length === 0;
"""


def wait(driver: WebDriver, seconds: float = 10) -> WebDriverWait:
    # A condition read while the page is being replaced (a reload after a save) can meet a
    # driver error instead of an answer; the wait reads again, and still fails at its timeout.
    return WebDriverWait(driver, seconds, ignored_exceptions=(WebDriverException,))


def policy_violations(driver: WebDriver) -> list[str]:
    return [entry["message"] for entry in driver.get_log("browser") if "Content Security Policy" in entry["message"]]
