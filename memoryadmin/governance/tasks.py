"""Thin Celery adapters: load by id, call the service. Started with transaction.on_commit."""

from __future__ import annotations

from typing import Any

from celery import Task, shared_task

from memoryadmin.audit.services import Actor
from memoryadmin.governance.erasure import erasure_execute, erasures_to_requeue
from memoryadmin.governance.forgetting import (
    ForgettingTrigger,
    due_forgetting_policies,
    forgetting_policy_run,
    forgetting_queued_run,
    forgetting_run,
    policy_clean,
)
from memoryadmin.governance.restore_jobs import restore_job_execute
from memoryadmin.tenancy.models import Namespace


def _queued_each[T](task: Task, ids: list[T]) -> list[T]:
    """`task` queued once for each id; the ids are the tick's result, so its log shows what it started."""
    for one in ids:
        task.delay(one)
    return ids


@shared_task(name="memoryadmin.governance.tasks.run_due_forgetting_policies", ignore_result=True)
def run_due_forgetting_policies() -> list[int]:
    """Beat's tick: claim the policies that are due and run each in its own task."""
    return _queued_each(forgetting_policy_task, due_forgetting_policies())


@shared_task(name="memoryadmin.governance.tasks.forgetting_policy_task", acks_late=True, ignore_result=True)
def forgetting_policy_task(namespace_id: int) -> None:
    forgetting_policy_run(namespace_id=namespace_id)


@shared_task(name="memoryadmin.governance.tasks.forgetting_run_task", acks_late=True, ignore_result=True)
def forgetting_run_task(
    namespace_id: int, policy: dict[str, Any], actor_type: str, actor_id: str, run_id: str | None = None
) -> None:
    """A run an operator started from the console, with the policy exactly as previewed."""
    if run_id is not None:
        forgetting_queued_run(run_id=run_id, policy=policy_clean(**policy), actor=Actor(actor_type, actor_id))
        return
    # Queued before runs were recorded as pending.
    namespace = Namespace.objects.filter(pk=namespace_id).first()
    if namespace is None:
        return
    forgetting_run(
        namespace=namespace,
        policy=policy_clean(**policy),
        actor=Actor(actor_type, actor_id),
        trigger=ForgettingTrigger.CONSOLE,
        collect_ids=False,
        reason="started from the console",
    )


@shared_task(name="memoryadmin.governance.tasks.erasure_task", acks_late=True, ignore_result=True)
def erasure_task(erasure_id: str) -> None:
    erasure_execute(erasure_id=erasure_id)


@shared_task(name="memoryadmin.governance.tasks.requeue_lost_erasures", ignore_result=True)
def requeue_lost_erasures() -> list[str]:
    """Beat's tick: an erasure whose task never reached a worker is queued again (only one run can claim it)."""
    return _queued_each(erasure_task, erasures_to_requeue())


@shared_task(name="memoryadmin.governance.tasks.snapshot_restore_task", acks_late=True, ignore_result=True)
def snapshot_restore_task(restore_id: str) -> None:
    restore_job_execute(restore_id=restore_id)
