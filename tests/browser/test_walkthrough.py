"""The faults of an operator's first walk through the console, each replayed in headless Chromium."""

from __future__ import annotations

import uuid
from datetime import timedelta
from urllib.parse import urlparse

import pytest
from django.utils import timezone
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import Select

from memoryadmin.conversations.services import NewMessage
from memoryadmin.governance.forgetting import forgetting_queued_run, policy_clean
from memoryadmin.governance.models import ForgettingRun, JobStatus
from memoryadmin.governance.privacy_links import RIGHTS, privacy_link_create
from memoryadmin.memories.models import Memory, Tombstone
from memoryadmin.memories.services import memory_forget, memory_reject, memory_update
from tests.browser.conftest import policy_violations, wait
from tests.conftest import SYSTEM

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def console_errors(driver) -> list[str]:
    """What the page logged as an error: htmx's own (a target not found...) and failed loads."""
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def retype(field, text: str) -> None:
    field.clear()
    field.send_keys(text)


# --- 1. edit and forget pages opened on their own -------------------------------------------------


def test_an_edit_page_opened_on_its_own_saves_the_revision(sign_in, live_server, olivia, make_memory):
    memory = make_memory("User likes jazz")
    driver = sign_in("olivia")
    driver.get(f"{live_server.url}/memories/{memory.pk}/edit/")
    retype(driver.find_element(By.NAME, "text"), "User likes jazz, especially bebop")
    driver.find_element(By.NAME, "reason").send_keys("more precise")
    driver.find_element(By.CSS_SELECTOR, "form.edit-form button[type=submit]").click()

    wait(driver).until(lambda d: d.current_url == f"{live_server.url}/memories/{memory.pk}/")
    assert "Saved as a new revision." in driver.find_element(By.ID, "flash").text
    assert driver.find_element(By.CSS_SELECTOR, ".memory-text").text == "User likes jazz, especially bebop"
    memory.refresh_from_db()
    assert memory.text == "User likes jazz, especially bebop" and memory.revision == 2
    assert console_errors(driver) == []
    assert policy_violations(driver) == []


def test_an_edit_and_approve_page_opened_on_its_own_saves_and_approves(sign_in, live_server, olivia, make_candidate):
    candidate = make_candidate("User prefers aisle seat")
    driver = sign_in("olivia")
    driver.get(f"{live_server.url}/memories/{candidate.pk}/edit/?view=review&approve=1")
    retype(driver.find_element(By.NAME, "text"), "User prefers aisle seats")
    driver.find_element(By.CSS_SELECTOR, "form.edit-form button[type=submit]").click()

    wait(driver).until(lambda d: d.current_url == f"{live_server.url}/memories/{candidate.pk}/")
    assert "Saved and approved." in driver.find_element(By.ID, "flash").text
    candidate.refresh_from_db()
    assert candidate.text == "User prefers aisle seats" and candidate.status == "active"
    assert console_errors(driver) == []


def test_a_forget_page_opened_on_its_own_forgets(sign_in, live_server, olivia, make_memory):
    memory = make_memory("User likes jazz")
    driver = sign_in("olivia")
    driver.get(f"{live_server.url}/memories/{memory.pk}/forget/")
    driver.find_element(By.NAME, "reason").send_keys("the user asked")
    driver.find_element(By.CSS_SELECTOR, "form button.danger").click()

    wait(driver).until(ec.url_contains("/memories/?ns=alpha"))
    assert "Forgotten" in driver.find_element(By.ID, "flash").text
    assert not Memory.objects.filter(pk=memory.pk).exists()
    assert Tombstone.objects.filter(user_id="u1", reason="forgotten").count() == 1
    assert console_errors(driver) == []


# --- 2. forgetting: a refused run keeps the form; a run shows its progress -------------------------


def test_a_refused_run_keeps_what_was_typed(sign_in, live_server, alice, namespace):
    driver = sign_in("alice")
    driver.get(f"{live_server.url}/governance/forgetting/?ns=alpha")
    retype(driver.find_element(By.NAME, "max_age_days"), "30")
    retype(driver.find_element(By.NAME, "budget"), "500")
    driver.find_element(By.CSS_SELECTOR, "button[formaction$='/run/']").click()

    wait(driver).until(ec.text_to_be_present_in_element((By.ID, "policy-form"), "Tick the confirmation box"))
    assert driver.find_element(By.NAME, "max_age_days").get_attribute("value") == "30"
    assert driver.find_element(By.NAME, "budget").get_attribute("value") == "500"
    assert not ForgettingRun.objects.exists()


def test_a_running_forgetting_run_shows_its_progress_until_done(sign_in, live_server, alice, namespace, make_memory):
    make_memory("An old fact", created_at=timezone.now() - timedelta(days=90))
    make_memory("A new fact")
    policy = policy_clean(max_age_days=30)
    run = ForgettingRun.objects.create(
        namespace=namespace,
        trigger="console",
        actor="operator:alice",
        policy=policy.as_dict(),
        status=JobStatus.PENDING,
        started_at=timezone.now(),
    )
    driver = sign_in("alice")
    driver.get(f"{live_server.url}/governance/forgetting/?ns=alpha")
    status = (By.CSS_SELECTOR, "#forgetting-runs tr[data-run-status]")
    assert driver.find_element(*status).get_attribute("data-run-status") == "pending"

    # The worker takes the run and finishes it; the page follows without a reload.
    forgetting_queued_run(run_id=str(run.pk), policy=policy, actor=SYSTEM)
    wait(driver).until(lambda d: d.find_element(*status).get_attribute("data-run-status") == "succeeded")
    row = driver.find_element(*status).text
    assert row.endswith("Succeeded 2 1 age 1")  # status, scanned, forgotten, why
    assert list(Memory.objects.values_list("text", flat=True)) == ["A new fact"]
    # Done: the table stops asking.
    assert driver.find_element(By.ID, "forgetting-runs").get_attribute("hx-trigger") is None
    assert policy_violations(driver) == []


# --- 3. what a page shows after a change ----------------------------------------------------------


def test_the_list_header_follows_a_namespace_switch(
    sign_in, live_server, olivia, make_memory, make_namespace, namespace
):
    other = make_namespace("bravo", name="Bravo bots")
    make_memory("User likes jazz")
    for i in range(3):
        make_memory(f"User likes tea {i}", ns=other)
    driver = sign_in("olivia")
    driver.get(f"{live_server.url}/memories/?ns=alpha")
    assert "holds 1 memory" in driver.find_element(By.ID, "list-summary").text

    Select(driver.find_element(By.NAME, "ns")).select_by_value("bravo")
    wait(driver).until(ec.text_to_be_present_in_element((By.ID, "results"), "User likes tea 0"))
    wait(driver).until(ec.text_to_be_present_in_element((By.ID, "list-summary"), "Bravo bots holds 3 memories"))
    assert console_errors(driver) == []


def test_the_detail_page_shows_the_text_of_an_inline_edit(sign_in, live_server, olivia, make_memory):
    memory = make_memory("User likes jazz")
    driver = sign_in("olivia")
    driver.get(f"{live_server.url}/memories/{memory.pk}/")
    driver.find_element(By.CSS_SELECTOR, ".action-bar a[href$='/edit/']").click()
    text = wait(driver).until(ec.presence_of_element_located((By.CSS_SELECTOR, "#action-slot textarea")))
    retype(text, "User likes modal jazz")
    driver.find_element(By.CSS_SELECTOR, "#action-slot button[type=submit]").click()

    wait(driver).until(ec.text_to_be_present_in_element((By.ID, "flash"), "Saved as a new revision."))
    assert driver.find_element(By.CSS_SELECTOR, ".memory-text").text == "User likes modal jazz"
    # Everything below the summary is of the new revision too.
    assert "revision 2" in driver.find_element(By.CSS_SELECTOR, "dl.facts").text
    assert driver.find_element(By.CSS_SELECTOR, ".diff-text ins").text == "modal"
    assert console_errors(driver) == []


def test_going_back_to_a_memory_after_an_edit_in_the_list_shows_the_new_text(sign_in, live_server, olivia, make_memory):
    memory = make_memory("User likes jazz")
    driver = sign_in("olivia")
    driver.get(f"{live_server.url}/memories/{memory.pk}/")
    driver.find_element(By.CSS_SELECTOR, ".crumbs a").click()
    row = f"#m-{memory.pk}"
    wait(driver).until(ec.presence_of_element_located((By.CSS_SELECTOR, f"{row} a[href$='/edit/']"))).click()
    retype(wait(driver).until(ec.presence_of_element_located((By.CSS_SELECTOR, f"{row} textarea"))), "User likes bebop")
    driver.find_element(By.CSS_SELECTOR, f"{row} button[type=submit]").click()
    wait(driver).until(ec.text_to_be_present_in_element((By.CSS_SELECTOR, row), "Saved as a new revision."))

    driver.back()
    wait(driver).until(ec.url_contains(f"/memories/{memory.pk}/"))
    assert driver.find_element(By.CSS_SELECTOR, ".memory-text").text == "User likes bebop"


def test_edit_and_approve_confirms_with_the_new_text(sign_in, live_server, olivia, make_candidate):
    candidate = make_candidate("User prefers aisle seat")
    driver = sign_in("olivia")
    driver.get(f"{live_server.url}/review/")
    card = f"r-{candidate.pk}"
    driver.find_element(By.CSS_SELECTOR, f"#{card} a[data-key=e]").click()
    text = wait(driver).until(ec.presence_of_element_located((By.CSS_SELECTOR, f"#{card} textarea")))
    retype(text, "User prefers window seats")
    driver.find_element(By.CSS_SELECTOR, f"#{card} form.edit-form button[type=submit]").click()

    wait(driver).until(ec.text_to_be_present_in_element((By.ID, card), "Saved and approved."))
    assert "User prefers window seats" in driver.find_element(By.ID, card).text
    assert "aisle" not in driver.find_element(By.ID, card).text
    assert console_errors(driver) == []


# --- 4. the revision diff -------------------------------------------------------------------------


def test_the_diff_keeps_a_word_whose_punctuation_follows(sign_in, live_server, victor, make_memory):
    memory = make_memory("User likes jazz")
    memory_update(memory=memory, actor=SYSTEM, text="User likes jazz, especially bebop")
    driver = sign_in("victor")
    driver.get(f"{live_server.url}/memories/{memory.pk}/")
    diff = driver.find_element(By.CSS_SELECTOR, ".diff-text")
    assert diff.find_elements(By.TAG_NAME, "del") == []
    assert [ins.text for ins in diff.find_elements(By.TAG_NAME, "ins")] == [", especially bebop"]
    assert diff.text == "User likes jazz, especially bebop"


# --- 5. error pages, the favicon, breadcrumbs -----------------------------------------------------


def test_a_missing_page_is_a_console_page_with_a_way_back(sign_in, live_server, victor, namespace):
    driver = sign_in("victor")
    driver.get(f"{live_server.url}/memories/{uuid.uuid4()}/")
    assert driver.find_element(By.TAG_NAME, "h1").text == "Not found"
    assert driver.find_elements(By.CSS_SELECTOR, ".topbar nav a[href='/memories/']")
    driver.find_element(By.LINK_TEXT, "Back to the dashboard").click()
    wait(driver).until(lambda d: d.current_url == live_server.url + "/")

    # Signed out, the same page offers to sign in.
    driver.delete_all_cookies()
    driver.get(f"{live_server.url}/no-such-page/")
    assert driver.find_element(By.TAG_NAME, "h1").text == "Not found"
    assert driver.find_element(By.LINK_TEXT, "Sign in to the console").get_attribute("href").endswith("/login/")


def test_an_expired_form_is_a_console_page_that_says_what_to_do(sign_in, live_server, olivia, make_memory):
    memory = make_memory("User likes jazz")
    driver = sign_in("olivia")
    driver.get(f"{live_server.url}/memories/{memory.pk}/forget/")
    driver.delete_cookie("csrftoken")
    driver.find_element(By.CSS_SELECTOR, "form button.danger").click()
    wait(driver).until(ec.text_to_be_present_in_element((By.TAG_NAME, "h1"), "Form expired"))
    assert "reload the page" in driver.find_element(By.ID, "main").text
    assert driver.find_elements(By.LINK_TEXT, "Back to the dashboard"), driver.find_element(By.ID, "main").text
    assert Memory.objects.filter(pk=memory.pk).exists()


def test_no_page_asks_for_a_missing_favicon(sign_in, live_server, olivia, make_memory):
    memory = make_memory("User likes jazz")
    driver = sign_in("olivia")
    for path in ("/", "/memories/", f"/memories/{memory.pk}/"):
        driver.get(live_server.url + path)
        wait(driver).until(lambda d: d.execute_script("return document.readyState") == "complete")
    assert driver.find_element(By.CSS_SELECTOR, "link[rel=icon]").get_attribute("href").endswith(".svg")
    assert [m for m in console_errors(driver) if "favicon" in m] == []
    answer = driver.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        fetch("/favicon.ico").then((r) => done([r.status, r.headers.get("Content-Type")]));
        """
    )
    assert answer == [200, "image/svg+xml"]


def test_breadcrumbs_end_on_the_page_itself(sign_in, live_server, olivia, make_memory, make_session):
    memory = make_memory("User likes jazz")
    session, _ = make_session()
    driver = sign_in("olivia")
    for path in (
        f"/memories/{memory.pk}/",
        f"/memories/{memory.pk}/edit/",
        f"/memories/{memory.pk}/forget/",
        f"/sessions/{session.pk}/",
        f"/subjects/{memory.namespace_id}/u1/",
        "/namespaces/alpha/",
    ):
        driver.get(live_server.url + path)
        crumbs = driver.find_element(By.CSS_SELECTOR, ".crumbs").text
        assert not crumbs.rstrip().endswith("›"), (path, crumbs)
        assert driver.find_element(By.CSS_SELECTOR, ".crumbs [aria-current=page]").text


# --- 6. a phone's width ---------------------------------------------------------------------------

LONG_WORD = "https://example.org/" + "averylongaddresswithnospaceandnohyphen" * 3  # nowhere to break
PHONE_PAGES = (
    "/",
    "/memories/",
    "/memories/{memory}/",
    "/memories/{memory}/edit/",
    "/review/",
    "/sessions/",
    "/sessions/{session}/",
    "/subjects/",
    "/subjects/{namespace}/{user}/",
    "/tombstones/",
    "/namespaces/",
    "/namespaces/alpha/",
    "/governance/forgetting/",
    "/governance/snapshots/",
    "/governance/erasures/",
    "/audit/",
)


@pytest.fixture
def phone(browser):
    browser.set_window_size(390, 844)
    yield browser
    browser.set_window_size(1400, 1000)


def overflow(driver) -> int:
    """How far the page scrolls sideways (0 when it fits)."""
    return driver.execute_script("return document.scrollingElement.scrollWidth - window.innerWidth")


def sticking_out(driver) -> list[str]:
    """The innermost elements reaching past the screen's right edge, named to find them in the CSS."""
    return driver.execute_script(
        """
        const out = (el) => el.getBoundingClientRect().right > window.innerWidth + 1
          || (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX === "visible");
        return [...document.body.querySelectorAll("*")]
          .filter((el) => out(el) && ![...el.children].some(out))
          .slice(0, 5)
          .map((el) => [el.tagName.toLowerCase(), ...String(el.className || "").split(" ").filter(Boolean)].join("."));
        """
    )


@pytest.fixture
def long_words(alice, make_memory, make_candidate, make_session) -> list[str]:
    """The main pages, over data full of words too long for any column."""
    user = "person-" + "x" * 60
    session, _ = make_session(user_id=user)
    memory = make_memory(f"User keeps their notes at {LONG_WORD}", user_id=user, topics=["t" * 60])
    make_candidate(f"User wrote {LONG_WORD}", user_id=user)
    forgotten = make_memory(f"User once said {LONG_WORD}.", user_id=user)
    memory_forget(memory=forgotten, actor=SYSTEM, reason=LONG_WORD)
    rejected = make_candidate(f"User is {LONG_WORD}", user_id=user)
    memory_reject(memory=rejected, actor=SYSTEM, reason=LONG_WORD)  # a rejection's tombstone keeps the text
    return [
        path.format(memory=memory.pk, session=session.pk, namespace=memory.namespace_id, user=user)
        for path in PHONE_PAGES
    ]


def pages_wider_than_the_screen(driver, live_server, paths: list[str]) -> dict[str, list[str]]:
    wide = {}
    for path in paths:
        driver.get(live_server.url + path)
        if overflow(driver) > 0:
            wide[path] = sticking_out(driver)
    return wide


def test_no_page_scrolls_sideways_on_a_phone(phone, sign_in, live_server, long_words):
    driver = sign_in("alice")
    assert driver.execute_script("return window.innerWidth") <= 400
    assert pages_wider_than_the_screen(driver, live_server, long_words) == {}

    # The navigation wraps: every link is on the screen, none hidden in a scroller.
    driver.get(live_server.url + "/memories/")
    links = driver.find_elements(By.CSS_SELECTOR, ".topbar nav a")
    assert links and all(link.is_displayed() for link in links)
    assert driver.execute_script(
        "return [...document.querySelectorAll('.topbar nav a')]"
        ".every((a) => { const r = a.getBoundingClientRect(); return r.left >= 0 && r.right <= window.innerWidth; })"
    )


def test_long_words_stay_inside_their_columns_on_a_desktop(browser, sign_in, live_server, long_words):
    driver = sign_in("alice")
    assert pages_wider_than_the_screen(driver, live_server, long_words) == {}
    # Short words are not broken to make room for the long ones.
    driver.get(live_server.url + "/memories/")
    badge = driver.find_element(By.CSS_SELECTOR, "tr.is-candidate .badge.candidate")
    assert badge.size["height"] < 2 * driver.execute_script(
        "return parseFloat(getComputedStyle(arguments[0]).lineHeight) || 20", badge
    )
    driver.get(live_server.url + "/audit/")
    assert min(cell.size["width"] for cell in driver.find_elements(By.CSS_SELECTOR, "td.mono")) > 100


def test_the_privacy_page_fits_a_phone_with_long_words(phone, live_server, namespace, make_memory, make_session):
    user = "person-" + "x" * 60
    _, messages = make_session(user_id=user, messages=[NewMessage(role="user", content=f"See {LONG_WORD}")])
    make_memory(f"User keeps their notes at {LONG_WORD}", user_id=user, evidence_message_ids=[messages[0].pk])
    url, _ = privacy_link_create(namespace=namespace, user_id=user, ttl_seconds=600, actor=SYSTEM, grantable=RIGHTS)
    phone.get(live_server.url + urlparse(url).path)
    assert LONG_WORD[:40] in phone.find_element(By.ID, "main").text
    assert overflow(phone) <= 0, sticking_out(phone)


@pytest.fixture
def laptop(browser):
    browser.set_window_size(1366, 768)
    yield browser
    browser.set_window_size(1400, 1000)


@pytest.mark.parametrize("width", [1366, 1024])
def test_the_navigation_never_hides_a_link_in_a_scroller(laptop, alice, namespace, sign_in, live_server, width):
    driver = sign_in("alice")
    driver.set_window_size(width, 768)
    driver.get(live_server.url + "/memories/")
    nav = driver.find_element(By.CSS_SELECTOR, ".topbar nav")
    assert driver.execute_script("return arguments[0].scrollWidth <= arguments[0].clientWidth", nav)
    people = driver.find_element(By.LINK_TEXT, "People")
    assert driver.execute_script(
        "const r = arguments[0].getBoundingClientRect(), n = arguments[1].getBoundingClientRect();"
        "return r.left >= n.left && r.right <= n.right && r.right <= window.innerWidth",
        people,
        nav,
    )
