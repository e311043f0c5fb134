"""The audit trail: linked, keyed, hashed as stored, every break reported, anchored outside the database."""

from __future__ import annotations

import hashlib
import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import DatabaseError, connection, transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memoryadmin.audit.checkpoints import CheckpointInvalid, anchors_in, checkpoint_write
from memoryadmin.audit.models import AuditEvent
from memoryadmin.audit.services import (
    GENESIS,
    AuditEntry,
    audit_record,
    audit_record_many,
    digest_of,
    stored_json,
    verify_audit_chain,
)
from memoryadmin.audit.tasks import write_audit_checkpoint
from tests.conftest import SYSTEM


def digest_payload(event: AuditEvent) -> str:
    """What the digest covers, serialised as the services do (to forge one without the key)."""
    return json.dumps(
        [
            event.prev_hash,
            event.namespace_id,
            event.created_at.isoformat(),
            event.actor_type,
            event.actor,
            event.action,
            event.target_type,
            event.target_id,
            event.subject_hash,
            event.reason,
            event.data,
        ],
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        default=str,
    )


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


def test_one_batch_of_events_of_several_chains_links_each_to_its_own_chain(namespace, other_namespace) -> None:
    before = {ns: AuditEvent.objects.filter(namespace_id=ns).order_by("-id").first() for ns in (namespace.pk, None)}
    entries = [
        AuditEntry(actor=SYSTEM, action="test.event", namespace_id=ns, target_id=str(i))
        for i, ns in enumerate([namespace.pk, None, other_namespace.pk, namespace.pk, None])
    ]
    with transaction.atomic():
        written = audit_record_many(entries)
    assert [e.namespace_id for e in written] == [e.namespace_id for e in entries]
    assert written[0].prev_hash == before[namespace.pk].hash
    assert written[1].prev_hash == (before[None].hash if before[None] else GENESIS)
    assert written[3].prev_hash == written[0].hash
    assert written[4].prev_hash == written[1].hash
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


# --- what is hashed is what is stored ---------------------------------------------------------------

JSON_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([-0.0, 1e16, 1e22, 1.5e-7, 5e-324, 1.7976931348623157e308, 0.1, 123.0]),
    st.text(alphabet=st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"), max_size=8),
)
KEYS = st.text(max_size=5).filter(lambda k: "\x00" not in k)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=5).filter(lambda k: "\x00" not in k), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=JSON_VALUES)
def test_what_is_hashed_is_exactly_what_jsonb_gives_back(namespace, value) -> None:
    event = audit_record(actor=SYSTEM, action="test.event", namespace_id=namespace.pk, data={"v": value})
    stored = AuditEvent.objects.get(pk=event.pk)
    assert stored.data == stored_json({"v": value})
    assert digest_of(stored) == stored.hash
    assert verify_audit_chain(namespace.pk, all_chains=False).ok


def test_a_negative_zero_in_a_policy_does_not_break_the_chain(api, namespace) -> None:
    # The request of the finding: JSONB stores -0.0 as 0.0, and the digest must agree.
    response = api.post(
        "/api/v1/memories/forget", {"policy": {"max_age_days": -0.0}, "user_id": "nobody", "dry_run": False}
    )
    assert response.status_code == 200, response.content
    api.post("/api/v1/memories", {"user_id": "alice", "text": "Alice likes tea", "metadata": {"n": 1e16}})
    report = verify_audit_chain()
    assert report.ok, report.breaks


# --- every break, and what the key and the anchors add ----------------------------------------------


def tamper(sql: str, params: list) -> None:
    with connection.cursor() as cursor:
        # Triggers off for this statement only, as a superuser with direct access could do.
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute(sql, params)
        cursor.execute("SET LOCAL session_replication_role = origin")


def test_verification_reports_every_break_not_only_the_first(namespace) -> None:
    events = record(namespace, 6)
    tamper("UPDATE audit_auditevent SET data = '{\"i\": 99}' WHERE id = %s", [events[1].pk])
    tamper("UPDATE audit_auditevent SET reason = 'rewritten' WHERE id = %s", [events[4].pk])
    report = verify_audit_chain()
    assert [b.event_id for b in report.breaks] == [events[1].pk, events[4].pk]
    assert report.broken == 2 and not report.ok


def test_a_chain_rewritten_without_the_key_does_not_verify(namespace) -> None:
    record(namespace, 4)
    # Whoever can write the table, but does not hold AUDIT_CHAIN_KEY, recomputes every digest
    # the only way open to them: unkeyed, over the content they prefer.
    prev = GENESIS
    for event in AuditEvent.objects.filter(namespace=namespace).order_by("id"):
        event.reason, event.prev_hash = "nothing happened", prev
        payload = digest_payload(event)
        digest = hashlib.sha256(payload.encode()).hexdigest()
        tamper(
            "UPDATE audit_auditevent SET reason = %s, prev_hash = %s, hash = %s WHERE id = %s",
            [event.reason, prev, digest, event.pk],
        )
        prev = digest
    report = verify_audit_chain(namespace.pk, all_chains=False)
    assert report.broken == AuditEvent.objects.filter(namespace=namespace).count()


def test_truncate_is_refused(namespace) -> None:
    record(namespace, 2)
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("SET LOCAL memoryadmin.audit_truncate = ''")
        cursor.execute("TRUNCATE audit_auditevent")
    assert AuditEvent.objects.filter(namespace=namespace).count() >= 2


def test_a_checkpoint_shows_a_chain_cut_short_or_emptied(namespace, tmp_path) -> None:
    events = record(namespace, 3)
    checkpoint_write(tmp_path)
    anchors = anchors_in(tmp_path)
    assert verify_audit_chain(anchors=anchors).ok
    # The newest event dropped: what is left still links up, and only the checkpoint knows.
    tamper("DELETE FROM audit_auditevent WHERE id = %s", [events[-1].pk])
    assert verify_audit_chain().ok
    report = verify_audit_chain(anchors=anchors)
    assert [(b.event_id, "is missing" in b.problem) for b in report.breaks] == [(events[-1].pk, True)]
    # Emptied altogether (by someone allowed past the trigger): every head is missing.
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("SET LOCAL memoryadmin.audit_truncate = 'allowed'")
        cursor.execute("TRUNCATE audit_auditevent")
    assert verify_audit_chain().ok and verify_audit_chain().checked == 0
    assert verify_audit_chain(anchors=anchors).broken == len(anchors)


def test_a_checkpoint_shows_a_chain_rewritten_even_with_the_key(namespace, tmp_path) -> None:
    events = record(namespace, 3)
    checkpoint_write(tmp_path)
    # Someone who also stole the key re-digests the whole chain consistently.
    prev = GENESIS
    for event in AuditEvent.objects.filter(namespace=namespace).order_by("id"):
        event.reason, event.prev_hash = "nothing happened", prev
        event.hash = digest_of(event)
        tamper(
            "UPDATE audit_auditevent SET reason = %s, prev_hash = %s, hash = %s WHERE id = %s",
            [event.reason, prev, event.hash, event.pk],
        )
        prev = event.hash
    assert verify_audit_chain().ok
    report = verify_audit_chain(anchors=anchors_in(tmp_path))
    assert [b.event_id for b in report.breaks] == [events[-1].pk]
    assert "differs from the checkpoint" in report.problem


def test_an_altered_checkpoint_is_refused(namespace, tmp_path) -> None:
    record(namespace, 1)
    path = checkpoint_write(tmp_path)
    document = json.loads(path.read_text())
    document["heads"] = []
    path.write_text(json.dumps(document))
    with pytest.raises(CheckpointInvalid, match="signature"):
        anchors_in(tmp_path)
    with pytest.raises(CommandError, match="signature"):
        call_command("verify_audit_chain", str(tmp_path))


def test_an_erasure_receipt_anchors_the_chain(namespace, tmp_path) -> None:
    from memoryadmin.governance.erasure import erasure_execute, erasure_request

    erasure = erasure_request(namespace=namespace, user_id="carol", actor=SYSTEM, enqueue=False)
    erasure_execute(erasure_id=erasure.pk)
    erasure.refresh_from_db()
    receipt = tmp_path / "receipt.json"
    receipt.write_text(json.dumps(erasure.receipt))
    assert verify_audit_chain(anchors=anchors_in(receipt)).ok
    tamper("DELETE FROM audit_auditevent WHERE id = %s", [erasure.receipt["audit_event"]["id"]])
    report = verify_audit_chain(anchors=anchors_in(receipt))
    assert any("receipt of erasure" in b.problem for b in report.breaks)


def test_the_commands_write_checkpoints_and_verify_against_them(namespace, tmp_path, settings) -> None:
    settings.AUDIT_CHECKPOINT_DIR = str(tmp_path)
    events = record(namespace, 2)
    out = io.StringIO()
    call_command("audit_checkpoint", stdout=out)
    assert out.getvalue().strip().endswith(".json")
    assert write_audit_checkpoint() is not None
    assert len(list(tmp_path.glob("*.json"))) == 2
    verified = io.StringIO()
    call_command("verify_audit_chain", stdout=verified)
    assert "anchors checked" in verified.getvalue()
    tamper("DELETE FROM audit_auditevent WHERE id = %s", [events[-1].pk])
    with pytest.raises(CommandError, match="problem"):
        call_command("verify_audit_chain", stderr=io.StringIO())


def test_the_console_chain_page_lists_every_break_and_uses_the_checkpoints(namespace, tmp_path, settings) -> None:
    from tests.conftest import operator_user, signed_in

    settings.AUDIT_CHECKPOINT_DIR = str(tmp_path)
    events = record(namespace, 5)
    checkpoint_write(tmp_path)
    tamper("UPDATE audit_auditevent SET reason = 'edited' WHERE id = %s", [events[1].pk])
    tamper("DELETE FROM audit_auditevent WHERE id = %s", [events[-1].pk])
    viewer = signed_in(operator_user("victor", "viewer"))
    html = viewer.get("/audit/chain/").content.decode()
    assert f"#{events[1].pk}" in html and f"#{events[-1].pk}" in html
    assert "content does not match its hash" in html and "is missing" in html


def test_a_reason_blanked_by_anyone_but_an_erasure_does_not_verify(namespace) -> None:
    said = [
        audit_record(actor=SYSTEM, action="test.event", namespace_id=namespace.pk, reason="because Carol said so"),
        audit_record(actor=SYSTEM, action="test.event", namespace_id=namespace.pk, user_id="dave", reason="Dave asked"),
        audit_record(actor=SYSTEM, action="test.event", namespace_id=namespace.pk, user_id="erin", reason="Erin asked"),
    ]
    # Erin was erased: her event's reason blanked by the erasure, which then recorded its completion.
    tamper("UPDATE audit_auditevent SET reason = '' WHERE id = %s", [said[2].pk])
    audit_record(actor=SYSTEM, action="erasure.complete", namespace_id=namespace.pk, user_id="erin")
    assert verify_audit_chain(namespace.pk, all_chains=False).ok
    # Someone with direct access blanks reasons: one of nobody in particular, one of a person never erased.
    tamper("UPDATE audit_auditevent SET reason = '' WHERE id IN (%s, %s)", [said[0].pk, said[1].pk])
    report = verify_audit_chain(namespace.pk, all_chains=False)
    assert [b.event_id for b in report.breaks] == [said[0].pk, said[1].pk]
    assert all("blanked" in b.problem for b in report.breaks)


def test_an_emptied_chain_of_an_existing_namespace_does_not_verify(namespace, other_namespace) -> None:
    from tests.conftest import operator_user, signed_in

    record(namespace, 2)
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("SET LOCAL memoryadmin.audit_truncate = 'allowed'")
        cursor.execute("TRUNCATE audit_auditevent")
    with pytest.raises(CommandError, match="broken"):
        call_command("verify_audit_chain")
    html = signed_in(operator_user("victor", "viewer")).get("/audit/chain/").content.decode()
    assert "Intact" not in html and "is empty" in html
    # Cut from its start only: the chain no longer begins with the namespace's creation.
    audit_record(actor=SYSTEM, action="test.event", namespace_id=other_namespace.pk)
    report = verify_audit_chain(founded=[other_namespace.pk])
    assert [b.problem for b in report.breaks] == ["the chain does not begin with its namespace's creation"]
