"""Acting on several memories at once from the list, in headless Chromium."""

from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import Select

from tests.browser.conftest import SETTLED, policy_violations, wait

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROWS = """
return [...document.querySelectorAll('#memory-rows tr.memory-row')].map((tr) => ({
  id: tr.id,
  pinned: tr.querySelector('.badge.pinned') !== null,
  button: [...tr.querySelectorAll('td.actions button')].map((b) => b.textContent.trim()).join(' '),
}))
"""


def test_a_bulk_pin_replaces_the_rows_of_the_list_and_says_so_once(sign_in, live_server, olivia, make_memory):
    for i in range(3):
        make_memory(f"User likes record {i}", user_id="u1")
    make_memory("User likes another thing", user_id="u2")
    driver = sign_in("olivia")
    # The filtered list as a link opens it: typing the filter and pressing the button would send the
    # form twice (on change, then on submit), and the second answer may replace the rows between clicks.
    driver.get(live_server.url + "/memories/?ns=alpha&user=u1")
    wait(driver).until(lambda d: len(d.execute_script(ROWS)) == 3 and d.execute_script(SETTLED))
    boxes = driver.find_elements(By.CSS_SELECTOR, '#memory-rows input[name="ids"]')
    boxes[0].click()
    boxes[1].click()
    picked = {box.get_attribute("value") for box in boxes[:2]}
    assert driver.find_element(By.ID, "picked-count").text == "2 selected"
    Select(driver.find_element(By.NAME, "action")).select_by_value("pin")
    driver.find_element(By.CSS_SELECTOR, "#bulk-form button[type=submit]").click()
    asked = wait(driver).until(ec.alert_is_present())
    assert asked.text == "Pin 2 selected memories?"
    asked.accept()
    wait(driver).until(lambda d: "Pin: 2 done." in d.find_element(By.ID, "bulk-result").text)

    # One summary in the bar, and nothing of the rows there.
    result = driver.find_element(By.ID, "bulk-result")
    assert result.text == "Pin: 2 done."
    assert result.find_elements(By.CSS_SELECTOR, "input, button, a, tr, td") == []
    # The table's own rows show what was done, where they were.
    rows = driver.execute_script(ROWS)
    assert len(rows) == 3
    for row in rows:
        if row["id"].removeprefix("m-") in picked:
            assert row["pinned"] and "Unpin" in row["button"].split(), row
        else:
            assert not row["pinned"] and "Pin" in row["button"].split(), row
    assert "Pin: 2 done." not in driver.find_element(By.ID, "memory-rows").text
    # "All shown" picks the rows shown, no more.
    assert len(driver.find_elements(By.CSS_SELECTOR, 'input[name="ids"][form="bulk-form"]')) == 3
    driver.find_element(By.ID, "pick-all").click()
    assert driver.find_element(By.ID, "picked-count").text == "3 selected"
    assert policy_violations(driver) == []


def test_a_bulk_forget_marks_the_rows_gone_in_the_table(sign_in, live_server, olivia, make_memory):
    for i in range(2):
        make_memory(f"User likes record {i}")
    driver = sign_in("olivia")
    driver.get(live_server.url + "/memories/?ns=alpha")
    wait(driver).until(lambda d: len(d.execute_script(ROWS)) == 2)
    # Nothing picked: nothing is asked or sent, and the bar says why.
    driver.find_element(By.CSS_SELECTOR, "#bulk-form button[type=submit]").click()
    wait(driver).until(lambda d: "Select at least one memory first." in d.find_element(By.ID, "flash").text)
    assert not ec.alert_is_present()(driver)
    assert driver.find_element(By.ID, "bulk-result").text == ""
    driver.find_element(By.ID, "pick-all").click()
    Select(driver.find_element(By.NAME, "action")).select_by_value("forget")
    driver.find_element(By.NAME, "reason").send_keys("asked")
    driver.find_element(By.CSS_SELECTOR, "#bulk-form button[type=submit]").click()
    asked = wait(driver).until(ec.alert_is_present())
    assert asked.text == "Forget 2 selected memories?"
    asked.accept()
    wait(driver).until(lambda d: "Forget: 2 done." in d.find_element(By.ID, "bulk-result").text)
    assert driver.find_element(By.ID, "bulk-result").text == "Forget: 2 done."
    assert driver.execute_script(ROWS) == []
    gone = driver.find_elements(By.CSS_SELECTOR, "#memory-rows tr.gone")
    assert [row.text.split(" ", 1)[0] for row in gone] == ["Removed.", "Removed."]
    assert driver.find_element(By.ID, "picked-count").text == "0 selected"
