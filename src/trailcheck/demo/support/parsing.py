"""What the scripted brains read in a customer's words: order ids, emails, proofs, dates, intent.

Plain regular expressions, as a rule-based support bot would use, shared by both brains so that
they differ only where v1's planted bugs are (see :mod:`.brains`). :func:`requested_date` is the
correct reading of a date; v1 has its own, wrong one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date
from typing import Literal

Intent = Literal["refund", "reschedule", "status", "orders"]

ORDER_ID = re.compile(r"\bA-\d{4}\b")
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_DATE_OF_BIRTH = re.compile(r"\b(?:born|birth)\b\D{0,20}?(\d{4}-\d{2}-\d{2})", re.IGNORECASE)
_CARD_LAST4 = re.compile(
    r"\b(?:card|last\s+(?:4|four)(?:\s+digits)?)\b\D{0,25}?(?<!\d)(\d{4})(?!\d)", re.IGNORECASE
)
_INTENTS: tuple[tuple[Intent, re.Pattern[str]], ...] = (
    ("refund", re.compile(r"\brefund|\bmoney back\b", re.IGNORECASE)),
    (
        "reschedule",
        re.compile(r"\breschedul|\bmove\b.*\bdeliver|\bdeliver\w*\s+(?:it\s+)?on\b", re.I),
    ),
    ("status", re.compile(r"\bwhere\b|\bstatus\b|\bwhen\b|\barriv|\bshipped\b", re.I)),
    ("orders", re.compile(r"\border(?:s)?\b.*\b(?:my|recent)\b|\bmy\b.*\borders\b", re.I)),
)

_LATEST = re.compile(r"\b(?:latest|last|newest|most\s+recent)\s+order\b", re.IGNORECASE)

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
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
WEEKDAY = re.compile(rf"\b({'|'.join(WEEKDAYS)})\b", re.IGNORECASE)
_MONTH_DAY = re.compile(
    rf"\b({'|'.join(MONTHS)})\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+(\d{{4}}))?", re.IGNORECASE
)
_ISO = re.compile(r"(?<![\d-])(\d{4})-(\d{2})-(\d{2})(?![\d-])")
_TODAY = re.compile(r"\btoday is\b[^.\n]*?(\d{4}-\d{2}-\d{2})", re.IGNORECASE)


def last_match(pattern: re.Pattern[str], texts: Iterable[str], group: int = 0) -> str | None:
    """The last match of ``pattern`` in the last text that has one: what the customer said
    most recently wins over what they said before."""
    for text in reversed(list(texts)):
        found = pattern.findall(text)
        if found:
            last = found[-1]
            return last if isinstance(last, str) else str(last[group])
    return None


def order_id_in(texts: Iterable[str]) -> str | None:
    return last_match(ORDER_ID, texts)


def email_in(texts: Iterable[str]) -> str | None:
    return last_match(EMAIL, texts)


def asks_for_latest(texts: Iterable[str]) -> bool:
    """Whether the customer asked about their latest order, without naming it."""
    return any(_LATEST.search(text) for text in texts)


def proof_in(texts: Iterable[str]) -> str | None:
    """A date of birth (ISO) or a card's last four digits, whichever was given last."""
    for text in reversed(list(texts)):
        found = [m for p in (_DATE_OF_BIRTH, _CARD_LAST4) for m in p.finditer(text)]
        if found:
            return max(found, key=lambda m: m.start()).group(1)
    return None


def intent_in(texts: Iterable[str]) -> Intent | None:
    """The latest thing the customer asked for; a turn that only gives details (a proof, a
    date) keeps the request of an earlier turn."""
    for text in reversed(list(texts)):
        for intent, pattern in _INTENTS:
            if pattern.search(text):
                return intent
    return None


def today_in(system_prompt: str, default: date) -> date:
    """The date the system prompt gives as today (agents know today only from their prompt)."""
    found = _TODAY.search(system_prompt)
    return date.fromisoformat(found.group(1)) if found else default


def _next_on_or_after(month: int, day: int, today: date) -> date | None:
    for year in (today.year, today.year + 1):
        try:
            candidate = date(year, month, day)
        except ValueError:
            return None
        if candidate >= today:
            return candidate
    return None


def requested_date(text: str, today: date) -> date | None:
    """The day a customer asks for: ISO, or a month and day (with or without a year and a
    weekday; without a year, the next such day). The month and day decide; a weekday beside
    them is a courtesy, and one that disagrees makes the request unclear (``None``). A date of
    birth given as proof is not a delivery day."""
    text = _DATE_OF_BIRTH.sub(" ", text)
    iso = _ISO.search(text)
    if iso:
        try:
            return date(int(iso[1]), int(iso[2]), int(iso[3]))
        except ValueError:
            return None
    found = _MONTH_DAY.search(text)
    if found is None:
        return None
    month = MONTHS.index(found[1].lower()) + 1
    if found[3]:
        try:
            day: date | None = date(int(found[3]), month, int(found[2]))
        except ValueError:
            return None
    else:
        day = _next_on_or_after(month, int(found[2]), today)
    weekday = WEEKDAY.search(text)
    if day is not None and weekday and WEEKDAYS.index(weekday[1].lower()) != day.weekday():
        return None
    return day
