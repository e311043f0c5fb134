from __future__ import annotations

import os

from celery import Celery
from celery.signals import worker_process_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryadmin.settings")

app = Celery("memoryadmin")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# A task carries the request id of whatever queued it (memoryadmin.core.request_ids).
from memoryadmin.core.request_ids import connect_celery  # noqa: E402

connect_celery()


@worker_process_init.connect
def _trace_worker(**_: object) -> None:
    # In each worker process, after the fork: the exporter's thread does not survive one.
    from memoryadmin.core.tracing import tracing_start

    tracing_start("worker")
