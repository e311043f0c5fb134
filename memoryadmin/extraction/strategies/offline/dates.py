"""Relative dates in what people say, resolved against when they said it.

"I went hiking yesterday", said on 8 May 2023, happened on 7 May 2023. A
`DateMention` records the phrase, the day it resolves to, how precise that day
is (a day, a week, a weekend, a month, a year, or about), and the words that
replace the phrase in a memory's text ("on 7 May 2023"), so the memory still
reads right when it is read a year later.

Only phrases whose meaning is fixed by the moment they were said are resolved
(yesterday, last week, two days ago, next month, in three weeks, last Friday,
this weekend…) plus explicit years and month names. Vague ones ("recently",
"the other day", "a while ago") are left as they are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

from memoryadmin.core.calendar_words import MONTH_ABBREVIATIONS, MONTHS, NUMBER_WORDS, WEEKDAYS

_MONTH_ABBREVIATIONS = MONTH_ABBREVIATIONS
_NUMBERS = {
    **NUMBER_WORDS,
    "a couple of": 2,
    "a couple": 2,
    "couple of": 2,
    "a few": 3,
    "few": 3,
    "several": 3,
}
_APPROXIMATE_COUNTS = ("a couple of", "a couple", "couple of", "a few", "few", "several")
_COUNT = (
    r"(?P<n>\d{1,2}|a\s+couple(?:\s+of)?|couple\s+of|a\s+few|few|several|an?|one|two|three|four|five|six|seven|"
    r"eight|nine|ten|eleven|twelve)"
)
_UNIT = r"(?P<unit>days?|weeks?|months?|years?)"
_WEEKDAY = r"(?P<weekday>monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_NOT_EVERY = r"(?!\s+(?:mornings|afternoons|evenings|nights))"  # "on Friday afternoons" is every one
_MONTH_NAME = (
    r"(?P<month>january|february|march|april|may|june|july|august|september|october|november|december|"
    r"jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?"
)

# A deadline or a start: "by friday", "since tuesday".
_DEADLINE = r"until|till|til|by|since"
# What leads a weekday said without "on" (see "weekday_led").
_WEEKDAY_LEAD = (
    r"start|starts|starting|begins|beginning|ends|ending|arrive|arrives|arriving|arrived|leave|leaves|leaving|"
    r"left|fly|flies|flying|flew|out|back|home|move|moves|moving|moved|due|visiting|coming|landed|landing|lands|"
    + _DEADLINE
)

# A date after one of these takes no "in" or "on" of its own.
_AFTER_PREPOSITION = re.compile(r"\b(?:" + _DEADLINE + r"|from|before|after|during|for|as\s+of)\s+$", re.IGNORECASE)

# A day's year, given or named ("14 June 2027", "14 June next year").
_YEAR_NAMED = r"\s+(?P<which_year>next|last|this)\s+year"
_YEAR_AFTER = r"(?:,?\s+(?P<year>(?:19|20)\d{2})|" + _YEAR_NAMED + ")?"
_YEAR_STEP = {"next": 1, "last": -1, "this": 0}

# The phrases, longest first where they overlap. `kind` names how to resolve each.
_PHRASES: list[tuple[str, re.Pattern[str]]] = [
    (kind, re.compile(r"\b" + pattern + r"\b", re.IGNORECASE))
    for kind, pattern in (
        ("day_before_yesterday", r"(?:on\s+)?the\s+day\s+before\s+yesterday"),
        ("day_after_tomorrow", r"(?:on\s+)?the\s+day\s+after\s+tomorrow"),
        ("ago", _COUNT + r"\s+" + _UNIT + r"\s+(?:ago|back)\b"),
        ("in_count", r"in\s+(?:about\s+|around\s+|roughly\s+)?" + _COUNT + r"\s+" + _UNIT + r"(?:'?\s+time)?"),
        ("weekend", r"(?:(?:on|over|during)\s+)?(?P<which>last|this\s+past|this|next|the\s+past)\s+weekend"),
        ("weekday", r"(?:on\s+)?(?P<which>last|this\s+past|this|next|this\s+coming)\s+" + _WEEKDAY),
        ("earlier_unit", r"earlier\s+this\s+(?P<unit>week|month|year)"),
        ("later_unit", r"later\s+this\s+(?P<unit>week|month|year)"),
        ("yesterday", r"(?:yesterday|last\s+night)"),
        ("tomorrow", r"tomorrow"),
        ("today", r"(?:today|tonight|this\s+(?:morning|afternoon|evening))"),
        (
            "month_day",
            r"(?:on\s+)?" + _MONTH_NAME + r"\s+(?P<day>\d{1,2})(?:st|nd|rd|th)?" + _YEAR_AFTER,
        ),
        (
            "day_month",
            r"(?:on\s+)?(?:the\s+)?(?P<day>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH_NAME + r"" + _YEAR_AFTER,
        ),
        ("month_year", r"(?:in\s+)?" + _MONTH_NAME + r",?\s+(?P<year>(?:19|20)\d{2})"),
        (
            "in_month",
            r"(?:in|last|this|next)\s+" + _MONTH_NAME + r"(?![\w-])(?:" + _YEAR_NAMED + ")?",
        ),
        # After the months: "14 June next year" is one day, not 14 June and a year.
        (
            "relative_unit",
            r"(?:(?:in|during|over)\s+)?(?P<which>last|the\s+past|past|previous|this|next|the\s+coming|coming)\s+(?P<unit>week|month|year)",
        ),
        ("in_year", r"(?:in|since|back\s+in)\s+(?P<year>(?:19|20)\d{2})"),
        # "on Friday afternoons" is every Friday afternoon, not one day.
        ("weekday_bare", r"on\s+" + _WEEKDAY + _NOT_EVERY),
        # A weekday said without "on" where a day is meant: after a coming or going ("starts monday", "flying
        # out friday", "got back sunday"), a deadline ("by friday", "until thursday"), or leading the sentence
        # ("Monday I start at Google"). Only the weekday is replaced; "I work monday to friday" stays as said.
        ("weekday_led", r"(?P<lead>" + _WEEKDAY_LEAD + r")\s+" + _WEEKDAY + r"(?!['’]s\b)" + _NOT_EVERY),
        ("weekday_led", r"^" + _WEEKDAY + r"(?=,?\s+(?:i|i'm|im|we|we're|my|our)\b)"),
        # "my exam is on the 14th": a day of this month, or of the next or the last as the tense says.
        (
            "month_day_only",
            r"(?P<lead>on|by|until|till|since|from|for|before|after)\s+the\s+(?P<day>[1-9]|[12]\d|3[01])"
            r"(?:st|nd|rd|th)\b(?!\s+(?:of\s+)?(?!(?:and|but|so|at|in|for|with|because|too|lol|then)\b)[a-z])",
        ),
    )
]


_MONTH_KINDS = frozenset({"month_day", "day_month", "month_year", "in_month"})
_SPANS = {"weekend": "week"}
# Words of a clause about what happens again and again: its weekdays and months are no one date.
_RECURRING = re.compile(
    r"\b(?:every|each|weekly|monthly|yearly|annually|usually|always|often|normally|typically|generally|"
    r"sometimes|mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays|weekends|weekdays)\b"
)
# A date said to come back every year: "my birthday is on march 3rd", "our anniversary's june 12".
_YEARLY = re.compile(r"\b(?:birthday|bday|b-day|anniversary)(?:'s|\s+is)\s+$", re.IGNORECASE)
_RECURRING_KINDS = frozenset({"weekday_bare", "weekday_led", "in_month", "month_day_only"})
# Every phrase above holds one of these; a clause without any is not searched further.
_ANY_DATE_WORD = re.compile(
    r"yesterday|tonight|today|tomorrow|night|morning|afternoon|evening|ago|back|before|week|month|year|day|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|"
    r"\b(?:19|20)\d{2}\b|\d(?:st|nd|rd|th)\b"
)


@dataclass(frozen=True)
class DateMention:
    start: int
    end: int
    phrase: str
    day: date
    precision: str  # day | week | weekend | month | year | about
    replacement: str
    # How much of `day` is known, in the memory's own terms (day, week, month or year): a weekend is
    # its week, "a few days ago" its week, "a few weeks ago" its month, "a few months ago" its year.
    span: str = "day"


def _day_text(day: date) -> str:
    return f"{day.day} {MONTHS[day.month - 1].capitalize()} {day.year}"


def _month_text(day: date) -> str:
    return f"{MONTHS[day.month - 1].capitalize()} {day.year}"


def _add_months(day: date, months: int) -> date:
    index = day.year * 12 + day.month - 1 + months
    return date(index // 12, index % 12 + 1, 1)


def _count(raw: str) -> int:
    raw = " ".join(raw.lower().split())
    return int(raw) if raw.isdigit() else _NUMBERS[raw]


def _month_number(raw: str) -> int:
    raw = raw.lower().rstrip(".")
    return MONTHS.index(raw) + 1 if raw in MONTHS else _MONTH_ABBREVIATIONS[raw[:4] if raw == "sept" else raw[:3]]


def _shift(today: date, n: int, unit: str, *, sign: int, approximate: bool) -> tuple[date, str, str]:
    """`n` units before (sign -1) or after (+1) today: the day, its precision and how to write it."""
    unit = unit.lower().rstrip("s")
    if unit == "day":
        day = today + timedelta(days=sign * n)
        if approximate:
            return day, "about week", f"{'a few days before' if sign < 0 else 'a few days after'} {_day_text(today)}"
        return day, "day", f"on {_day_text(day)}"
    if unit == "week":
        day = today + timedelta(weeks=sign * n)
        monday = day - timedelta(days=day.weekday())
        if approximate:
            return (
                monday,
                "about month",
                f"{'a few weeks before' if sign < 0 else 'a few weeks after'} {_day_text(today)}",
            )
        return monday, "week", f"in the week of {_day_text(monday)}"
    if unit == "month":
        day = _add_months(today, sign * n)
        if approximate:
            return (
                day,
                "about year",
                f"{'a few months before' if sign < 0 else 'a few months after'} {_month_text(today)}",
            )
        return day, "month", f"{'in' if sign < 0 else 'around'} {_month_text(day)}"
    day = date(today.year + sign * n, 1, 1)
    if approximate:
        return day, "about year", f"{'a few years before' if sign < 0 else 'a few years after'} {today.year}"
    return day, "year", f"in {day.year}"


def _weekday_before(today: date, weekday: int, *, inclusive: bool = False) -> date:
    back = (today.weekday() - weekday) % 7
    if back == 0 and not inclusive:
        back = 7
    return today - timedelta(days=back)


def _weekday_after(today: date, weekday: int, *, inclusive: bool = False) -> date:
    ahead = (weekday - today.weekday()) % 7
    if ahead == 0 and not inclusive:
        ahead = 7
    return today + timedelta(days=ahead)


def _day_of_month(today: date, day: int, *, past: bool) -> date | None:
    """The `day` of this month, or of the month before (in the past) or after (to come) when this one's is on the
    wrong side of today; None when that month has no such day."""
    month = today.replace(day=1)
    if past and day > today.day:
        month = _add_months(month, -1)
    elif not past and day < today.day:
        month = _add_months(month, 1)
    try:
        return month.replace(day=day)
    except ValueError:
        return None


def _year_said(groups: dict[str, str | None], today: date) -> int | None:
    """The year a phrase gives ("14 June 2027") or names ("14 June next year"), or None."""
    if groups.get("which_year"):
        return today.year + _YEAR_STEP[groups["which_year"].lower()]  # type: ignore[union-attr]
    return int(groups["year"]) if groups.get("year") else None  # type: ignore[arg-type]


def _resolve(kind: str, match: re.Match[str], today: date, past: bool) -> tuple[date, str, str] | None:
    groups = match.groupdict()
    if kind == "month_day_only":
        day = _day_of_month(today, int(groups["day"]), past=past)
        return None if day is None else (day, "day", f"on {_day_text(day)}")
    if kind == "yesterday":
        day = today - timedelta(days=1)
        return day, "day", f"on {_day_text(day)}"
    if kind == "today":
        return today, "day", f"on {_day_text(today)}"
    if kind == "tomorrow":
        day = today + timedelta(days=1)
        return day, "day", f"on {_day_text(day)}"
    if kind == "day_before_yesterday":
        day = today - timedelta(days=2)
        return day, "day", f"on {_day_text(day)}"
    if kind == "day_after_tomorrow":
        day = today + timedelta(days=2)
        return day, "day", f"on {_day_text(day)}"
    if kind in ("ago", "in_count"):
        raw = " ".join(groups["n"].lower().split())
        return _shift(
            today,
            _count(raw),
            groups["unit"],
            sign=-1 if kind == "ago" else 1,
            approximate=raw in _APPROXIMATE_COUNTS,
        )
    if kind == "weekend":
        which = " ".join(groups["which"].lower().split())
        if which in ("last", "this past", "the past"):
            # Said on a Sunday, "last weekend" is the one before this one.
            saturday = today - timedelta(days=8) if today.weekday() == 6 else _weekday_before(today, 5)
        elif which == "this" and past:
            saturday = _weekday_before(today, 5, inclusive=True)
        elif which == "this":
            saturday = today - timedelta(days=1) if today.weekday() == 6 else _weekday_after(today, 5, inclusive=True)
        else:
            saturday = _weekday_after(today, 5)
        return saturday, "weekend", f"on the weekend of {_day_text(saturday)}"
    if kind in ("weekday", "weekday_bare", "weekday_led"):
        weekday = WEEKDAYS.index(groups["weekday"].lower())
        which = " ".join((groups.get("which") or "").lower().split())
        if which in ("last", "this past") or (which in ("", "this") and past):
            day = _weekday_before(today, weekday)
        else:
            day = _weekday_after(today, weekday, inclusive=which == "this")
        return day, "day", f"on {WEEKDAYS[weekday].capitalize()} {_day_text(day)}"
    if kind == "relative_unit":
        which = " ".join(groups["which"].lower().split())
        sign = -1 if which in ("last", "the past", "past", "previous") else (1 if which != "this" else 0)
        unit = groups["unit"].lower()
        if unit == "week":
            monday = today - timedelta(days=today.weekday()) + timedelta(weeks=sign)
            return monday, "week", f"in the week of {_day_text(monday)}"
        if unit == "month":
            day = _add_months(today, sign)
            return day, "month", f"in {_month_text(day)}"
        day = date(today.year + sign, 1, 1)
        return day, "year", f"in {day.year}"
    if kind in ("earlier_unit", "later_unit"):
        unit = groups["unit"].lower()
        if unit == "week":
            monday = today - timedelta(days=today.weekday())
            return monday, "week", f"in the week of {_day_text(monday)}"
        if unit == "month":
            day = today.replace(day=1)
            return day, "month", f"in {_month_text(day)}"
        return date(today.year, 1, 1), "year", f"in {today.year}"
    if kind in ("month_day", "day_month"):
        month = _month_number(groups["month"])
        day_number = int(groups["day"])
        year = _year_said(groups, today) or _likely_year(today, month, day_number, past)
        try:
            day = date(year, month, day_number)
        except ValueError:
            return None
        return day, "day", f"on {_day_text(day)}"
    if kind == "month_year":
        day = date(int(groups["year"]), _month_number(groups["month"]), 1)
        return day, "month", f"in {_month_text(day)}"
    if kind == "in_month":
        month = _month_number(groups["month"])
        word = match.group(0).split()[0].lower()
        year = _year_said(groups, today)  # "in august next year"
        if year is None:
            year = today.year
            if word == "last" or (word == "in" and past and month > today.month):
                year -= 1 if month >= today.month else 0
            elif word == "next" or (word == "in" and not past and month < today.month):
                year += 1 if month <= today.month else 0
        day = date(year, month, 1)
        return day, "month", f"in {_month_text(day)}"
    if kind == "in_year":
        year = int(groups["year"])
        word = match.group(0).split()[0].lower()
        return date(year, 1, 1), "year", f"{'since' if word == 'since' else 'in'} {year}"
    return None


def _likely_year(today: date, month: int, day: int, past: bool) -> int:
    """A date said without its year: this year's, unless the tense puts it on the other side of today."""
    try:
        candidate = date(today.year, month, day)
    except ValueError:
        return today.year
    if past and candidate > today:
        return today.year - 1
    if not past and candidate < today - timedelta(days=1):
        return today.year + 1
    return today.year


def find_dates(text: str, today: date, *, past: bool) -> list[DateMention]:
    """The date phrases of `text` resolved against `today`, in order, not overlapping.

    `past` tells whether the clause speaks of the past, which settles "this weekend",
    "on Friday" and dates without a year. In a clause about what recurs ("every Friday",
    "on weekends", "each July") a weekday or a month without its year names no one day.
    """
    found: list[DateMention] = []
    taken: list[tuple[int, int]] = []
    low = text.lower()
    if not _ANY_DATE_WORD.search(low):
        return found
    recurring = bool(_RECURRING.search(low))
    for kind, pattern in _PHRASES:
        if kind in _MONTH_KINDS and not any(m[:3] in low for m in MONTHS):
            continue  # most clauses name no month: skip those patterns cheaply
        if recurring and kind in _RECURRING_KINDS:
            continue
        for match in pattern.finditer(text):
            start, end = match.span()
            if any(start < e and s < end for s, e in taken):
                continue
            if (
                kind == "in_month"
                and match.group("month").lower() == "may"
                and match.group(0).lower().startswith("this")
            ):
                continue  # "this may" is a modal far more often than a month
            # "since Tuesday" is the last one, whatever the tense ("my mom is in hospital since tuesday").
            since = kind == "weekday_led" and (match.groupdict().get("lead") or "").lower() == "since"
            try:
                resolved = _resolve(kind, match, today, past or since)
            except (OverflowError, ValueError):
                # Past the calendar's years 1 to 9999 ("yesterday" said on 1 January of year 1): no date.
                resolved = None
            if resolved is None:
                if kind in ("month_day", "day_month"):
                    # A day its month does not have ("30 February 1990") is left as said, not read in part.
                    taken.append((start, end))
                continue
            day, precision, replacement = resolved
            lead = match.groupdict().get("lead")
            if lead is not None and lead.lower() != "on":
                # What leads the date stays as said: "starts Monday 7 December", "by 14 December 2026".
                after = text[match.end("lead") : end]
                start = end - len(after.lstrip())
            if _AFTER_PREPOSITION.search(text, 0, start):
                # "since last week" is "since the week of …", "until Thursday" "until Thursday 11 May".
                replacement = replacement.removeprefix("on ").removeprefix("in ")
            year_said = kind in ("month_day", "day_month") and (match.group("year") or match.group("which_year"))
            if kind in ("month_day", "day_month") and recurring and not year_said:
                continue
            if kind in ("month_day", "day_month") and not year_said and _YEARLY.search(text, 0, start):
                continue  # "my birthday is on march 3rd" is every 3 March, not the next one
            taken.append((start, end))
            span = precision.split()[-1] if precision.startswith("about") else _SPANS.get(precision, precision)
            found.append(DateMention(start, end, text[start:end], day, precision.split()[0], replacement, span))
    found.sort(key=lambda m: m.start)
    return found


def with_dates_written(text: str, mentions: list[DateMention]) -> str:
    """`text` with each resolved phrase replaced by the date it stands for."""
    out = []
    last = 0
    for mention in mentions:
        out.append(text[last : mention.start])
        out.append(mention.replacement)
        last = mention.end
    out.append(text[last:])
    return "".join(out)
