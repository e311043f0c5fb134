"""Extraction runs of a namespace, newest first: the failed ones are found here among many good ones."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

from memoryadmin.console import queries
from memoryadmin.console.forms import RunFilterForm
from memoryadmin.console.listing import filtered_list_view
from memoryadmin.core.pagination import Page
from memoryadmin.extraction.queries import runs_estimate, runs_page

if TYPE_CHECKING:
    from memoryadmin.extraction.models import ExtractionRun
    from memoryadmin.tenancy.models import Namespace


def _runs(namespace: Namespace, filters: dict[str, Any], **paging: Any) -> Page[ExtractionRun]:
    start, end = filters["start"], filters["end"]
    return runs_page(
        namespace=namespace,
        status=filters["status"] or None,
        since=queries.day_start(start) if start else None,
        until=queries.day_start(end + timedelta(days=1)) if end else None,
        **paging,
    )


extraction_runs = filtered_list_view(
    form_class=RunFilterForm, total=runs_estimate, fetch=_runs, template="console/runs.html"
)
