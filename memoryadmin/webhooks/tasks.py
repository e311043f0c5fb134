"""Thin Celery adapters for webhook delivery."""

from __future__ import annotations

from celery import shared_task

from memoryadmin.webhooks.delivery import deliveries_nudge, deliveries_send, endpoints_due


@shared_task(name="memoryadmin.webhooks.tasks.deliver_endpoint", acks_late=True, ignore_result=True)
def deliver_endpoint(endpoint_id: str) -> int:
    return deliveries_send(endpoint_id)


@shared_task(name="memoryadmin.webhooks.tasks.sweep_deliveries", ignore_result=True)
def sweep_deliveries() -> list[str]:
    """Beat's tick: every endpoint with a row ready to send and nobody sending it gets a delivery task."""
    due = endpoints_due()
    deliveries_nudge(due)
    return due
