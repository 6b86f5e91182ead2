"""Dates in text, read before quantities are (text/quantities.py): a day of the month is a date, not a count, and the
second year of "2018–19" is 2019.

A day of the month is compared only with days of the month: "On August 10, Smith was hired" was a numeric mismatch
against "the Cheez-It 355" of the sentence it aligned with, and "April 9, 2011" against "Series 4" (the evidence's
"April 9th" went unread: an ordinal ends in letters). A day is a number of one or two digits after a month's name
("Aug. 10", "April 9th") or before "of" and one ("the 10th of August"), its ordinal ending read past. It is compared
only with days of its month: "born on February 10, 1894" is no match for "(20 February 1894 - ...)" because the same
sentence says "from 10 January 1957".
"""

from __future__ import annotations

import re

_MONTH = (
    r"(?P<month>Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sept?(?:ember)?"
    r"|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
)
_DAY_AFTER_MONTH = re.compile(rf"\b{_MONTH}\.?\s+(?P<day>\d{{1,2}})(?P<ordinal>st|nd|rd|th)?\b")
_DAY_BEFORE_MONTH = re.compile(rf"\b(?P<day>\d{{1,2}})(?P<ordinal>st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\b")
DAY_LABEL = "date:day:{month}"  # the month's first three letters: "date:day:feb"
# "the 2018–19 academic year": the second year written with its last two digits
_SHORT_YEAR_AFTER = re.compile(r"(?<!\d)(?P<year>\d{4})\s?[–-]\s?$")
_CENTURY_WRAP = 90  # "1998–02" runs into the next century; "1915–10" runs nowhere


def days_of_month(text: str) -> tuple[str, dict[int, str]]:
    """The text with each day's ordinal ending blanked ("April 9th" -> "April 9  ", offsets kept), and where each day
    starts, with its month."""
    starts: dict[int, str] = {}

    def blank(match: re.Match[str]) -> str:
        starts.setdefault(match.start("day"), match.group("month")[:3].lower())
        ordinal = match.group("ordinal")
        if not ordinal:
            return match.group()
        offset = match.start("ordinal") - match.start()
        return match.group()[:offset] + " " * len(ordinal) + match.group()[offset + len(ordinal) :]

    text = _DAY_AFTER_MONTH.sub(blank, text)
    return _DAY_BEFORE_MONTH.sub(blank, text), starts


def short_year(normal: str, start: int, written: str) -> int | None:
    """The year a two-digit number after "YYYY–" stands for (2018–19: 2019, 1999–00: 2000), or None: a range runs
    forward, so "25 November 1915 – 10 December 2006" holds no year 1910 (nor 2010)."""
    before = _SHORT_YEAR_AFTER.search(normal, max(0, start - 7), start)
    if before is None or len(written) != 2 or not written.isdigit():
        return None
    first = int(before.group("year"))
    year = first // 100 * 100 + int(written)
    if year > first:
        return year
    return year + 100 if first % 100 >= _CENTURY_WRAP and int(written) < 100 - _CENTURY_WRAP else None
