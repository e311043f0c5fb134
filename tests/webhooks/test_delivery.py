"""Delivery to a real receiver on loopback by a real worker: signed, retried, in order per person."""

from __future__ import annotations

import base64
import hashlib
import hmac

import pytest
from django.utils import timezone

from memoryadmin.memories.services import memory_create
from memoryadmin.webhooks.delivery import deliveries_send
from memoryadmin.webhooks.models import DeliveryState, WebhookDelivery, WebhookEndpoint
from tests.api.test_observability import scrape
from tests.conftest import SYSTEM
from tests.webhooks.conftest import wait_for
from tests.webhooks.receiver import Answer

pytestmark = pytest.mark.django_db(transaction=True)


def expected_signature(secret: str, received) -> str:
    key = base64.b64decode(secret.removeprefix("whsec_"))
    signed = f"{received.headers['webhook-id']}.{received.headers['webhook-timestamp']}.".encode() + received.body
    return "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()


def test_a_created_memory_reaches_the_receiver_signed(namespace, make_endpoint, receiver, celery_worker) -> None:
    endpoint = make_endpoint(namespace)
    result = memory_create(namespace=namespace, user_id="alice", text="Alice likes tea", actor=SYSTEM)

    (got,) = wait_for(receiver.acknowledged)
    assert got.headers["webhook-signature"] == expected_signature(endpoint.secret, got)
    assert got.headers["webhook-signature"] != expected_signature("whsec_" + "A" * 32, got)
    event = got.event
    assert event["type"] == "memory.created"
    assert event["id"] == got.event_id
    assert event["namespace"] == namespace.slug
    assert event["data"]["memory_id"] == str(result.memory.pk)
    assert "tea" not in got.body.decode()
    row = wait_for(lambda: WebhookDelivery.objects.filter(state=DeliveryState.DELIVERED).first())
    assert str(row.event_id) == got.event_id
    assert row.attempts == 1
    assert row.response_status == 200
    assert row.latency_ms is not None


def test_a_failed_delivery_is_retried_until_the_receiver_takes_it(
    namespace, make_endpoint, receiver, celery_worker
) -> None:
    make_endpoint(namespace)
    receiver.answer(Answer(500), Answer(503))
    memory_create(namespace=namespace, user_id="alice", text="Alice likes tea", actor=SYSTEM)

    (got,) = wait_for(receiver.acknowledged)
    statuses = [r.status for r in receiver.answered()]
    assert statuses == [500, 503, 200]
    assert {r.event_id for r in receiver.answered()} == {got.event_id}  # the same event id each time
    row = wait_for(lambda: WebhookDelivery.objects.filter(state=DeliveryState.DELIVERED).first())
    assert row.attempts == 3


def test_a_persons_events_arrive_in_order_even_when_one_is_retried(
    namespace, make_endpoint, receiver, celery_worker
) -> None:
    make_endpoint(namespace, events=["memory.created"])
    receiver.answer(Answer(500), Answer(500))  # the first two requests fail, whoever's they are
    alice = [
        memory_create(namespace=namespace, user_id="alice", text=f"Alice fact {i}", actor=SYSTEM).memory
        for i in range(4)
    ]
    bob = memory_create(namespace=namespace, user_id="bob", text="Bob fact", actor=SYSTEM).memory

    wait_for(lambda: len(receiver.acknowledged()) == 5)
    answered = receiver.answered()
    alice_ids = [str(m.pk) for m in alice]
    assert len(answered) == 7  # two failures, then each event once
    about = [r.event["data"]["memory_id"] for r in answered]
    places = [alice_ids.index(memory_id) for memory_id in about if memory_id in alice_ids]
    # Every request for alice, retries included, follows her order: none overtakes one that failed.
    assert places == sorted(places)
    acknowledged = [r.event["data"]["memory_id"] for r in receiver.acknowledged()]
    assert [m for m in acknowledged if m in alice_ids] == alice_ids
    assert str(bob.pk) in acknowledged


def test_a_delivery_given_up_marks_the_endpoint_failing_and_the_next_success_clears_it(
    namespace, make_endpoint, receiver, settings
) -> None:
    settings.WEBHOOK_RETRY_FOR_SECONDS = 0  # no retries: the first failure is the last
    endpoint = make_endpoint(namespace)
    receiver.answer(Answer(500))
    memory_create(namespace=namespace, user_id="alice", text="Alice likes tea", actor=SYSTEM)
    memory_create(namespace=namespace, user_id="alice", text="Alice likes jazz", actor=SYSTEM)

    deliveries_send(endpoint.pk)

    first, second = WebhookDelivery.objects.order_by("id")
    assert first.state == DeliveryState.FAILED
    assert first.last_error.startswith("HTTP 500")
    # Given up, it no longer holds the person's next event back.
    assert second.state == DeliveryState.DELIVERED
    endpoint.refresh_from_db()
    assert endpoint.failing_since is None
    assert endpoint.last_error == ""

    receiver.answer(Answer(500))
    memory_create(namespace=namespace, user_id="bob", text="Bob likes tea", actor=SYSTEM)
    deliveries_send(endpoint.pk)
    endpoint.refresh_from_db()
    assert endpoint.failing
    assert "HTTP 500" in endpoint.last_error


def test_a_receiver_that_never_answers_times_out(namespace, make_endpoint, receiver, settings) -> None:
    settings.WEBHOOK_TIMEOUT_SECONDS = 0.5
    settings.WEBHOOK_RETRY_BASE_SECONDS = settings.WEBHOOK_RETRY_MAX_SECONDS = 60
    endpoint = make_endpoint(namespace)
    receiver.answer(Answer(200, delay=5))
    memory_create(namespace=namespace, user_id="alice", text="Alice likes tea", actor=SYSTEM)

    deliveries_send(endpoint.pk)

    row = WebhookDelivery.objects.get()
    assert row.state == DeliveryState.PENDING
    assert row.attempts == 1
    assert row.last_error == "the receiver did not answer in time"
    assert row.leased_until is None


def test_a_paused_endpoint_is_sent_nothing(namespace, make_endpoint, receiver) -> None:
    endpoint = make_endpoint(namespace)
    memory_create(namespace=namespace, user_id="alice", text="Alice likes tea", actor=SYSTEM)
    WebhookEndpoint.objects.filter(pk=endpoint.pk).update(status="paused")

    assert deliveries_send(endpoint.pk) == 0
    assert receiver.answered() == []
    assert WebhookDelivery.objects.get().state == DeliveryState.PENDING


def test_a_person_waiting_for_a_retry_holds_back_only_their_own_events(
    namespace, make_endpoint, receiver, settings
) -> None:
    settings.WEBHOOK_RETRY_BASE_SECONDS = settings.WEBHOOK_RETRY_MAX_SECONDS = 60
    endpoint = make_endpoint(namespace, events=["memory.created"])
    receiver.answer(Answer(500))
    for i in range(30):
        memory_create(namespace=namespace, user_id="alice", text=f"Alice fact {i}", actor=SYSTEM)
    bob = memory_create(namespace=namespace, user_id="bob", text="Bob fact", actor=SYSTEM).memory

    deliveries_send(endpoint.pk)

    assert [r.event["data"]["memory_id"] for r in receiver.acknowledged()] == [str(bob.pk)]
    assert WebhookDelivery.objects.filter(state=DeliveryState.PENDING).count() == 30
    assert WebhookDelivery.objects.filter(attempts=1, state=DeliveryState.PENDING).count() == 1


def test_a_burst_of_commits_queues_one_task_until_it_has_sent(namespace, make_endpoint, receiver, redis_client) -> None:
    endpoint = make_endpoint(namespace)
    for i in range(5):
        memory_create(namespace=namespace, user_id="alice", text=f"Alice fact {i}", actor=SYSTEM)
    assert redis_client.llen("celery") == 1  # the first commit queued the task; the others found it queued

    deliveries_send(endpoint.pk)  # the task: it sends all five, then lets the next commit queue another
    assert len(receiver.acknowledged()) == 5
    memory_create(namespace=namespace, user_id="alice", text="Alice fact 5", actor=SYSTEM)
    assert redis_client.llen("celery") == 2


def test_delivery_outcomes_lag_and_backlog_are_in_the_metrics(namespace, make_endpoint, receiver) -> None:
    endpoint = make_endpoint(namespace)
    receiver.answer(Answer(503))
    memory_create(namespace=namespace, user_id="alice", text="Alice likes tea", actor=SYSTEM)
    deliveries_send(endpoint.pk)
    metrics = scrape()
    assert metrics["memoryadmin_webhook_attempts_total"] == {(("outcome", "retry"),): 1}
    assert metrics["memoryadmin_webhook_deliveries_pending"][()] == 1
    assert metrics["memoryadmin_webhook_oldest_pending_seconds"][()] >= 0

    WebhookDelivery.objects.update(next_attempt_at=timezone.now())  # its retry is due now
    deliveries_send(endpoint.pk)
    metrics = scrape()
    assert metrics["memoryadmin_webhook_attempts_total"][(("outcome", "delivered"),)] == 1
    assert metrics["memoryadmin_webhook_delivery_lag_seconds_count"][()] == 1
    assert metrics["memoryadmin_webhook_deliveries_pending"][()] == 0
    assert metrics["memoryadmin_webhook_endpoints_failing"][()] == 0
