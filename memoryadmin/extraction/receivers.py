"""Appending messages schedules the session's debounced extraction."""

from __future__ import annotations

import logging
from typing import Any

from memoryadmin.conversations.models import Session
from memoryadmin.extraction.services import extraction_schedule

logger = logging.getLogger(__name__)


def schedule_after_append(sender: Any, *, namespace_id: int, session_pk: int, **kwargs: Any) -> None:
    # The messages are committed by now: a broker or Redis outage must not turn the
    # append into an error. The messages stay unextracted and the next append retries.
    try:
        session = Session.objects.select_related("namespace").filter(pk=session_pk).first()
        if session is not None:
            extraction_schedule(session=session)
    except Exception:
        logger.exception("could not schedule extraction for session %s of namespace %s", session_pk, namespace_id)
