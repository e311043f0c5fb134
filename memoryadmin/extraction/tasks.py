"""Thin Celery tasks around the extraction services."""

from __future__ import annotations

from celery import shared_task

from memoryadmin.extraction.services import extraction_recover, extraction_run_due


@shared_task(name="memoryadmin.extraction.tasks.extract_session", acks_late=True, reject_on_worker_lost=True)
def extract_session(run_id: str, token: str, debounce: float | None = None) -> None:
    """Run a session's scheduled extraction unless a later schedule replaced this one.

    `debounce` (seconds) marks a schedule an append started: it first waits for that much quiet.
    """
    extraction_run_due(run_id=run_id, token=token, debounce=debounce)


@shared_task(name="memoryadmin.extraction.tasks.recover_extraction", ignore_result=True)
def recover_extraction() -> dict[str, int]:
    """Beat's tick: take over runs whose worker died, and schedule messages no schedule will reach."""
    return extraction_recover()
