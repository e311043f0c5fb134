"""The SSRF guard: receivers on private, loopback, link-local, multicast or reserved addresses are refused
unless the operator allows them, when the endpoint is saved and again when each delivery connects."""

from __future__ import annotations

import ipaddress

import pytest

from memoryadmin.core.errors import InvalidInput
from memoryadmin.memories.services import memory_create
from memoryadmin.webhooks.addresses import address_allowed, url_clean
from memoryadmin.webhooks.delivery import deliveries_send
from memoryadmin.webhooks.models import WebhookDelivery
from tests.conftest import SYSTEM, ApiClient

pytestmark = pytest.mark.django_db

REFUSED = [
    "http://127.0.0.1:8000/hook",
    "http://localhost/hook",
    "http://10.1.2.3/hook",
    "http://172.16.0.1/hook",
    "http://192.168.1.1/hook",
    "http://169.254.169.254/latest/meta-data",
    "http://100.64.0.1/hook",
    "http://0.0.0.0/hook",
    "http://224.0.0.1/hook",
    "http://240.0.0.1/hook",
    "http://[::1]/hook",
    "http://[fe80::1]/hook",
    "http://[fc00::1]/hook",
    "http://[::ffff:127.0.0.1]/hook",
    "http://2130706433/hook",  # 127.0.0.1 written as one number
]


@pytest.fixture(autouse=True)
def _production_rules(settings) -> None:
    settings.WEBHOOK_ALLOW_PRIVATE_URLS = False
    settings.WEBHOOK_ALLOWED_NETWORKS = []


@pytest.mark.parametrize("url", REFUSED)
def test_a_private_address_is_refused(url) -> None:
    with pytest.raises(InvalidInput) as refused:
        url_clean(url)
    assert refused.value.code == "url_not_allowed"


def test_public_addresses_pass() -> None:
    assert address_allowed(ipaddress.ip_address("93.184.215.14"))
    assert address_allowed(ipaddress.ip_address("2606:4700::1111"))
    assert url_clean("https://93.184.215.14/hook") == "https://93.184.215.14/hook"


def test_the_api_refuses_a_loopback_receiver(namespace, make_key, receiver) -> None:
    admin = ApiClient(make_key(namespace, "webhooks")[1])
    response = admin.post("/api/v1/webhooks", {"url": receiver.url, "events": ["memory.created"]})
    assert response.status_code == 422
    body = response.json()["error"]
    assert body["code"] == "url_not_allowed"
    assert [f["field"] for f in body["details"]["fields"]] == ["url"]
    assert "127.0.0.1" not in body["message"]


def test_an_operator_may_allow_a_network(settings, receiver) -> None:
    settings.WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.0/8"]
    assert url_clean(receiver.url) == receiver.url
    with pytest.raises(InvalidInput):
        url_clean("http://10.0.0.1/hook")


def test_a_delivery_is_checked_again_when_it_connects(settings, namespace, make_endpoint, receiver) -> None:
    settings.WEBHOOK_ALLOW_PRIVATE_URLS = True
    endpoint = make_endpoint(namespace)
    memory_create(namespace=namespace, user_id="alice", text="Alice likes tea", actor=SYSTEM)
    settings.WEBHOOK_ALLOW_PRIVATE_URLS = False  # the address became one we refuse (a DNS answer changed)

    deliveries_send(endpoint.pk)

    assert receiver.answered() == []
    row = WebhookDelivery.objects.get()
    assert row.state == "pending"
    assert "private" in row.last_error
