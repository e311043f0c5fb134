"""Beat's scheduler: each periodic task is sent once per period, however many beats run.

Every interval schedule is aligned to the clock: a task every N seconds is due at each multiple of
N seconds since the epoch (UTC), not N seconds after this beat last sent it, so every beat, started
whenever, computes the same periods. The first beat to reach a period claims it in Redis (SET NX,
keyed by the task's entry and the period, expiring after two periods) and sends the task; the
others see the claim and send nothing. The message carries its period (header `beat_period`). A
crontab entry's period is the minute it is due in.
Clocks that disagree by less than a period change nothing; a period whose every beat was down is
skipped, as with one beat.
"""

from __future__ import annotations

import copy
import math
from datetime import datetime
from typing import Any

from celery.beat import PersistentScheduler, ScheduleEntry
from celery.schedules import schedstate, schedule
from celery.utils.log import get_logger

from memoryadmin.core.redis_client import get_redis

logger = get_logger(__name__)
CLAIM_PREFIX = "beat:period"
CRONTAB_SECONDS = 60.0


class AlignedSchedule(schedule):
    """Due at every multiple of `run_every` since the epoch."""

    def period(self, when: datetime) -> int:
        return math.floor(when.timestamp() / self.seconds)

    def is_due(self, last_run_at: datetime) -> schedstate:
        now = self.now()
        current = self.period(now)
        next_in = (current + 1) * self.seconds - now.timestamp()
        return schedstate(current > self.period(self.maybe_make_aware(last_run_at)), next_in)

    def __repr__(self) -> str:
        return f"<aligned: every {self.seconds:g} s>"


class AlignedEntry(ScheduleEntry):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if type(self.schedule) is schedule:
            self.schedule = AlignedSchedule(self.schedule.run_every, app=self.app)


def period_claim(name: str, period: int, seconds: float) -> bool:
    """Whether this beat is the first to send `name` for `period`."""
    key = f"{CLAIM_PREFIX}:{name}:{period}"
    return bool(get_redis().set(key, "1", nx=True, ex=max(2, math.ceil(2 * seconds))))


class SingleRunScheduler(PersistentScheduler):
    Entry = AlignedEntry

    def apply_entry(self, entry: ScheduleEntry, producer: Any = None) -> None:
        # A crontab (Celery's own daily backend_cleanup, say) is due in a given minute on every beat.
        seconds = entry.schedule.seconds if isinstance(entry.schedule, AlignedSchedule) else CRONTAB_SECONDS
        period = math.floor(entry.schedule.now().timestamp() / seconds)
        try:
            claimed = period_claim(entry.name, period, seconds)
        except Exception:
            # Redis is the broker too: a task could not be sent either.
            logger.exception("Scheduler: could not claim period %d of %s", period, entry.name)
            return
        if not claimed:
            logger.info("Scheduler: period %d of %s was sent by another beat", period, entry.name)
            return
        logger.info("Scheduler: Sending due task %s (%s), period %d", entry.name, entry.task, period)
        stamped = copy.copy(entry)
        options = dict(entry.options)
        options["headers"] = {**options.get("headers", {}), "beat_period": period}
        stamped.options = options
        try:
            self.apply_async(stamped, producer=producer, advance=False)
        except Exception:
            logger.exception("Scheduler: could not send %s", entry.name)
