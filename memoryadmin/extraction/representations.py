"""The API's shape of an extraction run."""

from __future__ import annotations

from typing import Any

from memoryadmin.core.representation import Representation, null_if_blank
from memoryadmin.core.timestamps import rfc3339
from memoryadmin.extraction.models import ExtractionRun

RUN = Representation(
    (
        "id",
        "status",
        "strategy",
        "from_seq",
        "to_seq",
        "counts",
        "error",
        "created_at",
        "started_at",
        "finished_at",
        "duration_ms",
    ),
    convert={"id": str, "error": null_if_blank, "created_at": rfc3339, "started_at": rfc3339, "finished_at": rfc3339},
)


def run_dict(run: ExtractionRun) -> dict[str, Any]:
    return RUN.of(run)
