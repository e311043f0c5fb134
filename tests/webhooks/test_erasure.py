"""Erasure downstream: the receipt lists each endpoint told of the erasure, and whether and when it
acknowledged; the receiver learns whom to erase, and our rows forget it once acknowledged."""

from __future__ import annotations

import json
from urllib.parse import urlparse

import pytest

from memoryadmin.governance.erasure import erasure_execute, erasure_receipt, erasure_request, receipt_verify
from memoryadmin.governance.privacy_links import RIGHTS, privacy_link_create
from memoryadmin.memories.services import memory_create
from memoryadmin.webhooks.delivery import deliveries_send
from memoryadmin.webhooks.models import WebhookDelivery
from tests.conftest import SYSTEM
from tests.webhooks.receiver import Answer

pytestmark = pytest.mark.django_db


def erase(namespace, user_id: str):
    erasure = erasure_request(namespace=namespace, user_id=user_id, actor=SYSTEM, enqueue=False)
    return erasure_execute(erasure_id=erasure.pk)


def test_the_receipt_lists_the_endpoint_and_its_acknowledgement(namespace, make_endpoint, receiver, api) -> None:
    told = make_endpoint(namespace, events=["erasure.completed"])
    make_endpoint(namespace, events=["memory.created"])  # not subscribed to erasures: not listed
    memory_create(namespace=namespace, user_id="alice-42", text="Alice likes tea", actor=SYSTEM)

    erasure = erase(namespace, "alice-42")
    assert erasure.status == "completed"
    (pending,) = erasure_receipt(erasure)["downstream"]
    assert pending["endpoint_id"] == str(told.pk)
    assert pending["acknowledged"] is False
    assert pending["acknowledged_at"] is None

    deliveries_send(told.pk)

    (got,) = receiver.acknowledged()
    assert got.event["type"] == "erasure.completed"
    assert got.event["data"]["user_id"] == "alice-42"  # the receiver must know whom to erase
    assert got.event["data"]["erasure_id"] == str(erasure.pk)
    shown = api.get(f"/api/v1/erasures/{erasure.pk}").json()["receipt"]
    (done,) = shown["downstream"]
    assert done["acknowledged"] is True
    assert done["acknowledged_at"] is not None
    assert done["receiver"] == "127.0.0.1"
    assert done["event_id"] == got.event_id
    # Nothing more about the person than the receipt carried before, and it still verifies.
    assert "alice-42" not in json.dumps(shown)
    assert receipt_verify(shown)
    # Acknowledged, the row keeps no user id.
    assert "alice-42" not in json.dumps(WebhookDelivery.objects.get(event_type="erasure.completed").payload)


def test_an_unacknowledged_erasure_shows_as_not_confirmed(namespace, make_endpoint, receiver, settings) -> None:
    settings.WEBHOOK_RETRY_FOR_SECONDS = 0
    told = make_endpoint(namespace, events=["erasure.completed"])
    receiver.answer(Answer(500))
    erasure = erase(namespace, "bob")

    deliveries_send(told.pk)

    (item,) = erasure_receipt(erasure)["downstream"]
    assert item["acknowledged"] is False
    assert item["state"] == "failed"
    assert item["attempts"] == 1


def test_the_persons_receipt_page_says_which_systems_were_told(namespace, make_endpoint, receiver, client) -> None:
    endpoint = make_endpoint(namespace, events=["erasure.completed"])
    endpoint.description = "Search index"
    endpoint.save(update_fields=["description"])
    url, _ = privacy_link_create(namespace=namespace, user_id="alice", ttl_seconds=3600, actor=SYSTEM, grantable=RIGHTS)
    erasure = erase(namespace, "alice")
    deliveries_send(endpoint.pk)

    page = client.get(f"{urlparse(url).path}erasures/{erasure.pk}/").content.decode()
    assert "Systems we told" in page
    assert "Search index: confirmed on" in page
