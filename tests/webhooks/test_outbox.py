"""The outbox: delivery rows written in the change's transaction, for subscribed active endpoints only."""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from memoryadmin.conversations.services import NewMessage, session_append_messages, session_delete
from memoryadmin.extraction.services import extraction_run, extraction_schedule
from memoryadmin.governance.forgetting import Policy, forgetting_run
from memoryadmin.memories.services import NewMemory, memory_create, memory_create_many, memory_forget
from memoryadmin.webhooks.models import WebhookDelivery
from memoryadmin.webhooks.services import webhook_update
from tests.conftest import SYSTEM

pytestmark = pytest.mark.django_db


class Boom(Exception):
    pass


def outbox_statements(queries: CaptureQueriesContext) -> list[str]:
    """The statements that read the endpoints or write the outbox."""
    return [q["sql"].strip() for q in queries if "webhooks_webhook" in q["sql"]]


def test_a_change_that_rolls_back_leaves_no_event(namespace, make_endpoint) -> None:
    make_endpoint(namespace)
    with pytest.raises(Boom), transaction.atomic():
        memory_create(namespace=namespace, user_id="alice", text="Alice likes tea", actor=SYSTEM)
        assert WebhookDelivery.objects.count() == 1  # written inside the transaction...
        raise Boom
    assert WebhookDelivery.objects.count() == 0  # ...and gone with it

    memory_create(namespace=namespace, user_id="alice", text="Alice likes tea", actor=SYSTEM)
    assert list(WebhookDelivery.objects.values_list("event_type", flat=True)) == ["memory.created"]


def test_it_writes_rows_only_for_subscribed_active_endpoints(namespace, other_namespace, make_endpoint) -> None:
    created_only = make_endpoint(namespace, events=["memory.created"])
    forgotten_only = make_endpoint(namespace, events=["memory.forgotten"])
    paused = make_endpoint(namespace, events=["memory.created"])
    webhook_update(endpoint=paused, actor=SYSTEM, status="paused")
    elsewhere = make_endpoint(other_namespace)

    result = memory_create(namespace=namespace, user_id="alice", text="Alice likes tea", actor=SYSTEM)
    memory_forget(memory=result.memory, actor=SYSTEM)

    rows = {(row.endpoint_id, row.event_type) for row in WebhookDelivery.objects.all()}
    assert rows == {(created_only.pk, "memory.created"), (forgotten_only.pk, "memory.forgotten")}
    assert not WebhookDelivery.objects.filter(endpoint__in=[paused, elsewhere]).exists()


def test_a_body_carries_ids_and_what_changed_never_the_text(namespace, make_endpoint) -> None:
    make_endpoint(namespace)
    result = memory_create(namespace=namespace, user_id="alice", text="Alice's pin is 4321", actor=SYSTEM)
    memory_forget(memory=result.memory, actor=SYSTEM, reason="Alice asked: her pin 4321")

    created, forgotten = WebhookDelivery.objects.order_by("id")
    assert created.payload["data"]["memory_id"] == str(result.memory.pk)
    assert created.payload["data"]["memory_type"] == "semantic"
    assert forgotten.payload["type"] == "memory.forgotten"
    assert forgotten.payload["data"]["memory_id"] == str(result.memory.pk)
    for row in (created, forgotten):
        assert "4321" not in str(row.payload)
        # A person is named to the receiver by nothing but ids; ordering uses the trail's keyed hash.
        assert "alice" not in str(row.payload)
        assert row.subject_key and row.subject_key == created.subject_key


def test_a_batch_of_memories_is_one_insert_of_its_events(namespace, make_endpoint) -> None:
    make_endpoint(namespace)
    make_endpoint(namespace)
    items = [NewMemory(user_id=f"user{i % 3}", text=f"Fact number {i} about the weather") for i in range(30)]
    with CaptureQueriesContext(connection) as queries:
        memory_create_many(namespace=namespace, actor=SYSTEM, items=items)
    # The endpoints are found and the rows written in the same statement.
    (statement,) = outbox_statements(queries)
    assert statement.startswith("INSERT INTO webhooks_webhookdelivery")
    assert WebhookDelivery.objects.filter(event_type="memory.created").count() == 60


def test_without_endpoints_a_change_costs_one_statement_that_writes_nothing(namespace) -> None:
    with CaptureQueriesContext(connection) as queries:
        memory_create(namespace=namespace, user_id="alice", text="Alice likes tea", actor=SYSTEM)
    assert len(outbox_statements(queries)) == 1
    assert not WebhookDelivery.objects.exists()


def test_a_failed_extraction_run_is_an_event(make_namespace, make_endpoint) -> None:
    namespace = make_namespace("alpha", extraction_strategy="rules")
    namespace.extraction_config = {"categories": ["gossip"]}  # a stored config the strategy refuses
    namespace.save(update_fields=["extraction_config"])
    make_endpoint(namespace, events=["extraction.failed"])
    session, _ = session_append_messages(
        namespace=namespace,
        session_id="s1",
        user_id="alice",
        messages=[NewMessage(role="user", content="I live in Lyon.")],
    )
    run = extraction_run(run=extraction_schedule(session=session, delay=0))
    assert run.status == "failed"

    (row,) = WebhookDelivery.objects.all()
    assert row.event_type == "extraction.failed"
    assert row.payload["data"]["run_id"] == str(run.pk)
    assert row.payload["data"]["session_id"] == "s1"
    assert "categories" in row.payload["data"]["error"]
    assert "Lyon" not in str(row.payload)


def test_session_deleted_names_the_session_by_its_id(namespace, make_endpoint) -> None:
    make_endpoint(namespace, events=["session.deleted"])
    session, _ = session_append_messages(
        namespace=namespace, session_id="chat-7", user_id="alice", messages=[NewMessage(role="user", content="Hi")]
    )
    session_delete(session=session, actor=SYSTEM)
    (row,) = WebhookDelivery.objects.all()
    assert row.payload["data"] == {"session_id": "chat-7", "message_count": 1}


def test_a_forgetting_policy_tells_of_each_memory_it_forgot_in_one_insert(namespace, make_endpoint) -> None:
    make_endpoint(namespace, events=["memory.forgotten"])
    made = [
        memory_create(namespace=namespace, user_id=f"user{i % 2}", text=f"Old fact {i}", actor=SYSTEM).memory
        for i in range(4)
    ]
    with CaptureQueriesContext(connection) as queries:
        result = forgetting_run(namespace=namespace, policy=Policy(max_age_days=0), actor=SYSTEM)
    assert result.run.deleted == 4
    # One statement for the four (the run's own audit events are another batch, of no such event).
    assert len([sql for sql in outbox_statements(queries) if "memory.forgotten" in sql]) == 1
    rows = WebhookDelivery.objects.filter(event_type="memory.forgotten")
    assert sorted(r.payload["data"]["memory_id"] for r in rows) == sorted(str(m.pk) for m in made)
    assert {r.payload["data"]["tombstone_reason"] for r in rows} == {"policy"}
