"""The calendar's words in English, shared by what reads dates in chat (extraction) and in questions (search)."""

from __future__ import annotations

MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
# "jan" … "dec", and "sept" too.
MONTH_ABBREVIATIONS = {m[:3]: i + 1 for i, m in enumerate(MONTHS)} | {"sept": 9}
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# Counts said in words, up to a dozen.
NUMBER_WORDS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
}
