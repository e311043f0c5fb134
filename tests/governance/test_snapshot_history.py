"""A snapshot carries knowledge updates: a superseded memory comes back superseded, linked to its replacement."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, date, datetime

from memoryadmin.memories.models import Memory, MemoryStatus
from memoryadmin.memories.services import Statement, memories_apply_statements, memory_create
from tests.conftest import SYSTEM
from tests.governance.test_snapshots import export, lines_of, restore, wipe

FIELDS = ("status", "subject", "attribute", "event_date", "stated_at", "superseded_by", "superseded_at", "text")


def history(namespace) -> tuple[Memory, Memory]:
    def make(text: str, stated: datetime, **kwargs) -> Memory:
        return memory_create(
            namespace=namespace, user_id="club", text=text, actor=SYSTEM, stated_at=stated, **kwargs
        ).memory

    lyon = make("Evan lives in Lyon", datetime(2024, 1, 1, tzinfo=UTC), subject="Evan", attribute="residence")
    paris = make(
        "Evan moved to Paris in May 2025",
        datetime(2025, 6, 1, tzinfo=UTC),
        subject="Evan",
        attribute="residence",
        event_date=date(2025, 5, 1),
        memory_type="episodic",
    )
    memories_apply_statements(
        namespace=namespace, actor=SYSTEM, statements=[Statement(paris.pk, "club", paris.stated_at)]
    )
    lyon.refresh_from_db()
    paris.refresh_from_db()
    assert (lyon.status, lyon.superseded_by) == (MemoryStatus.SUPERSEDED, paris.pk)
    return lyon, paris


def test_the_knowledge_update_fields_round_trip(api, namespace) -> None:
    lyon, paris = history(namespace)
    body = export(api)
    records = {r["id"]: r for r in lines_of(body) if r.get("type") == "memory"}
    assert records[str(lyon.pk)]["superseded_by"] == str(paris.pk)
    assert records[str(paris.pk)]["event_date"] == "2025-05-01"
    before = {m.pk: tuple(getattr(m, f) for f in FIELDS) for m in Memory.objects.filter(namespace=namespace)}
    wipe(namespace)
    response = restore(api, body, dry_run=False)
    assert response.status_code == 200, response.content
    after = {m.pk: tuple(getattr(m, f) for f in FIELDS) for m in Memory.objects.filter(namespace=namespace)}
    assert after == before
    # Restored again, nothing changes: the fields are part of what "unchanged" compares.
    again = restore(api, body, dry_run=False).json()["counts"]
    assert again["created"] == again["updated"] == 0


def test_a_snapshot_written_before_these_fields_still_restores(api, namespace) -> None:
    history(namespace)
    body = export(api)
    lines = lines_of(body)
    stripped = []
    for record in lines[1:-1]:
        if record["type"] == "memory":
            for key in ("subject", "attribute", "event_date", "stated_at", "superseded_by", "superseded_at"):
                record.pop(key)
            record["status"] = "active"
        stripped.append(record)
    header = lines[0]
    raw = b"".join(json.dumps(r).encode() + b"\n" for r in [header, *stripped])
    raw += json.dumps({"type": "end", "records": len(stripped), "sha256": hashlib.sha256(raw).hexdigest()}).encode()
    wipe(namespace)
    response = restore(api, raw + b"\n", dry_run=False)
    assert response.status_code == 200, response.content
    assert set(Memory.objects.filter(namespace=namespace).values_list("attribute", "subject")) == {("", "")}


def test_a_bad_event_date_is_refused_with_the_line_and_field(api, namespace) -> None:
    history(namespace)
    lines = lines_of(export(api))
    for record in lines:
        if record.get("type") == "memory":
            record["event_date"] = "last week"
    raw = b"".join(json.dumps(r).encode() + b"\n" for r in lines[:-1])
    raw += json.dumps({"type": "end", "records": len(lines) - 2, "sha256": hashlib.sha256(raw).hexdigest()}).encode()
    response = restore(api, raw + b"\n", dry_run=True)
    assert response.status_code == 422, response.content
    details = response.json()["error"]["details"]
    assert [f["field"] for f in details["fields"]] == ["event_date"] and details["line"] > 1
