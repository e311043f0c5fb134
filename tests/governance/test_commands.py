"""export_snapshot, restore_snapshot [--dry-run] and erase_subject, as an operator runs them."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from memoryadmin.governance.models import ErasureRequest
from memoryadmin.memories.models import Memory
from tests.governance.conftest import populate


def test_export_then_restore_round_trips_through_files(namespace, tmp_path) -> None:
    populate(namespace, "alice")
    target = tmp_path / "alpha.jsonl"
    call_command("export_snapshot", "alpha", "-o", str(target), stderr=StringIO())
    lines = target.read_bytes().splitlines()
    assert json.loads(lines[0])["namespace"] == "alpha" and json.loads(lines[-1])["type"] == "end"
    Memory.objects.filter(namespace=namespace).delete()

    out = StringIO()
    call_command("restore_snapshot", "alpha", str(target), "--dry-run", stdout=out)
    assert json.loads(out.getvalue())["counts"]["created"] == 2 + 3 + 4 + 1
    assert not Memory.objects.filter(namespace=namespace).exists()

    out = StringIO()
    call_command("restore_snapshot", "alpha", str(target), stdout=out)
    assert json.loads(out.getvalue())["dry_run"] is False
    assert Memory.objects.filter(namespace=namespace).count() == 2


def test_export_of_one_person(namespace, tmp_path) -> None:
    populate(namespace, "alice")
    populate(namespace, "bob")
    target = tmp_path / "alice.jsonl"
    call_command("export_snapshot", "alpha", "--user-id", "alice", "-o", str(target), stderr=StringIO())
    assert b"bob" not in target.read_bytes()


def test_restore_refuses_a_damaged_file(namespace, tmp_path) -> None:
    populate(namespace, "alice")
    target = tmp_path / "alpha.jsonl"
    call_command("export_snapshot", "alpha", "-o", str(target), stderr=StringIO())
    target.write_bytes(target.read_bytes().replace(b"alice likes", b"alice hates"))
    with pytest.raises(CommandError, match="checksum"):
        call_command("restore_snapshot", "alpha", str(target))


def test_commands_name_a_missing_namespace_or_file(db, tmp_path) -> None:
    with pytest.raises(CommandError, match="no namespace"):
        call_command("export_snapshot", "nope")
    with pytest.raises(CommandError, match="no namespace"):
        call_command("erase_subject", "nope", "alice")


def test_restore_names_a_missing_file(namespace, tmp_path) -> None:
    with pytest.raises(CommandError, match="cannot read"):
        call_command("restore_snapshot", "alpha", str(tmp_path / "missing.jsonl"))


def test_erase_subject_erases_now_and_prints_the_receipt(namespace) -> None:
    populate(namespace, "alice")
    populate(namespace, "bob")
    out = StringIO()
    call_command("erase_subject", "alpha", "alice", "--reason", "ticket 42", "--operator", "dora", stdout=out)
    receipt = json.loads(out.getvalue())
    assert receipt["deleted"]["memories"] == 2 and receipt["verification"]["rows_remaining"] == 0
    assert ErasureRequest.objects.get().requested_by == "operator:dora"
    assert not Memory.objects.filter(namespace=namespace, user_id="alice").exists()
    assert Memory.objects.filter(namespace=namespace, user_id="bob").count() == 2


def test_erase_subject_rejects_a_bad_user_id(namespace) -> None:
    with pytest.raises(CommandError):
        call_command("erase_subject", "alpha", "bad id")
