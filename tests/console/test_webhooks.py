"""A namespace's webhooks page: admins add, pause, test and remove endpoints; everyone with a role sees
their recent deliveries; another namespace's endpoint is a 404."""

from __future__ import annotations

import pytest

from memoryadmin.memories.services import memory_create
from memoryadmin.webhooks.delivery import deliveries_send
from memoryadmin.webhooks.models import WebhookDelivery, WebhookEndpoint
from memoryadmin.webhooks.services import webhook_create
from tests.conftest import SYSTEM
from tests.webhooks.receiver import Answer, Receiver


@pytest.fixture
def receiver(settings):
    settings.WEBHOOK_ALLOW_PRIVATE_URLS = True
    server = Receiver().start()
    yield server
    server.stop()


def test_an_admin_adds_an_endpoint_and_sees_its_secret_once(admin_client, namespace, receiver) -> None:
    response = admin_client.post(
        "/namespaces/alpha/webhooks/new/",
        {"url": receiver.url, "description": "search index", "events": ["memory.created", "erasure.completed"]},
    )
    assert response.status_code == 200
    endpoint = WebhookEndpoint.objects.get()
    assert endpoint.secret in response.content.decode()
    assert endpoint.events == ["memory.created", "erasure.completed"]
    page = admin_client.get("/namespaces/alpha/webhooks/").content.decode()
    assert "search index" in page
    assert endpoint.secret not in page


def test_a_refused_url_is_said_next_to_the_field(admin_client, namespace, settings) -> None:
    settings.WEBHOOK_ALLOW_PRIVATE_URLS = False
    response = admin_client.post(
        "/namespaces/alpha/webhooks/new/", {"url": "http://10.0.0.7/hook", "events": ["memory.created"]}
    )
    assert response.status_code == 422
    assert "private" in response.content.decode()
    assert not WebhookEndpoint.objects.exists()


def test_the_endpoint_page_shows_deliveries_and_redelivers_one(admin_client, namespace, receiver) -> None:
    endpoint = webhook_create(namespace=namespace, url=receiver.url, events=["memory.created"], actor=SYSTEM)
    receiver.answer(Answer(500))
    memory_create(namespace=namespace, user_id="bob", text="Bob likes tea", actor=SYSTEM)
    deliveries_send(endpoint.pk)
    page = admin_client.get(f"/namespaces/alpha/webhooks/{endpoint.pk}/").content.decode()
    assert "memory.created" in page
    assert "HTTP 500" in page

    delivery = WebhookDelivery.objects.get()
    WebhookDelivery.objects.filter(pk=delivery.pk).update(state="failed")
    response = admin_client.post(
        f"/namespaces/alpha/webhooks/{endpoint.pk}/deliveries/{delivery.pk}/redeliver/", headers={"HX-Request": "true"}
    )
    assert response.status_code == 200
    assert f'id="delivery-{delivery.pk}"' in response.content.decode()
    delivery.refresh_from_db()
    assert delivery.state == "pending"


def test_pause_test_and_remove(admin_client, namespace, receiver) -> None:
    endpoint = webhook_create(namespace=namespace, url=receiver.url, events=["memory.created"], actor=SYSTEM)
    base = f"/namespaces/alpha/webhooks/{endpoint.pk}"
    assert admin_client.post(f"{base}/test/", headers={"HX-Request": "true"}).status_code == 200
    assert WebhookDelivery.objects.filter(event_type="webhook.test").count() == 1
    admin_client.post(f"{base}/status/")
    endpoint.refresh_from_db()
    assert endpoint.status == "paused"
    assert admin_client.post(f"{base}/test/", headers={"HX-Request": "true"}).status_code == 409
    response = admin_client.post(f"{base}/delete/")
    assert response.status_code == 302
    assert not WebhookEndpoint.objects.exists()


def test_a_failing_endpoint_shows_on_the_namespace_page(viewer_client, namespace, receiver, settings) -> None:
    settings.WEBHOOK_RETRY_FOR_SECONDS = 0
    endpoint = webhook_create(namespace=namespace, url=receiver.url, events=["memory.created"], actor=SYSTEM)
    receiver.answer(Answer(500))
    memory_create(namespace=namespace, user_id="bob", text="Bob likes tea", actor=SYSTEM)
    deliveries_send(endpoint.pk)
    assert "1 webhook endpoint failing" in viewer_client.get("/namespaces/alpha/").content.decode()


def test_a_viewer_sees_but_cannot_add(viewer_client, namespace, receiver) -> None:
    webhook_create(namespace=namespace, url=receiver.url, events=["memory.created"], actor=SYSTEM)
    page = viewer_client.get("/namespaces/alpha/webhooks/").content.decode()
    assert receiver.url in page
    assert "Add an endpoint" not in page
    response = viewer_client.post(
        "/namespaces/alpha/webhooks/new/", {"url": receiver.url, "events": ["memory.created"]}
    )
    assert response.status_code == 403


def test_it_checks_the_namespace_of_the_endpoint(admin_client, namespace, other_namespace, receiver) -> None:
    theirs = webhook_create(namespace=other_namespace, url=receiver.url, events=["memory.created"], actor=SYSTEM)
    assert admin_client.get(f"/namespaces/alpha/webhooks/{theirs.pk}/").status_code == 404
    assert admin_client.post(f"/namespaces/alpha/webhooks/{theirs.pk}/delete/").status_code == 404
    assert WebhookEndpoint.objects.filter(pk=theirs.pk).exists()
