"""Reads of extraction runs, shared by the API and the operators' console."""

from __future__ import annotations

import uuid
from datetime import datetime

from django.db.models import BooleanField
from django.db.models.expressions import RawSQL

from memoryadmin.conversations.models import Session
from memoryadmin.core.pagination import Page, clamp_limit, decode_cursor, encode_cursor
from memoryadmin.extraction.models import ExtractionRun


def runs_page(session: Session, *, limit: int | None = None, cursor: str | None = None) -> Page[ExtractionRun]:
    """A session's runs, newest first, keyset-paginated on (created_at, id)."""
    limit = clamp_limit(limit)
    qs = ExtractionRun.objects.filter(session=session)
    if cursor:
        created_at, last_id = decode_cursor(cursor, "runs", (datetime, uuid.UUID))
        qs = qs.filter(
            RawSQL(
                '("extraction_extractionrun"."created_at", "extraction_extractionrun"."id") < (%s, %s)',
                (created_at, last_id),
                output_field=BooleanField(),
            )
        )
    rows = list(qs.order_by("-created_at", "-id")[: limit + 1])
    next_cursor = None
    if len(rows) > limit:
        rows = rows[:limit]
        next_cursor = encode_cursor("runs", (rows[-1].created_at, rows[-1].pk))
    return Page(rows, next_cursor)
