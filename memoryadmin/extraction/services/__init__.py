"""Extraction: debounced scheduling per session, and the runs themselves.

Scheduling. A session's pending extraction is a Redis key,
`extract:{namespace_id}:{session_pk}`, holding the due time of its task (the
task's token). An append costs one Redis command: `SET key due NX`. Only the
first append of a quiet period finds the key absent and publishes a task with
a countdown; later appends find it held and do nothing more. When the task
fires it runs only if the key still holds its token, and first looks at the
session's newest message: when one arrived after the schedule was made, it
moves the key to the end of the new quiet period and re-schedules itself, so
a burst of appends ends in one run after the last of them (trailing
debounce). The key is released only once the run has finished; messages
appended while the run went on get a schedule of their own right after it.
While the run works it holds a lease (`leases.RunLease`): the key lives only as
long as the lease, renewed with the run's heartbeat.

`extraction_schedule` (`POST .../extract`, the console) replaces the key
instead: the task it starts owns the run, and an older task finds itself
superseded.

Runs. A run reads the session's messages with `extracted_at` unset, gives
the user's and the assistant's (never injected guidance) to the namespace's
strategy, and writes what comes back through the one write path, a chunk's
candidates at a time (`memory_create_many`: what `memory_create` does for
each, in order, in a fixed number of statements). The memories, the marks on the messages and the run's counts are
written in one transaction that locks the session's row (so a deletion or
an erasure waits for it, while appends do not) and first checks that the
session and its unmarked messages are still there: a run that loses a race
with another run, a redelivery or an erasure writes nothing.

Recovery. Beat's `extraction_recover` takes over a run whose heartbeat stopped
(its worker died) and schedules sessions whose messages no schedule will reach
(an append that could not reach Redis, a task lost with its worker). Both are
safe to repeat: messages carry `extracted_at`, a run writes only for messages no
other run marked, and a schedule is claimed in Redis by one caller.
"""

from __future__ import annotations

from memoryadmin.extraction.services.recovery import extraction_recover
from memoryadmin.extraction.services.runs import EXTRACTION_ACTOR, Tally, extraction_run, extraction_run_due
from memoryadmin.extraction.services.scheduling import (
    INTERRUPTED,
    SCHEDULE_KEYS,
    extraction_cancel_for_sessions,
    extraction_schedule,
    extraction_schedule_after_append,
    extraction_schedule_after_append_batched,
    schedule_key,
)

__all__ = [
    "EXTRACTION_ACTOR",
    "INTERRUPTED",
    "SCHEDULE_KEYS",
    "Tally",
    "extraction_cancel_for_sessions",
    "extraction_recover",
    "extraction_run",
    "extraction_run_due",
    "extraction_schedule",
    "extraction_schedule_after_append",
    "extraction_schedule_after_append_batched",
    "schedule_key",
]
