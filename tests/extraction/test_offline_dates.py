"""Relative dates resolved against when they were said, stored as the memory's event date and written into it."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from memoryadmin.conversations.services import NewMessage, session_append_messages
from memoryadmin.extraction.services import extraction_run, extraction_schedule
from memoryadmin.extraction.strategies.offline.dates import find_dates, with_dates_written
from memoryadmin.memories.models import Memory

MONDAY = date(2023, 5, 8)
SUNDAY = date(2023, 5, 14)

# (what was said, said on, speaks of the past, what it reads as, the day, the precision)
PHRASES = [
    ("I went yesterday", MONDAY, True, "I went on 7 May 2023", date(2023, 5, 7), "day"),
    ("I went last night", MONDAY, True, "I went on 7 May 2023", date(2023, 5, 7), "day"),
    ("I'm going today", MONDAY, False, "I'm going on 8 May 2023", MONDAY, "day"),
    ("I'm going tonight", MONDAY, False, "I'm going on 8 May 2023", MONDAY, "day"),
    ("I'm going tomorrow", MONDAY, False, "I'm going on 9 May 2023", date(2023, 5, 9), "day"),
    ("it was the day before yesterday", MONDAY, True, "it was on 6 May 2023", date(2023, 5, 6), "day"),
    ("I did it two days ago", MONDAY, True, "I did it on 6 May 2023", date(2023, 5, 6), "day"),
    ("I did it 3 days ago", MONDAY, True, "I did it on 5 May 2023", date(2023, 5, 5), "day"),
    ("I went last week", MONDAY, True, "I went in the week of 1 May 2023", date(2023, 5, 1), "week"),
    ("I went two weeks ago", MONDAY, True, "I went in the week of 24 April 2023", date(2023, 4, 24), "week"),
    ("I went last month", MONDAY, True, "I went in April 2023", date(2023, 4, 1), "month"),
    ("I went last year", MONDAY, True, "I went in 2022", date(2022, 1, 1), "year"),
    ("I started five years ago", MONDAY, True, "I started in 2018", date(2018, 1, 1), "year"),
    ("we move next month", MONDAY, False, "we move in June 2023", date(2023, 6, 1), "month"),
    ("we move next year", MONDAY, False, "we move in 2024", date(2024, 1, 1), "year"),
    ("we move next week", MONDAY, False, "we move in the week of 15 May 2023", date(2023, 5, 15), "week"),
    ("we move in two months", MONDAY, False, "we move around July 2023", date(2023, 7, 1), "month"),
    ("we move in 10 days", MONDAY, False, "we move on 18 May 2023", date(2023, 5, 18), "day"),
    ("we move in three weeks", MONDAY, False, "we move in the week of 29 May 2023", date(2023, 5, 29), "week"),
    ("I ran last Sunday", MONDAY, True, "I ran on Sunday 7 May 2023", date(2023, 5, 7), "day"),
    ("I ran last Monday", MONDAY, True, "I ran on Monday 1 May 2023", date(2023, 5, 1), "day"),
    ("I run next Friday", MONDAY, False, "I run on Friday 12 May 2023", date(2023, 5, 12), "day"),
    ("I ran on Friday", MONDAY, True, "I ran on Friday 5 May 2023", date(2023, 5, 5), "day"),
    ("I run on Friday", MONDAY, False, "I run on Friday 12 May 2023", date(2023, 5, 12), "day"),
    ("I hiked last weekend", MONDAY, True, "I hiked on the weekend of 6 May 2023", date(2023, 5, 6), "weekend"),
    ("I hiked this weekend", MONDAY, True, "I hiked on the weekend of 6 May 2023", date(2023, 5, 6), "weekend"),
    ("I hike this weekend", MONDAY, False, "I hike on the weekend of 13 May 2023", date(2023, 5, 13), "weekend"),
    ("I hiked this weekend", SUNDAY, True, "I hiked on the weekend of 13 May 2023", date(2023, 5, 13), "weekend"),
    ("I hiked last weekend", SUNDAY, True, "I hiked on the weekend of 6 May 2023", date(2023, 5, 6), "weekend"),
    ("I went a few days ago", MONDAY, True, "I went a few days before 8 May 2023", date(2023, 5, 5), "about"),
    ("I went a couple of weeks ago", MONDAY, True, "I went a few weeks before 8 May 2023", date(2023, 4, 24), "about"),
    ("I graduated in 2019", MONDAY, True, "I graduated in 2019", date(2019, 1, 1), "year"),
    ("I was born on March 3rd, 1990", MONDAY, True, "I was born on 3 March 1990", date(1990, 3, 3), "day"),
    ("we met on 12 June", MONDAY, True, "we met on 12 June 2022", date(2022, 6, 12), "day"),
    ("we meet on 12 June", MONDAY, False, "we meet on 12 June 2023", date(2023, 6, 12), "day"),
    ("it starts in September", MONDAY, False, "it starts in September 2023", date(2023, 9, 1), "month"),
    ("it was in January 2021", MONDAY, True, "it was in January 2021", date(2021, 1, 1), "month"),
    ("I went earlier this week", MONDAY, True, "I went in the week of 8 May 2023", MONDAY, "week"),
    # A weekday said without "on", where a day is meant.
    ("my new job starts monday", SUNDAY, False, "my new job starts on Monday 15 May 2023", date(2023, 5, 15), "day"),
    ("we got back sunday", MONDAY, True, "we got back on Sunday 7 May 2023", date(2023, 5, 7), "day"),
    ("she stays until thursday", MONDAY, False, "she stays until Thursday 11 May 2023", date(2023, 5, 11), "day"),
    ("it's due by friday", MONDAY, False, "it's due by Friday 12 May 2023", date(2023, 5, 12), "day"),
    ("Tuesday I start at Google", MONDAY, False, "on Tuesday 9 May 2023 I start at Google", date(2023, 5, 9), "day"),
    # After a preposition, a date takes no "in" or "on" of its own.
    ("I've lived here since last year", MONDAY, True, "I've lived here since 2022", date(2022, 1, 1), "year"),
    ("I'm vegan since last week", MONDAY, True, "I'm vegan since the week of 1 May 2023", date(2023, 5, 1), "week"),
    ("she stays until next Friday", MONDAY, False, "she stays until Friday 12 May 2023", date(2023, 5, 12), "day"),
    (
        "mom is in hospital since friday",
        MONDAY,
        False,
        "mom is in hospital since Friday 5 May 2023",
        date(2023, 5, 5),
        "day",
    ),
    # A day of the month alone, after "on", "by"…: this month's, or the next or the last as the tense says.
    ("my exam is on the 14th", MONDAY, False, "my exam is on 14 May 2023", date(2023, 5, 14), "day"),
    ("my exam is on the 2nd", MONDAY, False, "my exam is on 2 June 2023", date(2023, 6, 2), "day"),
    ("it opened on the 20th", MONDAY, True, "it opened on 20 April 2023", date(2023, 4, 20), "day"),
    ("pay it by the 31st", MONDAY, False, "pay it by 31 May 2023", date(2023, 5, 31), "day"),
]


@pytest.mark.parametrize(("said", "on", "past", "reads", "day", "precision"), PHRASES)
def test_a_relative_date_resolves_against_the_day_it_was_said(said, on, past, reads, day, precision) -> None:
    mentions = find_dates(said, on, past=past)
    assert [(m.day, m.precision) for m in mentions] == [(day, precision)]
    assert with_dates_written(said, mentions) == reads


@pytest.mark.parametrize(
    "said",
    [
        "I may go",
        "I went recently",
        "the other day I saw it",
        "I've been there a while ago",
        "I have two kids",
        "a day job",
        "I work monday to friday",
        "my favourite day is friday",
        "I always fly out monday",
        "Friday mornings I swim",
        "we stop by friday's market",
        "I live on the 14th floor",
        "I pay rent on the 1st of every month",
        "Booked a table for Friday night",
        "it was on the 31st",
    ],
)
def test_vague_or_undated_words_resolve_to_nothing(said) -> None:
    assert find_dates(said, MONDAY, past=True) == []


def test_an_extracted_memory_carries_its_event_date_in_its_field_and_its_text(offline_namespace) -> None:
    said_at = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    session, _ = session_append_messages(
        namespace=offline_namespace,
        session_id="s1",
        user_id="alice",
        messages=[
            NewMessage(
                role="user", content="I went to a support group yesterday and it was so powerful.", created_at=said_at
            ),
            NewMessage(role="user", content="We're going camping next month!", created_at=said_at),
        ],
    )
    extraction_run(run=extraction_schedule(session=session, delay=0))
    memories = {m.text: m for m in Memory.objects.filter(namespace=offline_namespace)}
    group = memories["User went to a support group on 7 May 2023 and it was so powerful"]
    assert (group.event_date, group.metadata["date_precision"], group.memory_type) == (
        date(2023, 5, 7),
        "day",
        "episodic",
    )
    camping = memories["User and others are going camping in June 2023"]
    assert (camping.event_date, camping.metadata["date_precision"]) == (date(2023, 6, 1), "month")
    assert camping.stated_at == said_at


@pytest.mark.parametrize("said", ["I was born on 30 February 1990.", "We met on 31 June 2019.", "on February 30th"])
def test_a_day_its_month_does_not_have_is_left_as_said(said) -> None:
    found = find_dates(said, date(2026, 4, 1), past=True)
    assert found == []
    assert with_dates_written(said, found) == said
