"""The times a question names: "on 3 June, 2023", "in July 2023", "last year", "two weeks before 11 August".

A question's dates say when, not what: a memory's text seldom repeats them. Each becomes
a `Period` (a span of days), which search uses as a preference for memories said or
happening near it, and the words that named it leave the question's words.

Relative phrases ("last week", "two years ago", "recently") count back from the anchor:
the calendar date the question names when it names one ("the week before 3 August,
2023", "last Friday, on 23 January 2022"), else the request's `as_of` (default now).
A month or season without a year ("in June", "during the summer") is the latest one
that began on or before the anchor.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta

from memoryadmin.core.calendar_words import MONTH_ABBREVIATIONS, MONTHS, NUMBER_WORDS, WEEKDAYS

_MONTH_NUMBER = {m: i + 1 for i, m in enumerate(MONTHS)} | MONTH_ABBREVIATIONS
_NUMBER = {
    **NUMBER_WORDS,
    "couple": 2,
    "few": 3,
    "several": 4,
}
# Northern seasons by their months; a winter begins in December.
_SEASONS = {"spring": (3, 3), "summer": (6, 3), "autumn": (9, 3), "fall": (9, 3), "winter": (12, 3)}

_MONTH = (
    r"(?P<month>january|february|march|april|may|june|july|august|september|october|november|december"
    r"|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?"
)
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_COUNT = (
    r"(?P<count>\d{1,2}|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
    r"|(?:a\s+)?couple(?:\s+of)?|(?:a\s+)?few|several)"
)
_UNIT = r"(?P<unit>day|week|weekend|month|year)s?"
_WEEKDAY = r"(?P<weekday>monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?"
_SEASON = r"(?P<season>spring|summer|autumn|fall|winter)"
_LEAD = r"(?:(?:on|in|of|during|since|around|about|from|at)\s+)?(?:the\s+)?"
_PART = r"(?:(?P<part>beginning|start|end|middle|first\s+half|second\s+half|early|late|mid)(?:\s+of)?[\s-]+)?"


# The letters that IGNORECASE matches to ASCII ones ("ſpring", "frıday") but that lower() leaves as they are.
_ASCII_TWINS = str.maketrans({"\u017f": "s", "\u0131": "i", "\u0130": "i", "\u212a": "k"})


def _fold(matched: str) -> str:
    """A matched word as the tables spell it."""
    return matched.translate(_ASCII_TWINS).lower()


def _pattern(body: str) -> re.Pattern[str]:
    return re.compile(r"\b" + _LEAD + body + r"\b", re.IGNORECASE)


# Calendar dates, the most precise first; each may anchor relative phrases.
_CALENDAR = [
    ("day", _pattern(r"(?P<iso>(?:19|20)\d\d-[01]\d-[0-3]\d)")),
    ("day", _pattern(_DAY + r"\s+(?:of\s+)?" + _MONTH + r",?\s+" + _YEAR)),
    ("day", _pattern(_MONTH + r"\s+" + _DAY + r",?\s+" + _YEAR)),
    ("month", _pattern(_PART + _MONTH + r",?\s+(?:of\s+)?" + _YEAR)),
    ("season", _pattern(_PART + _SEASON + r",?\s+(?:of\s+)?" + _YEAR)),
    ("day", _pattern(_DAY + r"\s+(?:of\s+)?" + _MONTH + r"(?!\w)")),
    ("day", _pattern(_MONTH + r"\s+" + _DAY + r"(?:st|nd|rd|th)?(?![\d:])")),
    ("year", _pattern(_PART + r"(?:the\s+year\s+)?" + _YEAR + r"(?![\d-])")),
]
# Relative phrases, resolved against the anchor.
_RELATIVE = [
    ("before", _pattern(r"(?:(?P<count>[\w-]+(?:\s+of)?)\s+)?" + _UNIT + r"\s+(?:before|prior\s+to)")),
    ("ago", _pattern(_COUNT + r"\s+" + _UNIT + r"\s+(?:ago|back|earlier)")),
    ("past", _pattern(r"(?:past|last|previous)\s+" + _COUNT + r"\s+" + _UNIT)),
    ("day_before_yesterday", _pattern(r"day\s+before\s+yesterday")),
    ("yesterday", _pattern(r"(?:yesterday|last\s+night)")),
    ("today", _pattern(r"(?:today|tonight|this\s+(?:morning|afternoon|evening))")),
    ("this_or_last", _pattern(r"(?P<which>this\s+past|last|this|previous)\s+" + _UNIT)),
    ("weekday", _pattern(r"(?P<which>this\s+past|last|this)\s+" + _WEEKDAY)),
    ("season", _pattern(r"(?P<which>last|this|past)\s+" + _SEASON)),
    ("season", _pattern(r"(?:the\s+)?" + _SEASON + r"(?!\s+(?:of\s+)?(?:19|20)\d\d)")),
    ("earlier", _pattern(r"earlier\s+this\s+(?P<unit>week|month|year)")),
    ("recently", _pattern(r"(?:recently|lately|these\s+days|nowadays)")),
    ("month", _pattern(r"(?<!\d\s)" + _PART + _MONTH + r"(?!\s*\d)")),
]
# A month name alone is a month only after a preposition ("in May"): "may" is also a verb.
_BARE_MONTH_NEEDS = re.compile(r"^(?:in|during|since|of|from|around|the|early|late|mid)\b", re.IGNORECASE)
# Every pattern above needs one of these (a digit, a unit, "this", "night", a season, a month's first
# letters; weekdays and "yesterday" end in "day"): a text with none, as most memories are, names no time.
_TIME_WORD = re.compile(
    r"\d|day|week|month|year|night|this|spring|summer|autumn|fall|winter|recently|lately"
    r"|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Period:
    """Days from `start` (included) to `end` (excluded)."""

    start: date
    end: date

    @property
    def days(self) -> int:
        return (self.end - self.start).days

    def distance(self, start: date, end: date) -> int:
        """Days between this period and the span [start, end): 0 when they overlap."""
        if end <= self.start:
            return (self.start - end).days + 1
        if start >= self.end:
            return (start - self.end).days + 1
        return 0


@dataclass(frozen=True)
class Named:
    """A period and where the question names it."""

    period: Period
    span: tuple[int, int]


def _month_start(year: int, month: int) -> date:
    return date(year + (month - 1) // 12, (month - 1) % 12 + 1, 1)


def _months(start: date, count: int) -> Period:
    return Period(start, _month_start(start.year, start.month + count))


def _part(period: Period, part: str | None) -> Period:
    """'the beginning of', 'the second half of', 'late'…: the share of the period it names."""
    if not part:
        return period
    part = " ".join(_fold(part).split())
    third = max(period.days // 3, 1)
    half = max(period.days // 2, 1)
    if part in ("beginning", "start", "early"):
        return Period(period.start, period.start + timedelta(days=third))
    if part in ("end", "late"):
        return Period(period.end - timedelta(days=third), period.end)
    if part in ("middle", "mid"):
        return Period(period.start + timedelta(days=third), period.end - timedelta(days=third))
    if part == "first half":
        return Period(period.start, period.start + timedelta(days=half))
    return Period(period.start + timedelta(days=half), period.end)


def _count(raw: str | None) -> int | None:
    if raw is None:
        return 1
    words = _fold(raw).replace(" of", "").split()
    word = words[-1] if words else ""
    if word.isdigit():
        return int(word)
    return _NUMBER.get(word)


def _day(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _season(season: str, year: int) -> Period:
    month, length = _SEASONS[_fold(season)]
    return _months(date(year, month, 1), length)


def _latest_season(season: str, anchor: date, *, skip_current: bool = False) -> Period:
    for year in (anchor.year, anchor.year - 1, anchor.year - 2):
        period = _season(season, year)
        if period.start <= anchor and not (skip_current and period.end > anchor):
            return period
    return _season(season, anchor.year - 2)


def _calendar(kind: str, match: re.Match[str], anchor: date) -> Period | None:
    groups = match.groupdict()
    if groups.get("iso"):
        try:
            day = date.fromisoformat(groups["iso"])
        except ValueError:
            return None
        return Period(day, day + timedelta(days=1))
    year = int(groups["year"]) if groups.get("year") else None
    if kind == "year":
        return _part(Period(date(year, 1, 1), date(year + 1, 1, 1)), groups.get("part"))  # type: ignore[arg-type]
    if kind == "season":
        return _part(_season(groups["season"], year), groups.get("part"))  # type: ignore[arg-type]
    month = _MONTH_NUMBER[_fold(groups["month"]).rstrip(".")]
    if kind == "month":
        return _part(_months(date(year, month, 1), 1), groups.get("part"))  # type: ignore[arg-type]
    number = int(groups["day"])
    if year is None:
        # The latest such day on or before the anchor.
        year = anchor.year
        candidate = _day(year, month, number)
        if candidate is not None and candidate > anchor:
            year -= 1
    day = _day(year, month, number)
    return Period(day, day + timedelta(days=1)) if day else None


def _unit_span(unit: str, around: date) -> Period:
    """The week (Monday first), weekend, month or year holding a day; a day is itself."""
    if unit == "day":
        return Period(around, around + timedelta(days=1))
    if unit == "week":
        start = around - timedelta(days=around.weekday())
        return Period(start, start + timedelta(days=7))
    if unit == "weekend":
        saturday = around - timedelta(days=(around.weekday() - 5) % 7)
        return Period(saturday, saturday + timedelta(days=2))
    if unit == "month":
        return _months(date(around.year, around.month, 1), 1)
    return Period(date(around.year, 1, 1), date(around.year + 1, 1, 1))


def _last_weekend(anchor: date) -> Period:
    """The latest weekend that ended before the anchor's day (on a Monday, the one just gone)."""
    back = (anchor.weekday() - 5) % 7
    saturday = anchor - timedelta(days=back if anchor.weekday() < 5 else back + 7)
    return Period(saturday, saturday + timedelta(days=2))


def _back(anchor: date, count: int, unit: str) -> date:
    if unit in ("day", "week", "weekend"):
        return anchor - timedelta(days=count * (1 if unit == "day" else 7))
    months = count * (12 if unit == "year" else 1)
    start = _month_start(anchor.year, anchor.month - months)
    return _day(start.year, start.month, anchor.day) or _month_start(start.year, start.month + 1) - timedelta(days=1)


def _relative(kind: str, match: re.Match[str], anchor: date) -> Period | None:
    groups = match.groupdict()
    unit = _fold(groups.get("unit") or "")
    if kind == "today":
        return Period(anchor, anchor + timedelta(days=1))
    if kind == "yesterday":
        return Period(anchor - timedelta(days=1), anchor)
    if kind == "day_before_yesterday":
        return Period(anchor - timedelta(days=2), anchor - timedelta(days=1))
    if kind == "before":
        # The span right before the anchor: "the week before" is the seven days, "two weeks before" the seven
        # before those, "the weekend before" the last one that ended before it.
        count = _count(groups.get("count")) or 1
        if unit == "weekend":
            return _last_weekend(anchor - timedelta(days=7 * (count - 1)))
        if count > 100:
            return None
        return Period(_back(anchor, count, unit), _back(anchor, count - 1, unit))
    if kind == "ago":
        count = _count(groups.get("count"))
        if count is None or count > 100:
            return None
        return _unit_span(unit, _back(anchor, count, unit))
    if kind == "past":
        count = _count(groups.get("count"))
        if count is None or count > 100:
            return None
        return Period(_back(anchor, count, unit), anchor + timedelta(days=1))
    if kind == "this_or_last":
        which = " ".join(_fold(groups["which"]).split())
        if which == "this":
            return _unit_span(unit, anchor)
        if unit == "weekend":
            return _last_weekend(anchor)
        return _unit_span(unit, _back(anchor, 1, unit))
    if kind == "weekday":
        weekday = WEEKDAYS.index(_fold(groups["weekday"]).rstrip("s"))
        which = " ".join(_fold(groups["which"]).split())
        back = (anchor.weekday() - weekday) % 7
        if which != "this" and back == 0:
            back = 7
        day = anchor - timedelta(days=back)
        return Period(day, day + timedelta(days=1))
    if kind == "season":
        which = _fold(groups.get("which") or "")
        return _latest_season(groups["season"], anchor, skip_current=which == "last")
    if kind == "earlier":
        return Period(_unit_span(unit, anchor).start, anchor + timedelta(days=1))
    if kind == "recently":
        return Period(anchor - timedelta(days=30), anchor + timedelta(days=1))
    if kind == "month":
        return _month_named(match, anchor)
    return None


def _month_named(match: re.Match[str], anchor: date, *, ahead: bool = False) -> Period:
    """A month named alone: the last of its name (this one included), or with `ahead`, in what is to come, the next
    ("the half marathon in May")."""
    groups = match.groupdict()
    month = _MONTH_NUMBER[_fold(groups["month"]).rstrip(".")]
    if ahead:
        year = anchor.year if month >= anchor.month else anchor.year + 1
    else:
        year = anchor.year if month <= anchor.month else anchor.year - 1
    return _part(_months(date(year, month, 1), 1), groups.get("part"))


def _month_ahead(kind: str, match: re.Match[str], anchor: date) -> Period:
    return _month_named(match, anchor, ahead=True)


def periods_in(text: str, reference: date, *, ahead: bool = False) -> list[Named]:
    """The periods a question names, in the order it names them. A month named alone is the last one, or with
    `ahead` (a statement of what is to come) the next one."""
    if not _TIME_WORD.search(text):
        return []
    return _named_periods(text, reference, ahead=ahead)


def _within_calendar(
    read: Callable[[str, re.Match[str], date], Period | None], kind: str, match: re.Match[str], anchor: date
) -> Period | None:
    """The period a phrase names from `anchor`, or None when it falls outside the calendar's years 1 to 9999
    ("yesterday" said on 1 January of year 1, "this year" in 9999)."""
    try:
        return read(kind, match, anchor)
    except (OverflowError, ValueError):
        return None


def _named_periods(text: str, reference: date, *, ahead: bool = False) -> list[Named]:
    found: list[Named] = []
    taken: list[tuple[int, int]] = []

    def free(start: int, end: int) -> bool:
        return all(end <= a or start >= b for a, b in taken)

    anchor = reference
    dated: list[tuple[int, Period]] = []
    for kind, pattern in _CALENDAR:
        for match in pattern.finditer(text):
            if not free(*match.span()):
                continue
            period = _within_calendar(_calendar, kind, match, reference)
            if period is None:
                continue
            taken.append(match.span())
            found.append(Named(period, match.span()))
            dated.append((match.start(), period))
    if dated:
        # The first calendar date a question names is the day its relative phrases count from.
        anchor = min(dated, key=lambda d: d[0])[1].start
    for kind, pattern in _RELATIVE:
        for match in pattern.finditer(text):
            start, end = match.span()
            if kind == "before":
                # "the week before 3 August, 2023": only right before a calendar date.
                following = [p for s, p in dated if s >= end - 1 and s - end < 3]
                if not following:
                    continue
                period = _within_calendar(_relative, kind, match, following[0].start)
            elif kind == "month" and not _BARE_MONTH_NEEDS.match(match.group(0).strip()):
                continue
            elif kind == "month" and ahead:
                period = _within_calendar(_month_ahead, kind, match, anchor)
            else:
                period = _within_calendar(_relative, kind, match, anchor)
            if period is None or not free(start, end):
                continue
            taken.append((start, end))
            found.append(Named(period, (start, end)))
    return sorted(found, key=lambda n: n.span)


def without_spans(text: str, spans: list[tuple[int, int]]) -> str:
    """The text with these spans blanked out."""
    for start, end in sorted(spans, reverse=True):
        text = text[:start] + " " + text[end:]
    return text


# What comes back every year, said before its date.
_YEARLY = re.compile(r"\b(?:birthday|bday|b-day|anniversary)(?:'s|\s+is)\s+(?:on\s+|in\s+)?$", re.IGNORECASE)


# A statement of what is to come: its month named alone is the next one ("is training for the half marathon in May").
_AHEAD = re.compile(
    r"\b(?:will|'ll|going\s+to|gonna|plans?\s+to|planning|training\s+for|is\s+booking|hopes?\s+to|hoping\s+to|"
    r"upcoming|looking\s+forward|can't\s+wait|is\s+due|are\s+due|is\s+getting\s+married|wants?\s+to|intends?\s+to)\b",
    re.IGNORECASE,
)
_A_MONTH = re.compile(r"\b(?:" + "|".join(MONTHS) + r")\b", re.IGNORECASE)
_CLAUSE_BREAK = re.compile(r"[,.;:!?]|\s(?:and|but|so|then)\s")


def _ahead(text: str) -> bool:
    """Whether the clause that names the statement's first month speaks of what is to come, before the month ("is
    training for the half marathon in May"; not "got married in June, I will send the pics")."""
    month = _A_MONTH.search(text)
    if month is None:
        return False
    before = text[: month.start()]
    breaks = list(_CLAUSE_BREAK.finditer(before))
    return bool(_AHEAD.search(before, breaks[-1].end() if breaks else 0))


def event_in(text: str, said: date) -> tuple[date, str] | None:
    """The day, week, month or year a statement's first date names, read from the day it was said.

    "went to a support group yesterday", said on 8 May 2023: (7 May 2023, "day"). Spans that are
    no calendar unit ("recently", "the past two weeks", a season) give none.
    """
    for named in periods_in(text, said, ahead=_ahead(text)):
        if _YEARLY.search(text, 0, named.span[0]):
            continue  # "User's birthday is on march 3rd": every year's, no one day's
        period = named.period
        if period.days == 1:
            return period.start, "day"
        if period.days in (2, 7):
            return period.start, "week"
        if period.start.day == 1 and 28 <= period.days <= 31:
            return period.start, "month"
        if period.start.month == 1 and period.start.day == 1 and period.days in (365, 366):
            return period.start, "year"
    return None
