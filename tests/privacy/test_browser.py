"""The privacy page in a real browser (headless Chromium): what a person sees and does."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import timedelta
from urllib.parse import urlparse

import pytest
from django.utils import timezone

from memoryadmin.governance.models import ErasureRequest, PrivacyLink
from memoryadmin.governance.privacy_links import RIGHTS, privacy_link_create
from memoryadmin.memories.models import Memory, MemorySource
from memoryadmin.tenancy.services import namespace_update
from tests.conftest import SYSTEM
from tests.governance.conftest import populate

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = (390, 844)


@pytest.fixture
def chrome() -> Iterator[object]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        options.add_argument(arg)
    options.add_argument(f"--window-size={PHONE[0]},{PHONE[1]}")
    options.binary_location = os.environ.get("CHROMIUM_BINARY", "/usr/bin/chromium")
    driver = webdriver.Chrome(service=Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")), options=options)
    driver.implicitly_wait(2)
    yield driver
    driver.quit()


def fits_a_phone(driver) -> bool:
    return driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")


def test_a_person_sees_forgets_and_erases_their_memory(chrome, live_server, make_namespace, eager_celery) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    namespace = make_namespace("shop")
    # The page lists what `populate` wrote; the turns it appends are not kept as said besides.
    namespace = namespace_update(namespace=namespace, actor=SYSTEM, extraction_config={"kinds": ["facts", "episodes"]})
    person = populate(namespace, "alice")
    populate(namespace, "bob")
    url, _ = privacy_link_create(namespace=namespace, user_id="alice", ttl_seconds=600, actor=SYSTEM, grantable=RIGHTS)
    chrome.get(live_server.url + urlparse(url).path)

    assert chrome.find_element(By.TAG_NAME, "h1").text == "What we remember about you"
    body = chrome.find_element(By.TAG_NAME, "body").text
    assert "alice really likes topic 0" in body and "bob" not in body
    assert fits_a_phone(chrome)
    chrome.save_screenshot(str(live_server_screenshot("privacy-home.png")))

    chrome.find_element(By.CSS_SELECTOR, "details summary").click()
    assert "alice says thing" in chrome.find_element(By.CSS_SELECTOR, ".sources").text

    forget_buttons = chrome.find_elements(By.CSS_SELECTOR, "form button")
    assert len(forget_buttons) == 2
    forget_buttons[0].click()
    WebDriverWait(chrome, 10).until(lambda d: d.find_element(By.TAG_NAME, "h1").text == "Forget this memory?")
    assert fits_a_phone(chrome)
    chrome.find_element(By.CSS_SELECTOR, "button.danger").click()
    WebDriverWait(chrome, 10).until(lambda d: "forgotten=1" in d.current_url)
    assert "that memory is forgotten" in chrome.find_element(By.CSS_SELECTOR, ".notice").text
    # The memories `populate` wrote (extraction may also keep the messages' turns as said).
    assert written(namespace, "alice").count() == 1
    assert not Memory.objects.filter(pk=person.memories[-1].pk).exists()

    chrome.find_element(By.LINK_TEXT, "Erase everything…").click()
    chrome.find_element(By.ID, "confirm").send_keys("erase")
    chrome.find_element(By.CSS_SELECTOR, "button.danger").click()
    WebDriverWait(chrome, 10).until(lambda d: "/erasures/" in d.current_url)
    assert chrome.find_element(By.TAG_NAME, "h1").text == "Erased"
    receipt = ErasureRequest.objects.get()
    assert receipt.receipt["receipt_sha256"] in chrome.find_element(By.TAG_NAME, "body").text
    assert fits_a_phone(chrome)
    chrome.save_screenshot(str(live_server_screenshot("privacy-receipt.png")))
    assert not Memory.objects.filter(namespace=namespace, user_id="alice").exists()
    assert written(namespace, "bob").count() == 2


def test_a_tampered_link_shows_only_that_it_is_not_valid(chrome, live_server, make_namespace) -> None:
    from selenium.webdriver.common.by import By

    namespace = make_namespace("shop")
    populate(namespace, "alice")
    url, _ = privacy_link_create(namespace=namespace, user_id="alice", ttl_seconds=600, actor=SYSTEM, grantable=RIGHTS)
    path = urlparse(url).path
    chrome.get(live_server.url + path.replace("/privacy/", "/privacy/x", 1))
    assert chrome.find_element(By.TAG_NAME, "h1").text == "This link is not valid"
    assert "topic" not in chrome.find_element(By.TAG_NAME, "body").text


def test_an_expired_link_says_so(chrome, live_server, make_namespace) -> None:
    from selenium.webdriver.common.by import By

    namespace = make_namespace("shop")
    populate(namespace, "alice")
    url, _ = privacy_link_create(namespace=namespace, user_id="alice", ttl_seconds=600, actor=SYSTEM, grantable=RIGHTS)
    PrivacyLink.objects.update(expires_at=timezone.now() - timedelta(seconds=60))
    chrome.get(f"{live_server.url}{urlparse(url).path}")
    assert chrome.find_element(By.TAG_NAME, "h1").text == "This link has expired"
    assert "topic" not in chrome.find_element(By.TAG_NAME, "body").text
    assert fits_a_phone(chrome)


def written(namespace, user_id: str):
    return Memory.objects.filter(namespace=namespace, user_id=user_id).exclude(source=MemorySource.EXTRACTION)


def live_server_screenshot(name: str):
    from pathlib import Path

    folder = Path(os.environ.get("SCREENSHOT_DIR", "/tmp/memoryadmin-screenshots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder / name
