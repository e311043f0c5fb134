"""Appending messages schedules the session's debounced extraction."""

from __future__ import annotations

import logging
from typing import Any

from memoryadmin.extraction.services import extraction_schedule_after_append_batched

logger = logging.getLogger(__name__)


def schedule_after_append(
    sender: Any, *, namespace_id: int, session_pk: int, namespace: Any = None, **kwargs: Any
) -> None:
    # The messages are committed by now: a broker or Redis outage must not turn the
    # append into an error. The messages stay unextracted and the next append retries.
    # The signal carries the namespace, so nothing is read again here; usually this is
    # one Redis command (a schedule is already pending), sent with the request's other
    # Redis writes when it ends.
    strategy = getattr(namespace, "extraction_strategy", None)
    try:
        extraction_schedule_after_append_batched(namespace_id=namespace_id, session_pk=session_pk, strategy=strategy)
    except Exception:
        logger.exception("could not schedule extraction for session %s of namespace %s", session_pk, namespace_id)
