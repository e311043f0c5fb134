"""Where a person's data lives is found from the models: a new table is covered, or the check fails."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.apps import apps
from django.db import models

from memoryadmin.conversations.models import Session
from memoryadmin.core.personal_data import SessionRef, holdings, key_families, personal_data_problems, treatments
from memoryadmin.governance.erasure import subject_redis_keys
from memoryadmin.governance.snapshots.export import unexported_holdings


@contextmanager
def model_for_the_test(name: str, **fields: models.Field) -> Iterator[type[models.Model]]:
    """A model registered with the conversations app for the length of the test (never migrated)."""
    attrs = {"__module__": __name__, "Meta": type("Meta", (), {"app_label": "conversations"}), **fields}
    model = type(name, (models.Model,), attrs)
    holdings.cache_clear()
    try:
        yield model
    finally:
        del apps.all_models["conversations"][name.lower()]
        apps.clear_cache()
        holdings.cache_clear()


def test_every_table_of_the_project_says_where_it_stands() -> None:
    assert personal_data_problems() == []


def test_the_tables_about_a_person_are_found_with_each_way_they_reach_the_person() -> None:
    found = {h.label: sorted(p.prefix for p in h.paths) for h in holdings()}
    assert found["conversations.Session"] == [""]
    assert found["conversations.Message"] == ["session__"]
    assert found["memories.MemoryEvidence"] == ["memory__", "message__session__"]
    assert "governance.ErasureRequest" not in found  # the ledger declares itself
    assert "audit.AuditEvent" not in found


def test_every_table_about_a_person_is_carried_by_a_snapshot_or_says_why_not() -> None:
    assert unexported_holdings() == []


def test_a_new_table_reaching_a_person_is_erased_and_must_be_exported() -> None:
    with model_for_the_test("Scribble", session=models.ForeignKey(Session, on_delete=models.DB_CASCADE)) as scribble:
        holding = next(h for h in holdings() if h.model is scribble)
        # Erasure deletes it (through its session's cascade), counts it and scans it for the receipt...
        assert [p.prefix for p in holding.paths] == ["session__"]
        assert holding.store == "scribble"
        # ...but no snapshot record carries it: the export check fails until one does.
        assert unexported_holdings() == ["conversations.Scribble"]
    assert unexported_holdings() == []


def test_a_new_table_that_neither_names_nor_reaches_a_person_must_declare_itself() -> None:
    with model_for_the_test("Jotting", note=models.TextField()):
        assert personal_data_problems() == [
            "conversations.Jotting: neither names a person (namespace and user_id) nor reaches one through "
            "foreign keys; declare PERSONAL_DATA"
        ]
    with model_for_the_test("Declared", note=models.TextField(), PERSONAL_DATA="none"):
        assert personal_data_problems() == []


def test_a_table_declared_discarded_or_redacted_needs_a_registered_treatment() -> None:
    with model_for_the_test("Upload", note=models.TextField(), PERSONAL_DATA="discarded"):
        assert personal_data_problems() == [
            "conversations.Upload: declared 'discarded', but no treatment is registered for it "
            "(register_treatment in its app's ready())"
        ]
    # The project's own declarations each have theirs, and erasure applies exactly these.
    assert [(t.store, t.declaration, t.models) for t in treatments()] == [
        ("audit_reasons", "redacted", ("audit.AuditEvent",)),
        ("snapshot_uploads", "discarded", ("governance.SnapshotRestore", "governance.SnapshotChunk")),
    ]


def test_the_redis_keys_of_a_persons_sessions_come_from_each_apps_declaration() -> None:
    assert [f.store for f in key_families()] == ["extraction_schedules", "working_memory_keys"]
    keys = subject_redis_keys(7, [SessionRef(3, "chat-1")])
    assert sorted(keys) == ["extract:7:3", "wm:7:chat-1"]
