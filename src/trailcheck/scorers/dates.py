"""Reading a calendar date written the ways people and models write one.

``2026-06-19`` (ISO, optionally followed by a time), ``June 19, 2026``, ``Jun 19th 2026``,
``19 June 2026``, and all-numeric ``19/06/2026`` (or with ``-`` or ``.``), whose order is not
guessed: ``day_first`` declares it. Month names are English, from a fixed table rather than the
locale, so a result never depends on the machine it runs on.
"""

from __future__ import annotations

import re
from datetime import date

_MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
# Every form read here has a four-digit year: a text without four digits in a row is not a date.
_YEAR = re.compile(r"\d{4}")
_ISO = re.compile(r"(\d{4})-(\d{2})-(\d{2})(?:[t ].*)?")
_YEAR_FIRST = re.compile(r"(\d{4})[/.](\d{1,2})[/.](\d{1,2})")
_NUMERIC = re.compile(r"(\d{1,2})([/.-])(\d{1,2})\2(\d{4})")
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_MONTH_FIRST = re.compile(rf"([a-z]+)\.? {_DAY},? (\d{{4}})")
_DAY_FIRST = re.compile(rf"{_DAY} (?:of )?([a-z]+)\.?,? (\d{{4}})")


def _date(year: str, month: str | int, day: str) -> date | None:
    try:
        return date(int(year), int(month), int(day))
    except ValueError:  # June 31st and the like: not a date
        return None


def parse_date(text: str, *, day_first: bool) -> date | None:
    """The date ``text`` names, or ``None`` when it is not one of the forms read here."""
    if _YEAR.search(text) is None:
        return None
    text = " ".join(text.strip().lower().split())
    if match := _ISO.fullmatch(text) or _YEAR_FIRST.fullmatch(text):
        return _date(match[1], match[2], match[3])
    if match := _NUMERIC.fullmatch(text):
        day, month = (match[1], match[3]) if day_first else (match[3], match[1])
        return _date(match[4], month, day)
    if (match := _MONTH_FIRST.fullmatch(text)) and match[1] in _MONTHS:
        return _date(match[3], _MONTHS[match[1]], match[2])
    if (match := _DAY_FIRST.fullmatch(text)) and match[2] in _MONTHS:
        return _date(match[3], _MONTHS[match[2]], match[1])
    return None
