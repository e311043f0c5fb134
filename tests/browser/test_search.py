"""The console's search, in headless Chromium: operators' syntax, as its placeholder says."""

from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By

from tests.browser.conftest import policy_violations, wait

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TEXTS = "return [...document.querySelectorAll('tr.memory-row td.text a')].map((a) => a.textContent.trim())"


def searched(driver, query: str) -> list[str]:
    box = driver.find_element(By.ID, "id_q")
    box.clear()
    box.send_keys(query)
    driver.find_element(By.CSS_SELECTOR, "form.filters button[type=submit]").click()
    wait(driver).until(lambda d: d.execute_script("return new URL(location).searchParams.get('q')") == query)
    wait(driver).until(lambda d: d.execute_script("return document.querySelectorAll('.htmx-request').length === 0"))
    return sorted(driver.execute_script(TEXTS))


def test_the_search_excludes_a_word_keeps_a_phrase_and_reads_or(sign_in, live_server, olivia, make_memory):
    make_memory("User lives in Berlin")
    make_memory("User lives in Paris")
    make_memory("User works in Berlin")
    driver = sign_in("olivia")
    driver.get(live_server.url + "/memories/?ns=alpha")
    assert driver.find_element(By.ID, "id_q").get_attribute("placeholder") == 'words, "a phrase", -excluded'
    assert searched(driver, "lives -Berlin") == ["User lives in Paris"]
    assert searched(driver, '"works in"') == ["User works in Berlin"]
    assert searched(driver, "Paris OR works") == ["User lives in Paris", "User works in Berlin"]
    assert policy_violations(driver) == []
