"""The webhooks API: the `webhooks` scope, the namespace wall, bad input answered with the error body."""

from __future__ import annotations

import pytest

from memoryadmin.memories.services import memory_create
from memoryadmin.webhooks.delivery import deliveries_send
from memoryadmin.webhooks.models import WebhookDelivery
from tests.conftest import SYSTEM, ApiClient

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin(namespace, make_key) -> ApiClient:
    return ApiClient(make_key(namespace, "read,webhooks")[1])


@pytest.fixture
def other_admin(other_namespace, make_key) -> ApiClient:
    return ApiClient(make_key(other_namespace, "read,webhooks")[1])


def add(client: ApiClient, url: str, events=("memory.created", "memory.forgotten")) -> dict:
    response = client.post("/api/v1/webhooks", {"url": url, "events": list(events), "description": "search index"})
    assert response.status_code == 201, response.json()
    return response.json()


def test_it_works(admin, receiver) -> None:
    created = add(admin, receiver.url)
    assert created["secret"].startswith("whsec_")
    assert created["status"] == "active"
    assert created["failing"] is False

    listed = admin.get("/api/v1/webhooks").json()["items"]
    assert [e["id"] for e in listed] == [created["id"]]
    assert "secret" not in listed[0]  # shown once, at creation

    changed = admin.patch(f"/api/v1/webhooks/{created['id']}", {"status": "paused", "events": ["memory.updated"]})
    assert changed.status_code == 200
    assert changed.json()["status"] == "paused"
    assert changed.json()["events"] == ["memory.updated"]

    rotated = admin.post(f"/api/v1/webhooks/{created['id']}/secret")
    assert rotated.status_code == 200
    assert rotated.json()["secret"] not in (created["secret"], "")

    assert admin.delete(f"/api/v1/webhooks/{created['id']}").status_code == 204
    assert admin.get(f"/api/v1/webhooks/{created['id']}").status_code == 404


def test_a_test_event_is_delivered_and_listed_and_can_be_redelivered(admin, receiver, namespace) -> None:
    created = add(admin, receiver.url)
    test = admin.post(f"/api/v1/webhooks/{created['id']}/test")
    assert test.status_code == 202
    assert test.json()["event_type"] == "webhook.test"
    assert test.json()["state"] == "pending"

    deliveries_send(created["id"])
    (got,) = receiver.acknowledged()
    assert got.event["type"] == "webhook.test"

    page = admin.get(f"/api/v1/webhooks/{created['id']}/deliveries").json()
    (item,) = page["items"]
    assert item["state"] == "delivered"
    assert item["response_status"] == 200
    assert item["attempts"] == 1
    assert page["next_cursor"] is None

    pending_again = admin.post(f"/api/v1/webhooks/{created['id']}/deliveries/{item['id']}/redeliver")
    assert pending_again.status_code == 202
    assert pending_again.json()["state"] == "pending"
    again = admin.post(f"/api/v1/webhooks/{created['id']}/deliveries/{item['id']}/redeliver")
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "pending"
    deliveries_send(created["id"])
    first, second = receiver.acknowledged()
    assert first.event_id == second.event_id  # the same event, so a receiver keeps it once


def test_deliveries_page_by_cursor(admin, receiver, namespace) -> None:
    created = add(admin, receiver.url)
    for i in range(5):
        memory_create(namespace=namespace, user_id="alice", text=f"Alice fact {i}", actor=SYSTEM)
    first = admin.get(f"/api/v1/webhooks/{created['id']}/deliveries?limit=3").json()
    second = admin.get(f"/api/v1/webhooks/{created['id']}/deliveries?limit=3&cursor={first['next_cursor']}").json()
    ids = [d["id"] for d in first["items"] + second["items"]]
    assert ids == sorted(ids, reverse=True)
    assert len(set(ids)) == 5
    assert second["next_cursor"] is None


def test_it_requires_the_webhooks_scope(api, receiver) -> None:
    # `api` holds read, write and erase: none of them manages webhooks.
    response = api.get("/api/v1/webhooks")
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "forbidden"
    assert api.post("/api/v1/webhooks", {"url": receiver.url, "events": ["memory.created"]}).status_code == 403


def test_it_checks_the_namespace(admin, other_admin, receiver) -> None:
    theirs = add(other_admin, receiver.url)
    delivery = other_admin.post(f"/api/v1/webhooks/{theirs['id']}/test").json()
    base = f"/api/v1/webhooks/{theirs['id']}"
    answers = [
        admin.get(base),
        admin.patch(base, {"status": "paused"}),
        admin.delete(base),
        admin.post(f"{base}/secret"),
        admin.post(f"{base}/test"),
        admin.get(f"{base}/deliveries"),
        admin.post(f"{base}/deliveries/{delivery['id']}/redeliver"),
    ]
    assert [a.status_code for a in answers] == [404] * len(answers)
    assert all(a.json()["error"]["code"] == "not_found" for a in answers)
    assert admin.get("/api/v1/webhooks").json()["items"] == []
    assert WebhookDelivery.objects.filter(endpoint_id=theirs["id"]).count() == 1


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"url": "ftp://example.com/x", "events": ["memory.created"]}, "url_not_allowed"),
        ({"url": "http://user:pw@example.com/x", "events": ["memory.created"]}, "url_not_allowed"),
        ({"url": "not a url", "events": ["memory.created"]}, "url_not_allowed"),
        ({"url": "https://example.com/x", "events": []}, "validation_error"),
        ({"url": "https://example.com/x", "events": ["memory.exploded"]}, "validation_error"),
        ({"url": "https://example.com/x", "events": ["memory.created"], "colour": "red"}, "validation_error"),
        ({"events": ["memory.created"]}, "validation_error"),
    ],
)
def test_bad_input_is_refused_with_the_error_body(admin, body, code) -> None:
    response = admin.post("/api/v1/webhooks", body)
    assert response.status_code == 422, response.json()
    assert response.json()["error"]["code"] == code
    assert admin.get("/api/v1/webhooks").json()["items"] == []


def test_an_unknown_id_is_a_404(admin) -> None:
    assert admin.get("/api/v1/webhooks/00000000-0000-0000-0000-000000000000").status_code == 404
    assert admin.get("/api/v1/webhooks/not-a-uuid").status_code in (400, 422)
