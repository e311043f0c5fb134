"""The review queue in headless Chromium: its keys, and its cards on a phone."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


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
