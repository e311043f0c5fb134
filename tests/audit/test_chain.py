from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import DatabaseError, connection, transaction

from memoryadmin.audit.models import AuditEvent
from memoryadmin.audit.services import GENESIS, audit_record, verify_audit_chain
from tests.conftest import SYSTEM


def record(namespace, n: int) -> list[AuditEvent]:
    return [
        audit_record(actor=SYSTEM, action="test.event", namespace_id=namespace.pk, target_id=str(i), data={"i": i})
        for i in range(n)
    ]


def test_events_link_to_the_previous_event_of_their_namespace(namespace, other_namespace) -> None:
    a = record(namespace, 2)
    b = record(other_namespace, 1)
    # namespace_create already wrote the first event of each chain
    first_a = AuditEvent.objects.filter(namespace=namespace).order_by("id").first()
    assert first_a.prev_hash == GENESIS
    assert a[1].prev_hash == a[0].hash
    assert b[0].prev_hash == AuditEvent.objects.filter(namespace=other_namespace).order_by("id").first().hash
    assert verify_audit_chain().ok


def test_the_trigger_refuses_update_and_delete(namespace) -> None:
    event = record(namespace, 1)[0]
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE audit_auditevent SET reason = 'edited' WHERE id = %s", [event.pk])
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("DELETE FROM audit_auditevent WHERE id = %s", [event.pk])
    assert AuditEvent.objects.get(pk=event.pk).reason == ""


def test_verify_audit_chain_finds_a_tampered_event(namespace) -> None:
    events = record(namespace, 3)
    call_command("verify_audit_chain")
    with connection.cursor() as cursor:
        # Triggers off for this statement only, as a superuser with direct access could do.
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute("UPDATE audit_auditevent SET data = '{\"i\": 99}' WHERE id = %s", [events[1].pk])
        cursor.execute("SET LOCAL session_replication_role = origin")
    report = verify_audit_chain()
    assert report.broken_at == events[1].pk
    with pytest.raises(CommandError, match=f"broken at event {events[1].pk}"):
        call_command("verify_audit_chain")
