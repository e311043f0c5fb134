"""The times a question names, read as periods of days."""

from __future__ import annotations

from datetime import date

import pytest

from memoryadmin.memories.search.periods import _named_periods, event_in, periods_in

NOV_1 = date(2023, 11, 1)  # a Wednesday


def spans(text: str, reference: date = NOV_1) -> list[tuple[str, str, str]]:
    return [
        (str(n.period.start), str(n.period.end), text[n.span[0] : n.span[1]].strip())
        for n in periods_in(text, reference)
    ]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What painting did Melanie show on October 13, 2023?", [("2023-10-13", "2023-10-14", "on October 13, 2023")]),
        ("What did Gina find on 1 February, 2023?", [("2023-02-01", "2023-02-02", "on 1 February, 2023")]),
        ("What happened on 2023-05-04?", [("2023-05-04", "2023-05-05", "on 2023-05-04")]),
        ("What did she start in December 2023?", [("2023-12-01", "2024-01-01", "in December 2023")]),
        ("How often did he go to the beach in 2023?", [("2023-01-01", "2024-01-01", "in 2023")]),
        ("Where did they go in summer 2021?", [("2021-06-01", "2021-09-01", "in summer 2021")]),
        (
            "Which tournament in the beginning of November 2022?",
            [("2022-11-01", "2022-11-11", "in the beginning of November 2022")],
        ),
        (
            "Was the first half of September 2022 good?",
            [("2022-09-01", "2022-09-16", "the first half of September 2022")],
        ),
        ("When did Melanie go camping in June?", [("2023-06-01", "2023-07-01", "in June")]),
        ("What did she do last year?", [("2022-01-01", "2023-01-01", "last year")]),
        ("Where did she move from 4 years ago?", [("2019-01-01", "2020-01-01", "from 4 years ago")]),
        ("What did I eat yesterday?", [("2023-10-31", "2023-11-01", "yesterday")]),
        ("What did we do last week?", [("2023-10-23", "2023-10-30", "last week")]),
        ("What did John do last summer?", [("2023-06-01", "2023-09-01", "last summer")]),
    ],
)
def test_it_reads_dates_and_periods(question, expected) -> None:
    assert spans(question) == expected


def test_relative_phrases_count_back_from_the_date_the_question_names() -> None:
    assert spans("What did John do the week before August 3, 2023?")[0][:2] == ("2023-07-27", "2023-08-03")
    assert spans("Which puppy did she get two weeks before August 11, 2023?")[0][:2] == ("2023-07-28", "2023-08-04")
    # 10 April 2023 is a Monday: the weekend before it is the 8th and 9th.
    assert spans("What did Maria do last weekend before April 10, 2023?")[0][:2] == ("2023-04-08", "2023-04-10")
    # "last Friday", said on Monday 23 January 2022.
    assert spans("What did Joanna finish last Friday, on 23 January, 2022?")[0][:2] == ("2022-01-21", "2022-01-22")


def test_may_the_verb_and_bare_numbers_are_no_dates() -> None:
    assert spans("May I ask what you may like?") == []
    assert spans("She turned 18 and ran 5 miles") == []
    assert spans("what did we discuss in may") == [("2023-05-01", "2023-06-01", "in may")]


def test_a_statement_gives_its_event_as_a_calendar_unit() -> None:
    said = date(2023, 5, 8)
    assert event_in("Caroline went to a support group yesterday", said) == (date(2023, 5, 7), "day")
    assert event_in("Mel painted a lake sunrise last month", said) == (date(2023, 4, 1), "month")
    assert event_in("They visited Oregon in 2022", said) == (date(2022, 1, 1), "year")
    # Vague spans and recurring times give no day.
    assert event_in("She has been painting a lot recently", said) is None
    assert event_in("She takes a pottery class on Friday afternoons", said) is None
    # A birthday's or an anniversary's date comes back every year; a party is one day.
    assert event_in("User's birthday is on march 3rd", said) is None
    assert event_in("Their anniversary is June 12", said) is None
    assert event_in("User's birthday party is on March 3rd", said) == (date(2023, 3, 3), "day")


@pytest.mark.parametrize(
    "text",
    [
        "What happened on 2023-05-04?",
        "What did she start in December 2023?",
        "Where did they go in summer 2021?",
        "We met on the 3rd of march",
        "The party is on Sept 14",
        "the week before August 3, 2023",
        "two weeks prior to 11 May 2022",
        "a couple of months ago",
        "over the past few years",
        "the day before yesterday",
        "YESTERDAY we went out, and last night too",
        "TODAY, and tonight, and this evening",
        "this past weekend",
        "last Friday",
        "This Sunday",
        "last winter",
        "during the autumn",
        "in the FALL",
        "earlier this month",
        "recently, lately, these days, nowadays",
        "in early Jan",
        "mid-Feb",
        "in Apr",
        "since Jun",
        "around Jul",
        "from Aug",
        "in Oct",
        "of Nov",
        "in Dec",
        "in May",
        "in the year 1999",
    ],
)
def test_a_text_naming_a_time_is_read_in_full(text) -> None:
    # Texts without any of the words a time needs skip the patterns; every text that names one is read.
    assert periods_in(text, NOV_1) == _named_periods(text, NOV_1) != []


@pytest.mark.parametrize("text", ["User lives in Lyon", "User works at Acme as a nurse", "User loves jazz"])
def test_a_text_naming_no_time_names_no_period(text) -> None:
    assert periods_in(text, NOV_1) == _named_periods(text, NOV_1) == []


@pytest.mark.parametrize(
    ("text", "plain"),
    [
        ("\u017fpring 2021", "spring 2021"),
        ("in \u017feptember 2022", "in september 2022"),
        ("last fr\u0131day", "last friday"),
        ("m\u0131d-March 2023", "mid-March 2023"),
        ("two wee\u212as ago", "two weeks ago"),
        ("\u0130n June", "In June"),
    ],
)
def test_letters_that_match_ascii_ones_read_as_them(text, plain) -> None:
    # IGNORECASE matches these four to s, i, i and k, while lower() leaves them as they are.
    reference = date(2023, 5, 1)
    found = periods_in(text, reference)
    assert [n.period for n in found] == [n.period for n in periods_in(plain, reference)]
    assert found


@pytest.mark.parametrize(
    ("text", "said", "event"),
    [
        # What is to come: the month named alone is the next of its name, this one included.
        ("Ana is training for the Porto half marathon in May", date(2026, 2, 10), date(2026, 5, 1)),
        ("Ben is planning a trip to Iceland in August", date(2026, 6, 1), date(2026, 8, 1)),
        ("Cleo will start at the bakery in February", date(2026, 2, 20), date(2026, 2, 1)),
        ("Cleo is going to visit her gran in January", date(2026, 3, 5), date(2027, 1, 1)),
        # What happened: the last one, whatever is to come in another clause.
        ("Ana ran the Porto half marathon in May", date(2026, 6, 1), date(2026, 5, 1)),
        ("We got married in June, I will send you the pics", date(2025, 8, 10), date(2025, 6, 1)),
        ("I ran the Leeds half in April and next I want to do a triathlon", date(2025, 8, 10), date(2025, 4, 1)),
        ("I booked the flights in March", date(2025, 8, 10), date(2025, 3, 1)),
        ("Ana went to Lisbon in May", date(2026, 2, 10), date(2025, 5, 1)),
    ],
)
def test_a_month_named_alone_is_read_by_the_statement_s_tense(text, said, event) -> None:
    assert event_in(text, said) == (event, "month")
