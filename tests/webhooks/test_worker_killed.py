"""A worker killed in the middle of a delivery: its rows are taken again once its lease runs out, and the
receiver acknowledges each event once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from memoryadmin.memories.services import memory_create
from memoryadmin.webhooks.models import DeliveryState, WebhookDelivery
from tests.conftest import SYSTEM, redis_test_url
from tests.webhooks.conftest import wait_for
from tests.webhooks.receiver import Answer

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[2]
LEASE = 4.0


def start_worker_process(name: str, log: Path) -> subprocess.Popen:
    database = connection.settings_dict
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/{database['NAME']}",
        "REDIS_URL": redis_test_url(),
        "CELERY_BROKER_URL": redis_test_url(),
        # The broker hands an unacknowledged task to the next worker after a second.
        "TEST_VISIBILITY_TIMEOUT": "1",
        "WEBHOOK_ALLOW_PRIVATE_URLS": "true",
        "WEBHOOK_LEASE_SECONDS": str(LEASE),
        "WEBHOOK_TIMEOUT_SECONDS": "2",
        "WEBHOOK_RETRY_BASE_SECONDS": "0.1",
        "SECRET_KEY": settings.SECRET_KEY,
        "TOMBSTONE_KEY": settings.TOMBSTONE_KEY,
    }
    return subprocess.Popen(
        [sys.executable, "-m", "tests.extraction.worker_main", name],
        cwd=ROOT,
        env=env,
        stdout=log.open("ab"),
        stderr=subprocess.STDOUT,
    )


def test_a_row_held_by_a_killed_worker_is_delivered_later_once(namespace, make_endpoint, receiver, tmp_path) -> None:
    make_endpoint(namespace)
    # The first request is held (the receiver is slow) while its worker is killed; it is never acknowledged.
    receiver.answer(Answer(503, delay=30))
    log = tmp_path / "workers.log"
    first = start_worker_process("first", log)
    try:
        memories = [
            memory_create(namespace=namespace, user_id="alice", text=f"Alice fact {i}", actor=SYSTEM).memory
            for i in range(3)
        ]
        wait_for(lambda: receiver.arrivals >= 1, timeout=30)
        held = WebhookDelivery.objects.filter(leased_until__isnull=False).count()
        assert held >= 1  # the killed worker's rows are leased to it
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
    finally:
        if first.poll() is None:
            first.kill()

    second = start_worker_process("second", log)
    try:
        wait_for(lambda: len(receiver.acknowledged()) == 3, timeout=60)
        wait_for(lambda: WebhookDelivery.objects.filter(state=DeliveryState.DELIVERED).count() == 3, timeout=10)
    finally:
        second.send_signal(signal.SIGTERM)
        try:
            second.wait(timeout=15)
        except subprocess.TimeoutExpired:
            second.kill()

    acknowledged = receiver.acknowledged()
    ids = [r.event_id for r in acknowledged]
    assert len(set(ids)) == 3  # each event acknowledged once by id
    assert [r.event["data"]["memory_id"] for r in acknowledged] == [str(m.pk) for m in memories]
    first_row = WebhookDelivery.objects.order_by("id").first()
    assert first_row.attempts == 1  # the killed attempt was never recorded; the retaken one was
