"""The API's shape of an extraction run."""

from __future__ import annotations

from typing import Any

from memoryadmin.core.timestamps import rfc3339
from memoryadmin.extraction.models import ExtractionRun


def run_dict(run: ExtractionRun) -> dict[str, Any]:
    return {
        "id": str(run.pk),
        "status": run.status,
        "strategy": run.strategy,
        "from_seq": run.from_seq,
        "to_seq": run.to_seq,
        "counts": run.counts,
        "error": run.error or None,
        "created_at": rfc3339(run.created_at),
        "started_at": rfc3339(run.started_at),
        "finished_at": rfc3339(run.finished_at),
        "duration_ms": run.duration_ms,
    }
