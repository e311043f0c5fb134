"""A request id on every log line of a request, and of the background tasks it queued.

The web middleware (memoryadmin.api.observability) takes the caller's `X-Request-ID` when it
is a plain token, or makes one, answers it in the response header and holds it in a context
variable for the request. A task queued meanwhile carries it in its message headers
(`before_task_publish`) and the worker holds it while the task runs (`task_prerun`), so one
id follows a message from its append to the extraction run it caused. Beat's own tasks get
an id of their own.

`RequestIdFilter` puts the id on every log record (`record.request_id`, "-" outside any
request or task); `JsonFormatter` writes one JSON object per line (LOG_FORMAT=json).
"""

from __future__ import annotations

import contextvars
import json
import logging
import re
import uuid
from datetime import UTC, datetime
from typing import Any

HEADER = "X-Request-ID"
TASK_HEADER = "request_id"
# What a caller may send as its own id: a plain token (a UUID, a trace id), nothing a log could misread.
_ACCEPTED = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,127}")

current: contextvars.ContextVar[str | None] = contextvars.ContextVar("request_id", default=None)


def new_request_id() -> str:
    return uuid.uuid4().hex


def accepted_or_new(given: str | None) -> str:
    """The caller's id when it is a plain token of at most 128 characters, else a new one."""
    return given if given and _ACCEPTED.fullmatch(given) else new_request_id()


class RequestIdFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = current.get() or "-"
        return True


# The attributes every LogRecord has; anything else was passed in `extra` and is written too.
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime", "request_id"}


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, request_id, extras, and the traceback."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", None) or current.get() or None,
        }
        for name, value in vars(record).items():
            if name not in _STANDARD and not name.startswith("_"):
                entry[name] = value
        if record.exc_info:
            entry["exc_info"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str, ensure_ascii=False)


def connect_celery() -> None:
    """Carries the id from the process that queues a task to the worker that runs it."""
    from celery.signals import before_task_publish, task_postrun, task_prerun

    @before_task_publish.connect(weak=False)
    def _stamp(headers: dict[str, Any] | None = None, **_: Any) -> None:
        if headers is not None and TASK_HEADER not in headers:
            headers[TASK_HEADER] = current.get() or new_request_id()

    @task_prerun.connect(weak=False)
    def _enter(task: Any = None, **_: Any) -> None:
        given = getattr(task.request, TASK_HEADER, None) if task is not None else None
        task.request._request_id_token = current.set(accepted_or_new(given or current.get()))

    @task_postrun.connect(weak=False)
    def _leave(task: Any = None, **_: Any) -> None:
        token = getattr(task.request, "_request_id_token", None) if task is not None else None
        if token is not None:
            current.reset(token)
