"""A receiver on loopback, endpoints that may send to it, and a real Celery worker."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from celery.contrib.testing.worker import start_worker

from memoryadmin.celery import app as celery_app
from memoryadmin.webhooks.events import EVENT_TYPES
from memoryadmin.webhooks.models import WebhookEndpoint
from memoryadmin.webhooks.services import webhook_create
from tests.conftest import SYSTEM
from tests.extraction.conftest import wait_for as extraction_wait_for
from tests.webhooks.receiver import Receiver


@pytest.fixture(autouse=True)
def _webhook_settings(settings) -> None:
    # The receiver is on loopback, which production refuses; the SSRF tests turn this off again.
    settings.WEBHOOK_ALLOW_PRIVATE_URLS = True
    settings.WEBHOOK_RETRY_BASE_SECONDS = 0.1
    settings.WEBHOOK_RETRY_MAX_SECONDS = 0.5
    settings.WEBHOOK_TIMEOUT_SECONDS = 5.0


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = Receiver().start()
    yield server
    server.stop()


@pytest.fixture
def make_endpoint(receiver) -> Callable[..., WebhookEndpoint]:
    def make(namespace, events=EVENT_TYPES, url: str | None = None) -> WebhookEndpoint:
        return webhook_create(namespace=namespace, url=url or receiver.url, events=list(events), actor=SYSTEM)

    return make


@pytest.fixture
def celery_worker(transactional_db) -> Iterator[object]:
    with start_worker(celery_app, pool="solo", perform_ping_check=False, shutdown_timeout=15) as worker:
        yield worker


def wait_for(predicate: Callable[[], object], timeout: float = 20.0, interval: float = 0.05) -> object:
    """The extraction tests' wait, with a longer default: a delivery waits out a worker's start and a retry."""
    return extraction_wait_for(predicate, timeout=timeout, interval=interval)
