"""The periods a reader of online scores asks for, from text: a window's length (``1h``) and
where counting starts (``since``: a duration ago, ``24h``, or a time, ``2026-12-07T13:00``).
Durations are the online file's (:func:`~trailcheck.online.duration_seconds`); a time without a
zone is UTC, as everywhere in trailcheck."""

from __future__ import annotations

from datetime import UTC, datetime

from trailcheck.errors import UsageError
from trailcheck.online import duration_seconds
from trailcheck.store.trace_filter import to_ns

__all__ = ["parse_since", "parse_window"]


def parse_window(text: str) -> int:
    """A window's length in nanoseconds; a window of no length is refused."""
    try:
        seconds = duration_seconds(text)
    except ValueError as error:
        raise UsageError(f"window: {error}") from None
    if seconds == 0:
        raise UsageError("window: must be longer than 0s")
    return seconds * 10**9


def parse_since(text: str, now_ns: int) -> int:
    """Where counting starts, in nanoseconds: ``text`` ago when it is a duration, else the time
    it names (ISO 8601; ``Z`` or an offset, or none for UTC)."""
    try:
        return now_ns - duration_seconds(text) * 10**9
    except ValueError:
        pass
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(
            f"since: a duration ago (24h, 30m) or an ISO 8601 time, not {text!r}"
        ) from None
    return to_ns(moment if moment.tzinfo else moment.replace(tzinfo=UTC))
