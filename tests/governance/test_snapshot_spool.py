"""The spool that carries a restore's parsed records from its first pass to its second."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from memoryadmin.governance.snapshots import spool
from memoryadmin.governance.snapshots.spool import Spool


def test_it_gives_back_every_record_in_order_across_chunks(monkeypatch) -> None:
    monkeypatch.setattr(spool, "CHUNK", 2)
    added = [
        ("memory", {"id": uuid.uuid4(), "text": f"text {i}", "created_at": datetime.now(UTC), "line": i + 2})
        for i in range(5)
    ]
    kept = Spool()
    for kind, record in added:
        kept.add(kind, record)
    assert list(kept) == added
    kept.close()
    assert kept.file.closed


def test_an_empty_spool_gives_back_nothing() -> None:
    kept = Spool()
    assert list(kept) == []
    kept.close()
