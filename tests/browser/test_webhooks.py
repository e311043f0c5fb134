"""A namespace's webhooks in headless Chromium: add an endpoint, send a test event, see it delivered, redeliver."""

from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec

from memoryadmin.webhooks.delivery import deliveries_send
from memoryadmin.webhooks.models import WebhookDelivery, WebhookEndpoint
from tests.browser.conftest import policy_violations, wait
from tests.webhooks.receiver import Receiver

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def receiver(settings):
    settings.WEBHOOK_ALLOW_PRIVATE_URLS = True
    server = Receiver().start()
    yield server
    server.stop()


def test_an_admin_adds_an_endpoint_tests_it_and_redelivers(sign_in, live_server, alice, namespace, receiver):
    driver = sign_in("alice")
    driver.get(f"{live_server.url}/namespaces/{namespace.slug}/")
    driver.find_element(By.LINK_TEXT, "Webhooks").click()
    wait(driver).until(ec.presence_of_element_located((By.ID, "id_webhook_url")))
    driver.find_element(By.ID, "id_webhook_url").send_keys(receiver.url)
    driver.find_element(By.ID, "id_webhook_description").send_keys("search index")
    driver.find_element(By.CSS_SELECTOR, "#endpoints form button[type=submit]").click()

    secret = wait(driver).until(ec.presence_of_element_located((By.ID, "new-secret"))).text
    endpoint = WebhookEndpoint.objects.get()
    assert secret == endpoint.secret

    driver.find_element(By.LINK_TEXT, "search index").click()
    wait(driver).until(ec.text_to_be_present_in_element((By.ID, "deliveries"), "Nothing sent yet"))
    driver.find_element(By.XPATH, "//button[normalize-space()='Send test event']").click()
    wait(driver).until(ec.text_to_be_present_in_element((By.ID, "deliveries"), "webhook.test"))

    deliveries_send(endpoint.pk)  # what a worker does
    (got,) = receiver.acknowledged()
    assert got.event["type"] == "webhook.test"
    driver.find_element(By.LINK_TEXT, "Refresh").click()
    delivery = WebhookDelivery.objects.get()
    row = f"#delivery-{delivery.pk}"
    wait(driver).until(ec.text_to_be_present_in_element((By.CSS_SELECTOR, row), "HTTP 200"))
    assert "delivered" in driver.find_element(By.CSS_SELECTOR, row).text

    driver.find_element(By.CSS_SELECTOR, f"{row} button").click()
    wait(driver).until(ec.text_to_be_present_in_element((By.CSS_SELECTOR, row), "pending"))
    delivery.refresh_from_db()
    assert delivery.state == "pending"

    driver.find_element(By.XPATH, "//button[normalize-space()='Pause']").click()
    wait(driver).until(ec.text_to_be_present_in_element((By.ID, "endpoint-status"), "paused"))
    endpoint.refresh_from_db()
    assert endpoint.status == "paused"
    assert policy_violations(driver) == []
