"""Sorting a list and exporting the audit log, in headless Chromium."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import Select

from tests.browser.conftest import policy_violations, wait

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def sorted_as(driver, order: str) -> bool:
    # Read in one script: htmx may swap the table between two WebDriver calls.
    header = driver.execute_script("const th = document.querySelector('th.sortable'); return th && th.ariaSort")
    return header == order


def texts(driver) -> list[str]:
    return driver.execute_script(
        "return [...document.querySelectorAll('tr.memory-row td.text a')].map((a) => a.textContent.trim())"
    )


def test_an_operator_sorts_memories_oldest_first_and_back(sign_in, live_server, olivia, make_memory):
    now = timezone.now()
    for i in range(3):
        make_memory(f"User likes record {i}", created_at=now - timedelta(days=i))
    driver = sign_in("olivia")
    driver.get(live_server.url + "/memories/?ns=alpha")
    wait(driver).until(lambda d: texts(d), f"no rows on {driver.current_url} ({driver.title})")
    assert texts(driver) == ["User likes record 0", "User likes record 1", "User likes record 2"]
    driver.find_element(By.CSS_SELECTOR, "th.sortable a").click()
    wait(driver).until(lambda d: sorted_as(d, "ascending"))
    assert "order=oldest" in driver.current_url
    assert texts(driver) == ["User likes record 2", "User likes record 1", "User likes record 0"]
    # A filter applied now keeps the order.
    Select(driver.find_element(By.NAME, "type")).select_by_value("semantic")
    wait(driver).until(ec.url_contains("type=semantic"))
    assert "order=oldest" in driver.current_url
    driver.find_element(By.CSS_SELECTOR, "th.sortable a").click()
    wait(driver).until(lambda d: sorted_as(d, "descending"))
    assert "order=oldest" not in driver.current_url and "type=semantic" in driver.current_url
    assert policy_violations(driver) == []


def test_an_operator_picks_an_action_and_exports_what_the_log_shows(sign_in, live_server, olivia, make_memory):
    make_memory("User likes jazz")
    driver = sign_in("olivia")
    driver.get(live_server.url + "/audit/")
    Select(driver.find_element(By.NAME, "action")).select_by_value("memory.create")
    driver.find_element(By.XPATH, "//button[normalize-space()='Apply']").click()
    # Read in one script each: the new page may replace the old one between two WebDriver calls.
    export = "const a = document.querySelector('a[href*=\"export.csv\"]'); return a && a.href"
    wait(driver).until(lambda d: (d.execute_script(export) or "").endswith("/audit/export.csv?action=memory.create"))
    actions = driver.execute_script(
        "return [...document.querySelectorAll('table.audit tbody td:nth-child(5)')].map((td) => td.textContent.trim())"
    )
    assert set(actions) == {"memory.create"}
    assert policy_violations(driver) == []


def test_an_admin_lifts_a_tombstone_and_the_count_follows(sign_in, live_server, alice, make_memory):
    from memoryadmin.memories.models import Tombstone
    from memoryadmin.memories.services import memory_forget
    from tests.conftest import SYSTEM

    first = memory_forget(memory=make_memory("User likes tea"), actor=SYSTEM)
    memory_forget(memory=make_memory("User likes rain"), actor=SYSTEM)
    driver = sign_in("alice")
    driver.get(live_server.url + "/tombstones/?user=u1")
    assert "2 match these filters" in driver.find_element(By.ID, "result-count").text
    row = f"#t-{first.pk}"
    driver.find_element(By.CSS_SELECTOR, f"{row} input[name=reason]").send_keys("forgotten by mistake")
    driver.find_element(By.CSS_SELECTOR, f"{row} button.danger").click()
    wait(driver).until(ec.alert_is_present()).accept()
    wait(driver).until(ec.text_to_be_present_in_element((By.CSS_SELECTOR, row), "Lifted"))
    wait(driver).until(ec.text_to_be_present_in_element((By.ID, "result-count"), "1 matches these filters"))
    assert not Tombstone.objects.filter(pk=first.pk).exists()
