"""The kinds of value the online file writes in more than one place: names, and durations; and
times as the online readers and notices write them (:func:`iso`).

A **name** (an evaluator's, an alert's) has no ``@`` (a version is shown as ``name@version``)
and no whitespace (names go into commands). A **duration** (an evaluator's ``delay``, an
alert's ``window``) is whole numbers with units, largest first: ``0s``, ``30s``, ``5m``,
``1h30m``, ``2d``; it is kept in canonical form, each unit at most once (``90s`` is ``1m30s``).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Annotated, Any, Final

from pydantic import BeforeValidator, Field

__all__ = ["DURATION_PATTERN", "Duration", "Name", "duration_seconds", "iso"]

Name = Annotated[str, Field(min_length=1, max_length=120, pattern=r"^[^@\s]+$")]

DURATION_PATTERN: Final = r"^(?:[0-9]+d)?(?:[0-9]+h)?(?:[0-9]+m)?(?:[0-9]+s)?$"
_DURATION = re.compile(r"(?:([0-9]+)d)?(?:([0-9]+)h)?(?:([0-9]+)m)?(?:([0-9]+)s)?")
_UNIT_SECONDS = (("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1))


def duration_seconds(duration: str) -> int:
    """The seconds of a duration (``1h30m`` is 5400); ValueError when it is not one."""
    match = _DURATION.fullmatch(duration) if duration else None
    if match is None:
        raise ValueError(
            f"a duration is whole numbers with units (d, h, m, s) in that order, as 0s, 30s,"
            f" 5m, 1h or 1h30m; not {duration!r}"
        )
    return sum(
        int(amount) * seconds
        for amount, (_, seconds) in zip(match.groups(), _UNIT_SECONDS, strict=True)
        if amount
    )


def _canonical_duration(value: Any) -> Any:
    """A duration written with each unit at most once, largest first (``90s`` is ``1m30s``)."""
    if not isinstance(value, str):
        raise ValueError(f"a duration is text with its unit, as 0s, 30s, 5m or 1h; not {value!r}")
    remaining = duration_seconds(value)
    parts = []
    for unit, seconds in _UNIT_SECONDS:
        amount, remaining = divmod(remaining, seconds)
        if amount:
            parts.append(f"{amount}{unit}")
    return "".join(parts) or "0s"


Duration = Annotated[str, BeforeValidator(_canonical_duration)]


def iso(ns: int) -> str:
    """``2026-06-19T14:00:00Z``: nanoseconds since the epoch as UTC ISO 8601 text, to the
    microsecond when there are some."""
    seconds, remainder = divmod(ns, 1_000_000_000)
    moment = datetime.fromtimestamp(seconds, tz=UTC).replace(microsecond=remainder // 1_000)
    return moment.isoformat().replace("+00:00", "Z")
