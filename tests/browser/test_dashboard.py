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
