"""The review queue in headless Chromium: its keys, and its cards on a phone."""

from __future__ import annotations

import pytest
from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as ec

from memoryadmin.audit.models import AuditEvent
from memoryadmin.memories.models import Memory
from tests.browser.conftest import policy_violations, wait

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ACTIVE = """
const el = document.activeElement;
return el && [el.tagName, el.name || '', el.closest('[data-review-card]')?.id || ''];
"""


@pytest.fixture
def phone(browser):
    browser.set_window_size(390, 844)
    yield browser
    browser.set_window_size(1400, 1000)


def test_on_a_phone_a_card_gives_its_text_the_width_and_its_buttons_go_below(
    phone, sign_in, live_server, olivia, make_candidate
):
    make_candidate("User lives in Berlin and cycles to work every day")
    driver = sign_in("olivia")
    driver.get(live_server.url + "/review/")
    box = driver.execute_script(
        """
        const card = document.querySelector('[data-review-card]');
        const rect = (el) => el.getBoundingClientRect();
        const style = getComputedStyle(card);
        const inner = rect(card).width - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight)
          - parseFloat(style.borderLeftWidth) - parseFloat(style.borderRightWidth);
        return {inner, text: rect(card.querySelector('.review-main')).width,
                textBottom: rect(card.querySelector('.review-main')).bottom,
                buttonsTop: rect(card.querySelector('.review-actions')).top};
        """
    )
    assert box["text"] >= box["inner"] - 1, box
    assert box["buttonsTop"] >= box["textBottom"], box


def test_r_puts_the_cursor_in_the_reason_and_enter_rejects_with_it(sign_in, live_server, olivia, make_candidate):
    candidate = make_candidate("User prefers rain")
    driver = sign_in("olivia")
    driver.get(live_server.url + "/review/")
    body = driver.find_element(By.TAG_NAME, "body")
    body.send_keys("j")
    body.send_keys("r")
    # Nothing is asked yet: the reason can be written first.
    with pytest.raises(NoAlertPresentException):
        driver.switch_to.alert.text  # noqa: B018 - reading it is what raises when no alert is open
    assert driver.execute_script(ACTIVE) == ["INPUT", "reason", f"r-{candidate.pk}"]
    driver.switch_to.active_element.send_keys("not a memory", Keys.ENTER)
    wait(driver).until(ec.alert_is_present()).accept()
    wait(driver).until(ec.text_to_be_present_in_element((By.ID, f"r-{candidate.pk}"), "Rejected"))
    assert not Memory.objects.filter(pk=candidate.pk).exists()
    assert AuditEvent.objects.get(action="memory.reject").reason == "not a memory"
    assert policy_violations(driver) == []


def test_e_opens_the_edit_with_the_cursor_in_the_text(sign_in, live_server, olivia, make_candidate):
    candidate = make_candidate("User prefers rain")
    driver = sign_in("olivia")
    driver.get(live_server.url + "/review/")
    body = driver.find_element(By.TAG_NAME, "body")
    body.send_keys("j")
    body.send_keys("e")
    wait(driver).until(lambda d: d.find_elements(By.CSS_SELECTOR, f"#slot-{candidate.pk} textarea"))
    wait(driver).until(lambda d: d.execute_script(ACTIVE) == ["TEXTAREA", "text", f"r-{candidate.pk}"])
    assert policy_violations(driver) == []
