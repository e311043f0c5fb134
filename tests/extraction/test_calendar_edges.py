"""Messages dated at the calendar's start (a client's zero time, 1 January of year 1): a relative phrase read
from that day names no date before it, and the run extracts everything else the session says."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from memoryadmin.conversations.services import NewMessage, session_append_messages
from memoryadmin.extraction.models import RunStatus
from memoryadmin.extraction.services import extraction_run, extraction_schedule
from memoryadmin.extraction.strategies.offline import read_message
from memoryadmin.memories.models import Memory

SAID = [
    "I saw my sister yesterday.",
    "We went hiking the day before yesterday.",
    "I started a new job last week.",
    "I moved to Oslo last month.",
    "I ran a marathon last year.",
    "I went camping last weekend.",
    "I visited my gran on Monday.",
    "I adopted a cat two days ago.",
    "I moved here two years ago.",
    "I got married in the winter.",
    "I'm flying to Rome tomorrow.",
    "We're moving next year.",
    "My birthday is on 3 March.",
]


@pytest.mark.parametrize("today", [date(1, 1, 1), date(1, 1, 2), date(9999, 12, 31)])
def test_a_phrase_past_the_calendar_names_no_date(today) -> None:
    for content in SAID:
        for reading in read_message(content, "Pat", today):
            assert reading.event_date is None or date.min <= reading.event_date <= date.max


def test_a_session_dated_at_the_calendar_s_start_is_extracted(offline_namespace) -> None:
    zero = datetime(1, 1, 1, tzinfo=UTC)
    session, _ = session_append_messages(
        namespace=offline_namespace,
        session_id="s1",
        user_id="alice",
        messages=[
            *(NewMessage(role="user", content=content, created_at=zero) for content in SAID),
            NewMessage(role="user", content="I am allergic to peanuts.", created_at=zero),
        ],
    )
    run = extraction_run(run=extraction_schedule(session=session, delay=0))
    assert (run.status, run.error) == (RunStatus.SUCCEEDED, "")
    texts = set(Memory.objects.filter(namespace=offline_namespace).values_list("text", flat=True))
    assert "User is allergic to peanuts" in texts
    assert any("sister" in text for text in texts)
