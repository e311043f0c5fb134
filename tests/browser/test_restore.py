"""Applying a snapshot restore from its dry run, in headless Chromium."""

from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec

from memoryadmin.governance.models import SnapshotRestore
from memoryadmin.governance.restore_jobs import restore_job_create, restore_job_execute
from memoryadmin.governance.snapshots import snapshot_export_lines
from memoryadmin.memories.models import Memory
from tests.browser.conftest import policy_violations, wait
from tests.conftest import SYSTEM

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_admin_reads_the_dry_run_by_text_and_confirms_before_applying(
    sign_in, live_server, alice, namespace, make_memory
):
    make_memory("User likes bebop records", user_id="u1")
    body = b"".join(snapshot_export_lines(namespace=namespace))
    Memory.objects.all().delete()
    job = restore_job_create(namespace=namespace, chunks=[body], filename="alpha.jsonl", actor=SYSTEM)
    restore_job_execute(restore_id=job.pk)
    driver = sign_in("alice")
    driver.get(live_server.url + f"/governance/snapshots/restores/{job.pk}/")
    assert "User likes bebop records" in driver.find_element(By.CSS_SELECTOR, ".restore-samples").text

    apply = driver.find_element(By.XPATH, "//button[normalize-space()='Apply restore']")
    apply.click()
    # Not ticked: the browser keeps the form, and nothing is written.
    job.refresh_from_db()
    assert job.dry_run and not Memory.objects.exists()

    driver.find_element(By.NAME, "confirm_apply").click()
    driver.find_element(By.XPATH, "//button[normalize-space()='Apply restore']").click()
    # Queued for a worker: the page says it is applying.
    wait(driver).until(ec.text_to_be_present_in_element((By.ID, "restore-status"), "Applying"))
    assert not SnapshotRestore.objects.get(pk=job.pk).dry_run
    assert policy_violations(driver) == []
