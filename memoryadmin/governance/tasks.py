"""Thin Celery adapters: load by id, call the service. Started with transaction.on_commit."""

from __future__ import annotations

from celery import shared_task

from memoryadmin.governance.erasure import erasure_execute
from memoryadmin.governance.forgetting import due_forgetting_policies, forgetting_policy_run


@shared_task(name="memoryadmin.governance.tasks.run_due_forgetting_policies", ignore_result=True)
def run_due_forgetting_policies() -> list[int]:
    """Beat's hourly tick: claim the policies that are due and run each in its own task."""
    namespace_ids = due_forgetting_policies()
    for namespace_id in namespace_ids:
        forgetting_policy_task.delay(namespace_id)
    return namespace_ids


@shared_task(name="memoryadmin.governance.tasks.forgetting_policy_task", acks_late=True, ignore_result=True)
def forgetting_policy_task(namespace_id: int) -> None:
    forgetting_policy_run(namespace_id=namespace_id)


@shared_task(name="memoryadmin.governance.tasks.erasure_task", acks_late=True, ignore_result=True)
def erasure_task(erasure_id: str) -> None:
    erasure_execute(erasure_id=erasure_id)


@shared_task(name="memoryadmin.governance.tasks.snapshot_restore_task", acks_late=True, ignore_result=True)
def snapshot_restore_task(restore_id: str) -> None:
    from memoryadmin.governance.restore_jobs import restore_job_execute

    restore_job_execute(restore_id=restore_id)
