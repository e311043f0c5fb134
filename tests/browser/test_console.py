"""The operators' console in headless Chromium against a live server."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as ec

from memoryadmin.conversations.services import NewMessage
from memoryadmin.memories.models import Memory, Pin, Tombstone
from tests.browser.conftest import policy_violations, wait

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def rows(driver) -> list:
    return driver.find_elements(By.CSS_SELECTOR, "tr.memory-row")


def test_an_operator_signs_in_searches_and_loads_more(sign_in, live_server, olivia, make_memory):
    now = timezone.now()
    for i in range(60):
        make_memory(f"User likes jazz record {i}", created_at=now - timedelta(minutes=i))
    make_memory("User likes tea", user_id="u2")
    driver = sign_in("olivia")
    driver.get(live_server.url + "/memories/")
    assert len(rows(driver)) == 50

    search = driver.find_element(By.ID, "id_q")
    search.send_keys("jazz")
    search.send_keys(Keys.ENTER)
    wait(driver).until(lambda d: "q=jazz" in d.current_url)
    wait(driver).until(lambda d: "User likes tea" not in d.find_element(By.ID, "results").text)
    assert len(rows(driver)) == 50

    driver.execute_script("document.querySelector('tr.more').scrollIntoView()")
    wait(driver).until(lambda d: len(rows(d)) == 60)
    texts = [row.find_element(By.CSS_SELECTOR, "td.text a").text for row in rows(driver)]
    assert len(set(texts)) == 60
    assert driver.find_elements(By.CSS_SELECTOR, "tr.more") == []

    # The address bar kept the filters, so the view can be bookmarked and reloaded.
    driver.get(driver.current_url)
    assert driver.find_element(By.ID, "id_q").get_attribute("value") == "jazz"
    assert policy_violations(driver) == []


def test_an_operator_pins_and_unpins_inline(sign_in, live_server, olivia, make_memory):
    memory = make_memory("User likes jazz")
    driver = sign_in("olivia")
    driver.get(live_server.url + "/memories/")
    row = f"#m-{memory.pk}"
    driver.find_element(By.CSS_SELECTOR, f"{row} form[action$='/pin/'] button").click()
    wait(driver).until(ec.text_to_be_present_in_element((By.CSS_SELECTOR, row), "pinned"))
    assert Pin.objects.filter(memory_id=memory.pk).exists()

    driver.find_element(By.CSS_SELECTOR, f"{row} form[action$='/unpin/'] button").click()
    wait(driver).until(ec.text_to_be_present_in_element((By.CSS_SELECTOR, row), "Unpinned."))
    assert not Pin.objects.filter(memory_id=memory.pk).exists()
    assert driver.find_elements(By.CSS_SELECTOR, f"{row} .badge.pinned") == []
    assert policy_violations(driver) == []


def test_an_operator_forgets_with_confirmation_and_sees_it_gone(sign_in, live_server, olivia, make_memory):
    memory = make_memory("User likes jazz")
    keep = make_memory("User likes tea")
    driver = sign_in("olivia")
    driver.get(live_server.url + "/memories/")
    row = f"#m-{memory.pk}"
    # The row turns into the confirmation; cancelling it changes nothing.
    driver.find_element(By.CSS_SELECTOR, f"{row} a.danger").click()
    wait(driver).until(ec.presence_of_element_located((By.CSS_SELECTOR, f"{row} input[name=reason]")))
    driver.find_element(By.CSS_SELECTOR, f"{row} a.secondary").click()
    wait(driver).until(ec.presence_of_element_located((By.CSS_SELECTOR, f"{row} a.danger")))
    assert Memory.objects.filter(pk=memory.pk).exists()

    driver.find_element(By.CSS_SELECTOR, f"{row} a.danger").click()
    reason = wait(driver).until(ec.presence_of_element_located((By.CSS_SELECTOR, f"{row} input[name=reason]")))
    reason.send_keys("the user asked")
    driver.find_element(By.CSS_SELECTOR, f"{row} button.danger").click()
    # Asked once: the confirmation is the row itself, no browser dialog on top of it.
    wait(driver).until(ec.text_to_be_present_in_element((By.CSS_SELECTOR, row), "Forgotten"))
    assert not ec.alert_is_present()(driver)
    assert not Memory.objects.filter(pk=memory.pk).exists()
    assert Tombstone.objects.filter(user_id="u1", reason="forgotten").count() == 1
    assert Memory.objects.filter(pk=keep.pk).exists()

    driver.get(live_server.url + "/memories/")
    assert "User likes jazz" not in driver.find_element(By.ID, "results").text
    assert "User likes tea" in driver.find_element(By.ID, "results").text


def test_an_operator_approves_and_rejects_candidates_from_the_keyboard(
    sign_in, live_server, olivia, make_candidate, make_session
):
    _, messages = make_session(messages=[NewMessage(role="user", content="I prefer aisle seats.")])
    now = timezone.now()
    first = make_candidate(
        "User prefers aisle seats", evidence_message_ids=[messages[0].pk], created_at=now - timedelta(hours=2)
    )
    second = make_candidate("User prefers rain", created_at=now - timedelta(hours=1))
    driver = sign_in("olivia")
    driver.get(live_server.url + "/review/")
    assert "I prefer aisle seats." in driver.find_element(By.ID, f"r-{first.pk}").text

    body = driver.find_element(By.TAG_NAME, "body")
    body.send_keys("j")
    body.send_keys("a")
    wait(driver).until(ec.text_to_be_present_in_element((By.ID, f"r-{first.pk}"), "Approved"))
    first.refresh_from_db()
    assert first.status == "active"

    # The next candidate took the focus; "r" and Enter reject it.
    wait(driver).until(lambda d: "is-focused" in d.find_element(By.ID, f"r-{second.pk}").get_attribute("class"))
    driver.find_element(By.TAG_NAME, "body").send_keys("r")
    driver.switch_to.active_element.send_keys(Keys.ENTER)
    wait(driver).until(ec.alert_is_present()).accept()
    wait(driver).until(ec.text_to_be_present_in_element((By.ID, f"r-{second.pk}"), "Rejected"))
    assert not Memory.objects.filter(pk=second.pk).exists()
    assert Tombstone.objects.get(reason="rejected").text == "User prefers rain"
    assert policy_violations(driver) == []


def test_an_operator_follows_an_evidence_link_from_a_transcript(
    sign_in, live_server, olivia, make_session, make_memory
):
    session, messages = make_session()
    memory = make_memory("User lives in Lyon", evidence_message_ids=[messages[1].pk])
    driver = sign_in("olivia")
    driver.get(live_server.url + f"/sessions/{session.pk}/")
    evidence = driver.find_element(By.ID, "msg-2")
    assert "evidence" in evidence.get_attribute("class")
    assert "injected" in driver.find_element(By.ID, "msg-1").get_attribute("class")

    # Injected guidance can be hidden and shown again, without JavaScript.
    driver.find_element(By.CSS_SELECTOR, "label[for=hide-injected]").click()
    assert not driver.find_element(By.ID, "msg-1").is_displayed()

    evidence.find_element(By.CSS_SELECTOR, "a.memory-link").click()
    wait(driver).until(ec.url_contains(f"/memories/{memory.pk}/"))
    assert driver.find_element(By.CSS_SELECTOR, ".memory-text").text == "User lives in Lyon"

    driver.find_element(By.CSS_SELECTOR, "a.evidence-link").click()
    wait(driver).until(ec.url_contains("#msg-2"))
    assert "target" in driver.find_element(By.ID, "msg-2").get_attribute("class")


def test_a_memory_that_looks_like_a_script_is_shown_as_text(sign_in, live_server, olivia, make_memory):
    memory = make_memory("<script>alert(1)</script>")
    driver = sign_in("olivia")
    for path in ("/memories/", f"/memories/{memory.pk}/", f"/subjects/{memory.namespace_id}/u1/"):
        driver.get(live_server.url + path)
        with pytest.raises(NoAlertPresentException):
            driver.switch_to.alert.text  # noqa: B018 - reading it is what raises when no alert is open
        assert "<script>alert(1)</script>" in driver.find_element(By.ID, "main").text
    # Edited inline, the text goes back into the form as text too.
    driver.get(live_server.url + "/memories/")
    driver.find_element(By.CSS_SELECTOR, f"#m-{memory.pk} a[href$='/edit/']").click()
    textarea = wait(driver).until(ec.presence_of_element_located((By.CSS_SELECTOR, f"#m-{memory.pk} textarea")))
    assert textarea.get_attribute("value") == "<script>alert(1)</script>"
    with pytest.raises(NoAlertPresentException):
        driver.switch_to.alert.text  # noqa: B018


def test_a_viewer_sees_no_destructive_buttons_and_a_forged_post_is_refused(
    sign_in, live_server, victor, make_memory, make_candidate
):
    memory = make_memory("User likes jazz")
    make_candidate("User prefers rain")
    driver = sign_in("victor")
    for path in ("/memories/", f"/memories/{memory.pk}/", "/review/", "/tombstones/"):
        driver.get(live_server.url + path)
        assert driver.find_elements(By.CSS_SELECTOR, "main form[method=post] button") == []
        assert driver.find_elements(By.CSS_SELECTOR, "main .danger") == []

    status = driver.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        const token = document.body.getAttribute("hx-headers").match(/"x-csrftoken": "([^"]+)"/)[1];
        fetch(arguments[0], {method: "POST", headers: {"X-CSRFToken": token}, credentials: "same-origin"})
          .then((r) => done(r.status));
        """,
        f"{live_server.url}/memories/{memory.pk}/forget/",
    )
    assert status == 403
    assert Memory.objects.filter(pk=memory.pk).exists()
    assert not Tombstone.objects.exists()


def test_acting_on_a_memory_deleted_meanwhile_says_so_in_words(settings, sign_in, live_server, olivia, make_memory):
    # As `make run` serves the console: Django's debug page must not stand in for the console's answer.
    settings.DEBUG = True
    memory = make_memory("User likes jazz")
    driver = sign_in("olivia")
    driver.get(live_server.url + "/memories/")
    Memory.objects.filter(pk=memory.pk).delete()
    driver.find_element(By.CSS_SELECTOR, f"#m-{memory.pk} form[action$='/pin/'] button").click()
    wait(driver).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#flash .flash.error"))
    assert driver.find_element(By.ID, "flash").text == (
        "This no longer exists: it may have been deleted meanwhile. Reload the page to see what is left."
    )
