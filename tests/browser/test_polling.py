"""Pages that wait on a worker refresh themselves, in headless Chromium (no worker runs here: the test
plays its part by finishing the job in the database)."""

from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec

from memoryadmin.extraction.models import ExtractionRun, RunStatus
from memoryadmin.governance.erasure import erasure_execute
from memoryadmin.governance.models import ErasureRequest
from tests.browser.conftest import policy_violations, wait

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_extract_now_shows_the_run_finishing_without_a_reload(sign_in, live_server, olivia, make_session):
    session, _ = make_session("s1")
    driver = sign_in("olivia")
    driver.get(f"{live_server.url}/sessions/{session.pk}/")
    driver.find_element(By.CSS_SELECTOR, "#runs form button[type=submit]").click()
    wait(driver).until(ec.text_to_be_present_in_element((By.ID, "runs"), "Extraction scheduled"))
    assert "queued" in driver.find_element(By.ID, "runs").text
    page = driver.find_element(By.TAG_NAME, "h1")

    ExtractionRun.objects.filter(session=session).update(status=RunStatus.SUCCEEDED, created=2)
    wait(driver, 8).until(ec.text_to_be_present_in_element((By.ID, "runs"), "succeeded"))
    assert "2 created" in driver.find_element(By.ID, "runs").text
    assert not ec.staleness_of(page)(driver), "the card was replaced, not the page reloaded"
    # Done: the card stops asking.
    wait(driver, 3).until(lambda d: d.find_element(By.ID, "runs-status").get_attribute("hx-trigger") is None)
    assert policy_violations(driver) == []


def test_a_running_erasure_shows_its_end_on_the_subject_page(sign_in, live_server, alice, namespace, make_memory):
    make_memory("User likes jazz", user_id="u1")
    driver = sign_in("alice")
    driver.get(f"{live_server.url}/subjects/{namespace.pk}/u1/")
    driver.find_element(By.CSS_SELECTOR, "#erase summary").click()
    driver.find_element(By.CSS_SELECTOR, "#erase input[name=confirm]").send_keys("u1")
    driver.find_element(By.CSS_SELECTOR, "#erase button.danger").click()
    wait(driver).until(ec.text_to_be_present_in_element((By.ID, "subject-erasures"), "Erasing…"))

    erasure_execute(erasure_id=ErasureRequest.objects.get().pk)
    wait(driver, 8).until(ec.text_to_be_present_in_element((By.ID, "subject-erasures"), "completed"))
    section = driver.find_element(By.ID, "subject-erasures")
    assert "Erasing…" not in section.text
    assert section.find_element(By.PARTIAL_LINK_TEXT, "Receipt")
    assert section.get_attribute("hx-trigger") is None
    assert policy_violations(driver) == []


def test_the_subject_page_follows_an_erasure_to_its_end(
    sign_in, live_server, alice, namespace, make_memory, make_session
):
    make_memory("User likes jazz", user_id="u1")
    make_session("s1", user_id="u1")
    driver = sign_in("alice")
    driver.get(f"{live_server.url}/subjects/{namespace.pk}/u1/")
    driver.find_element(By.CSS_SELECTOR, "#erase summary").click()
    driver.find_element(By.CSS_SELECTOR, "#erase input[name=confirm]").send_keys("u1")
    driver.find_element(By.CSS_SELECTOR, "#erase button.danger").click()
    wait(driver).until(ec.text_to_be_present_in_element((By.ID, "erase"), "is pending"))

    erasure_execute(erasure_id=ErasureRequest.objects.get().pk)
    # The whole page shows the end: nothing of theirs is listed any more, nor said to be pending.
    wait(driver, 8).until(lambda d: "User likes jazz" not in d.find_element(By.ID, "main").text)
    main = driver.find_element(By.ID, "main").text
    assert "is pending" not in main and "Erasing…" not in main
    assert "No memory about u1." in main and "No session." in main
    assert "completed" in driver.find_element(By.ID, "subject-erasures").text
    assert driver.find_elements(By.CSS_SELECTOR, "#subject-erasures[hx-trigger]") == []
    assert policy_violations(driver) == []
