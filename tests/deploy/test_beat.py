"""Two real beats on one schedule (memoryadmin.beat): each periodic task is sent once per period."""

from __future__ import annotations

import pytest

from bench.beat_schedule import QUEUE, beats_start, schedule_problems, sent_periods
from tests.deploy.conftest import app_env
from tests.extraction.conftest import wait_for

pytestmark = pytest.mark.django_db(transaction=True)

RECOVERY = "memoryadmin.extraction.tasks.recover_extraction"
ERASURES = "memoryadmin.governance.tasks.requeue_lost_erasures"
SWEEP = "memoryadmin.webhooks.tasks.sweep_deliveries"
# Extraction recovery every second (the schedule's fastest), lost erasures and the webhook sweep every 10 s.
PERIODS = {
    "EXTRACTION_RECOVERY_SECONDS": "1",
    "ERASURE_REQUEUE_SECONDS": "10",
    "WEBHOOK_SWEEP_SECONDS": "10",
    "FORGETTING_CHECK_SECONDS": "3600",
}


def _turns(log: str) -> int:
    """The periods a beat has reached: it sent the task, or another beat had."""
    return log.count("Sending due task") + log.count("was sent by another beat")


def test_two_beats_send_each_periodic_task_once_per_period(redis_client, tmp_path) -> None:
    beats = beats_start(2, app_env(**PERIODS), tmp_path)
    try:
        # Until each beat has reached 5 periods (both up together for a few) and recovery was sent for 8.
        wait_for(
            lambda: (
                all(_turns(log.read_text()) >= 5 for log in beats.logs)
                and len(sent_periods(redis_client).get(RECOVERY, [])) >= 8
            ),
            timeout=90,
            interval=0.2,
        )
    finally:
        logs = beats.stop()
    sent = sent_periods(redis_client)

    recovery = sent[RECOVERY]
    assert len(recovery) >= 8
    # Every periodic task the schedule holds (the 10 s ones too, however long a busy machine made this
    # run): no period sent twice, none skipped between the first and the last.
    assert set(sent) <= {RECOVERY, ERASURES, SWEEP}, set(sent)
    assert schedule_problems(sent, {task: len(periods) for task, periods in sent.items()}) == []
    assert recovery == list(range(recovery[0], recovery[0] + len(recovery)))
    messages = sum(len(periods) for periods in sent.values())
    assert redis_client.llen(QUEUE) == messages
    # Each message sent was one beat's; in the periods both were up, the other stood aside.
    assert sum(log.count("Sending due task") for log in logs) == messages
    assert sum(log.count("was sent by another beat") for log in logs) >= 3
