"""The dashboard's tiles, followed in headless Chromium."""

from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec

from memoryadmin.extraction.models import ExtractionRun, RunStatus
from tests.browser.conftest import policy_violations, wait

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def tile(driver, label: str):
    # Once the health card has loaded, nothing on the dashboard moves any more.
    wait(driver).until(ec.presence_of_element_located((By.CSS_SELECTOR, "#health .health")))
    return driver.find_element(By.XPATH, f"//a[contains(@class, 'tile')][.//span[starts-with(., '{label}')]]")


def test_the_awaiting_review_tile_opens_the_queue_where_candidates_wait(
    sign_in, live_server, olivia, namespace, make_namespace, make_candidate
):
    make_candidate("User prefers aisle seats", ns=make_namespace("travel"))
    driver = sign_in("olivia")
    # The operator last browsed a namespace where nothing waits for review.
    driver.get(live_server.url + f"/memories/?ns={namespace.slug}")
    driver.get(live_server.url + "/")
    tile(driver, "awaiting review").click()
    wait(driver).until(ec.presence_of_element_located((By.CSS_SELECTOR, "[data-review-card]")))
    assert "User prefers aisle seats" in driver.find_element(By.ID, "review-cards").text
    assert policy_violations(driver) == []


def test_the_failed_runs_tile_lists_the_failure_among_good_runs(
    sign_in, live_server, olivia, namespace, make_namespace, make_session
):
    other = make_namespace("travel")
    session, _ = make_session(ns=other)
    ExtractionRun.objects.bulk_create(
        [
            ExtractionRun(namespace=other, session=session, strategy="rules", status=RunStatus.SUCCEEDED)
            for _ in range(200)
        ]
    )
    ExtractionRun.objects.create(
        namespace=other, session=session, strategy="rules", status=RunStatus.FAILED, error="model timed out"
    )
    driver = sign_in("olivia")
    driver.get(live_server.url + "/")
    tile(driver, "failed extraction runs").click()
    rows = wait(driver).until(lambda d: d.find_elements(By.CSS_SELECTOR, "main table.table tbody tr"))
    assert "/runs/" in driver.current_url
    assert len(rows) == 1
    assert "model timed out" in rows[0].text
    assert policy_violations(driver) == []


def test_an_operator_narrows_the_dashboard_to_one_namespace_and_a_date_range(
    sign_in, live_server, olivia, namespace, make_namespace, make_memory
):
    from datetime import timedelta

    from django.utils import timezone
    from selenium.webdriver.support.ui import Select

    travel = make_namespace("travel")
    make_memory("User likes jazz")
    make_memory("User flies on Tuesdays", ns=travel, created_at=timezone.now() - timedelta(days=60))
    driver = sign_in("olivia")
    driver.get(live_server.url + "/")
    Select(driver.find_element(By.NAME, "ns")).select_by_value("travel")
    day = (timezone.now() - timedelta(days=60)).date()
    for name, value in (("start", day - timedelta(days=1)), ("end", day + timedelta(days=1))):
        # Date inputs take what is typed in the browser's locale; set the value the form sends.
        driver.execute_script("arguments[0].value = arguments[1]", driver.find_element(By.NAME, name), str(value))
    driver.find_element(By.XPATH, "//button[normalize-space()='Show']").click()
    heading = f"{day - timedelta(days=1)} to {day + timedelta(days=1)}, {travel.name}"
    wait(driver).until(lambda d: heading in d.execute_script("return document.querySelector('.page-head').textContent"))
    slugs = [
        s.text for s in driver.find_elements(By.CSS_SELECTOR, "section.card table.table tbody td:first-child small")
    ]
    assert slugs == ["travel"]
    created = driver.find_element(
        By.XPATH, "//div[contains(concat(' ', @class, ' '), ' tile ')][.//span[.='memories created']]"
    )
    assert created.find_element(By.CLASS_NAME, "tile-value").text == "1"
    assert "ns=travel" in driver.current_url
    assert policy_violations(driver) == []
