"""Every console page and the privacy pages, checked by axe-core in headless Chromium.

The pages are the console's and the privacy app's URL patterns, so a new page is
checked as soon as it is routed; a pattern that is not a page (a POST action, a
download, a fragment) says so in NOT_PAGES, and that claim is checked too.
axe-core is the npm package's `axe.min.js`, vendored under tests/browser/vendor/
and injected from that file: the pages' CSP allows no script from elsewhere.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client, override_settings
from django.urls import reverse
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support import expected_conditions as ec

from memoryadmin.conversations.models import Session
from memoryadmin.extraction.models import ExtractionRun, RunStatus
from memoryadmin.governance.erasure import erasure_execute, erasure_request
from memoryadmin.governance.privacy_links import RIGHTS, privacy_link_create
from memoryadmin.governance.restore_jobs import restore_job_create, restore_job_execute
from memoryadmin.governance.snapshots import snapshot_export_lines
from memoryadmin.memories.models import Memory, MemoryStatus
from memoryadmin.memories.services import memory_forget
from memoryadmin.tenancy.models import Namespace
from memoryadmin.tenancy.services import api_key_create
from memoryadmin.webhooks.models import WebhookDelivery
from memoryadmin.webhooks.services import webhook_create
from tests.browser.conftest import wait
from tests.conftest import SYSTEM
from tests.security.test_console_matrix import routed_views

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

AXE = (Path(__file__).parent / "vendor" / "axe.min.js").read_text(encoding="utf-8")
FAILING_IMPACTS = {"serious", "critical"}
SMALL_DEMO = ["--users", "6", "--sessions", "12", "--messages-per-session", "10", "--memories", "80"]

# Patterns that are not pages, and why; each claim is checked by test_what_is_not_a_page_is_not_one.
POST_ONLY = "a POST action"
DOWNLOAD = "a download"
POLLED = "a part of its page, polled by it; asked for alone it sends the browser to the page"
NOT_PAGES = {
    "console:logout": POST_ONLY,
    "console:search_index_rebuild": POST_ONLY,
    "console:namespace_settings": POST_ONLY,
    "console:api_key_new": POST_ONLY,
    "console:api_key_revoke": POST_ONLY,
    "console:memories_bulk": POST_ONLY,
    "console:memory_row": "a fragment of the memory list (a table row)",
    "console:memory_pin": POST_ONLY,
    "console:memory_unpin": POST_ONLY,
    "console:memory_approve": POST_ONLY,
    "console:memory_reject": POST_ONLY,
    "console:extract_now": POST_ONLY,
    "console:subject_export": DOWNLOAD,
    "console:subject_privacy_link": POST_ONLY,
    "console:subject_privacy_link_revoke": POST_ONLY,
    "console:subject_erase": POST_ONLY,
    "console:tombstone_lift": POST_ONLY,
    "console:forgetting_preview": POST_ONLY,
    "console:forgetting_save": POST_ONLY,
    "console:forgetting_run": POST_ONLY,
    "console:snapshot_export": DOWNLOAD,
    "console:snapshot_upload": POST_ONLY,
    "console:snapshot_restore_apply": POST_ONLY,
    "console:snapshot_restore_discard": POST_ONLY,
    "console:erasure_receipt": DOWNLOAD,
    "console:audit_export": DOWNLOAD,
    "console:erasure_retry": POST_ONLY,
    "console:webhook_new": POST_ONLY,
    "console:webhook_status": POST_ONLY,
    "console:webhook_delete": POST_ONLY,
    "console:webhook_test": POST_ONLY,
    "console:webhook_redeliver": POST_ONLY,
    "privacy:download": DOWNLOAD,
    "privacy:forget": POST_ONLY,
    "privacy:receipt_download": DOWNLOAD,
    "console:namespace_new": POST_ONLY,
    "console:person_new": POST_ONLY,
    "console:person_role": POST_ONLY,
    "console:person_namespaces": POST_ONLY,
    "console:person_deactivate": POST_ONLY,
    "console:person_reactivate": POST_ONLY,
    "console:working_memory_clear": POST_ONLY,
    "console:session_runs": POLLED,
    "console:subject_erasures": POLLED,
}
# Pages shown signed out.
SIGNED_OUT = {"console:login"}
# What a page loads after it is shown, to wait for before checking it.
LOADED = {"console:dashboard": "#health .health"}
# Query strings that show a page with something in it.
QUERIES = {
    "console:memories": "?ns=support-bot",
    "console:review": "?ns=travel-agent",
    "console:sessions": "?ns=support-bot",
    "console:tombstones": "?ns=support-bot",
    "console:forgetting": "?ns=support-bot",
    "console:snapshots": "?ns=support-bot",
    "console:erasures": "?ns=support-bot",
    "console:snapshot_export": "?ns=support-bot",
    "console:extraction_runs": "?ns=support-bot",
}
# More states of some pages: filtered, sorted the other way, refusing a filter.
MORE_STATES = {
    "console:dashboard": ["?ns=support-bot", "?start=2026-03-10&end=2026-03-01"],
    "console:memories": ["?ns=support-bot&type=semantic&order=oldest", "?ns=support-bot&q=jazz"],
    "console:audit": ["?action=memory.update", "?action=no.such-action"],
    "console:extraction_runs": ["?ns=support-bot&status=failed&order=oldest"],
    "console:review": ["?ns=support-bot"],
}


@dataclass
class Demo:
    """The demo data of `seed_demo`, plus one of each object a page is about."""

    values: dict[str, Any]
    # The token of a privacy link whose person was erased, for the receipt page.
    erased_token: str


def demo_data() -> Demo:
    call_command("seed_demo", *SMALL_DEMO, stdout=io.StringIO(), stderr=io.StringIO())
    support = Namespace.objects.get(slug="support-bot")
    key, _ = api_key_create(namespace=support, name="support app", scopes=["read", "write"], actor=SYSTEM)
    session = Session.objects.get(namespace=support, session_id="tools-support-bot")
    ExtractionRun.objects.create(
        namespace=support, session=session, strategy="rules", status=RunStatus.FAILED, error="model timed out"
    )
    users = list(
        Session.objects.filter(namespace=support).order_by("user_id").values_list("user_id", flat=True).distinct()
    )
    person, erased = users[0], users[-1]
    assert person != erased
    # One of the person's memories, corrected by an operator when there is one (revisions, a diff, evidence).
    mine = Memory.objects.filter(namespace=support, user_id=person, status=MemoryStatus.ACTIVE)
    memory = mine.order_by("-revision", "created_at").first()
    assert memory is not None
    token_path, link = privacy_link_create(namespace=support, user_id=person, actor=SYSTEM, grantable=RIGHTS)
    erased_path, _ = privacy_link_create(namespace=support, user_id=erased, actor=SYSTEM, grantable=RIGHTS)
    erasure = erasure_request(namespace=support, user_id=erased, actor=SYSTEM, enqueue=False)
    erasure_execute(erasure_id=erasure.pk)
    body = b"".join(snapshot_export_lines(namespace=support, user_id=person))
    restore = restore_job_create(namespace=support, chunks=[body], filename="person.jsonl", actor=SYSTEM)
    restore_job_execute(restore_id=restore.pk)
    forgotten = Memory.objects.filter(namespace=support).exclude(user_id=person).exclude(pk=memory.pk).first()
    assert forgotten is not None
    # A receiver inside the network (nothing listens there: its deliveries wait, as a down receiver's do),
    # told of the forget below.
    with override_settings(WEBHOOK_ALLOW_PRIVATE_URLS=True):
        webhook = webhook_create(
            namespace=support, url="http://127.0.0.1:9/hooks", events=["memory.forgotten"], actor=SYSTEM
        )
    tombstone = memory_forget(memory=forgotten, actor=SYSTEM, reason="the user asked", force=True)
    (delivery,) = WebhookDelivery.objects.filter(endpoint=webhook)
    values = {
        "slug": support.slug,
        "key_id": key.pk,
        "memory_id": memory.pk,
        "session_pk": session.pk,
        "namespace_id": support.pk,
        "user_id": person,
        "tombstone_id": tombstone.pk,
        "erasure_id": erasure.pk,
        "restore_id": restore.pk,
        "link_id": link.pk,
        "webhook_id": webhook.pk,
        "delivery_id": delivery.pk,
        "token": token_path.rstrip("/").rsplit("/", 1)[-1],
        # An operator of the demo, for the people pages.
        "username": "olivia",
    }
    return Demo(values=values, erased_token=erased_path.rstrip("/").rsplit("/", 1)[-1])


def pages() -> list[str]:
    return [v.name for v in routed_views("console") + routed_views("privacy") if v.name not in NOT_PAGES]


def page_url(name: str, demo: Demo) -> str:
    view = next(v for v in routed_views(name.split(":")[0]) if v.name == name)
    values = dict(demo.values)
    if name in ("privacy:receipt", "privacy:receipt_download"):
        values["token"] = demo.erased_token
    unknown = [p for p in view.params if p not in values]
    assert not unknown, f"{name}: teach tests/browser/test_accessibility.py a value for {unknown}"
    return reverse(name, kwargs={p: values[p] for p in view.params}) + QUERIES.get(name, "")


def axe_violations(driver: WebDriver) -> list[dict[str, Any]]:
    driver.execute_script(AXE)
    result = driver.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        axe.run(document, {resultTypes: ["violations"]})
          .then((r) => done(r.violations.map((v) => ({
            id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.slice(0, 5).map((n) => ({target: n.target.join(" "), summary: n.failureSummary})),
          }))))
          .catch((e) => done({error: String(e)}));
        """
    )
    assert not isinstance(result, dict), result
    return [v for v in result if v["impact"] in FAILING_IMPACTS]


def described(url: str, violations: list[dict[str, Any]]) -> str:
    lines = [url]
    for v in violations:
        lines.append(f"  [{v['impact']}] {v['id']}: {v['help']}")
        lines += [f"      {n['target']}: {n['summary']}".replace("\n", " ") for n in v["nodes"]]
    return "\n".join(lines)


@pytest.fixture
def demo(db) -> Demo:
    return demo_data()


def test_what_is_not_a_page_is_not_one(demo: Demo, alice) -> None:
    """Every pattern left unchecked is routed and is what NOT_PAGES says: a GET gets 405, or a file."""
    routed = {v.name for v in routed_views("console") + routed_views("privacy")}
    assert set(NOT_PAGES) <= routed, f"NOT_PAGES names patterns that are not routed: {set(NOT_PAGES) - routed}"
    client = Client()
    client.force_login(alice)
    for name, why in NOT_PAGES.items():
        response = client.get(page_url(name, demo))
        if why == POST_ONLY:
            assert response.status_code == 405, (name, response.status_code)
        elif why == POLLED:
            assert response.status_code == 302, (name, response.status_code)
        elif why == DOWNLOAD:
            assert response.status_code == 200, (name, response.status_code)
            assert response["Content-Disposition"].startswith("attachment"), name
        else:
            assert response.status_code == 200, (name, response.status_code)
            assert b"<html" not in response.content, name


def test_every_console_and_privacy_page_passes_axe(demo: Demo, chrome: WebDriver, live_server, alice, sign_in) -> None:
    chrome.set_script_timeout(60)
    probe = Client()
    probe.force_login(alice)
    failures = []
    checked = []
    names = sorted(pages(), key=lambda n: n in SIGNED_OUT)
    signed_in = False
    for name in names:
        if name in SIGNED_OUT:
            chrome.delete_all_cookies()
            signed_in = False
        elif name.startswith("console:") and not signed_in:
            sign_in("alice")
            signed_in = True
        url = page_url(name, demo)
        status = probe.get(url).status_code
        assert status != 405, f"{name} refuses a GET: name it in NOT_PAGES as {POST_ONLY!r}"
        assert status < 500, (name, status)
        path = url.split("?", 1)[0]
        for address in [url, *(path + query for query in MORE_STATES.get(name, []))]:
            chrome.get(live_server.url + address)
            wait(chrome).until(lambda d: d.execute_script("return document.readyState") == "complete")
            if name in LOADED:
                wait(chrome).until(ec.presence_of_element_located((By.CSS_SELECTOR, LOADED[name])))
            assert "Server Error" not in chrome.title, address
            violations = axe_violations(chrome)
            if violations:
                failures.append(described(address, violations))
        checked.append(name)
    assert set(checked) == set(pages())
    assert not failures, "axe found serious or critical violations:\n" + "\n".join(failures)
