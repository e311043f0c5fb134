"""A task queued by its name, so a service never imports the tasks module that imports it.

Each app's `tasks.py` holds thin Celery wrappers around its services; a service that queues one of
its own app's tasks names it instead (`queued("memoryadmin.governance.tasks.erasure_task")`), and
the task's module is imported then, at run time: the import graph keeps one direction.
"""

from __future__ import annotations

import importlib

from celery import Task, current_app


def queued(name: str) -> Task:
    """The task registered as `name` (its module imported now if nothing has imported it yet)."""
    tasks = current_app.tasks
    if name not in tasks:
        importlib.import_module(name.rpartition(".")[0])
    return tasks[name]
