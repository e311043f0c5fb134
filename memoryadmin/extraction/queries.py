"""Reads of extraction runs, shared by the API and the operators' console."""

from __future__ import annotations

import uuid
from datetime import datetime

from memoryadmin.conversations.models import Session
from memoryadmin.core.pagination import Page, clamp_limit, keyset_page
from memoryadmin.extraction.models import ExtractionRun


def runs_page(session: Session, *, limit: int | None = None, cursor: str | None = None) -> Page[ExtractionRun]:
    """A session's runs, newest first, keyset-paginated on (created_at, id)."""
    limit = clamp_limit(limit)
    qs = ExtractionRun.objects.filter(session=session)
    return keyset_page(
        qs, tag="runs", key=("created_at", "id"), types=(datetime, uuid.UUID), cursor=cursor, limit=limit
    )
