"""Calls to an OpenAI-compatible endpoint (chat completions, embeddings): bounded retries with backoff.

A timeout, an unreachable server or a status worth retrying (429, 503, ...) is tried again,
after an exponential pause or the server's `Retry-After` (both capped); anything else, or the
last failure, raises the caller's error with a message naming the endpoint.
"""

from __future__ import annotations

import contextlib
import logging
import time
from typing import Any

import httpx

RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
MAX_BACKOFF_SECONDS = 8.0
MAX_RETRY_AFTER_SECONDS = 10.0

logger = logging.getLogger(__name__)


def post_with_retries(
    client: httpx.Client,
    url: str,
    body: dict[str, Any],
    *,
    retries: int,
    backoff: float,
    timeout: float,
    error: type[Exception],
    who: str,
    where: str,
) -> httpx.Response:
    """POST `body` until a 200 answer, at most `retries` + 1 times; `who` answers, `where` is reached
    ("the model", "the model endpoint")."""
    attempts = retries + 1
    for attempt in range(attempts):
        last = attempt == attempts - 1
        try:
            response = client.post(url, json=body)
        except httpx.TimeoutException:
            if last:
                raise error(f"{who} did not answer within {timeout:g}s") from None
            _pause(attempt, backoff, None, where)
            continue
        except httpx.TransportError as exc:
            if last:
                raise error(f"{where} is unreachable: {type(exc).__name__}") from None
            _pause(attempt, backoff, None, where)
            continue
        if response.status_code in RETRY_STATUSES and not last:
            _pause(attempt, backoff, response.headers.get("Retry-After"), where)
            continue
        if response.status_code != 200:
            raise error(f"{where} answered HTTP {response.status_code}")
        return response
    raise error(f"{where} could not be reached")  # pragma: no cover - the loop always returns or raises


def _pause(attempt: int, backoff: float, retry_after: str | None, where: str) -> None:
    delay = min(backoff * (2**attempt), MAX_BACKOFF_SECONDS)
    if retry_after:
        with contextlib.suppress(ValueError):
            delay = min(max(float(retry_after), 0.0), MAX_RETRY_AFTER_SECONDS)
    logger.info("retrying the call to %s in %.2fs (attempt %d)", where, delay, attempt + 2)
    time.sleep(delay)
