"""The trace list's filters, read from the query string of its (GET) filter form, so a filtered
list is a URL to bookmark or share. Times are UTC, as an ``<input type="datetime-local">``
sends them (``2026-12-05T06:30``) or as ISO 8601 with a zone."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from trailcheck.store import TraceFilter
from trailcheck.store.browse import Cursor
from trailcheck.store.trace_filter import TraceStatus

__all__ = ["FILTER_FIELDS", "ListRequest", "read_list_request"]

FILTER_FIELDS: Final = ("q", "label", "tool", "session", "status", "since", "until")
_STATUSES: Final[dict[str, TraceStatus]] = {"error": "error", "ok": "ok"}


@dataclass(frozen=True)
class ListRequest:
    """What the list shows: the filter, where the page starts, and what was wrong with the
    query string (a bad value is named and ignored, never a server error)."""

    where: TraceFilter
    after: Cursor | None
    problems: tuple[str, ...]
    values: dict[str, str]


def _time(name: str, text: str, problems: list[str]) -> datetime | None:
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        problems.append(f"{name}: not a time: {text!r} (e.g. 2026-12-05T06:30)")
        return None


def read_list_request(query: Mapping[str, str]) -> ListRequest:
    values = {name: query.get(name, "").strip() for name in FILTER_FIELDS}
    problems: list[str] = []
    status = values["status"]
    if status and status not in _STATUSES:
        problems.append(f"status: {status!r} is neither error nor ok")
    since = _time("since", values["since"], problems) if values["since"] else None
    until = _time("until", values["until"], problems) if values["until"] else None
    after_text = query.get("after", "")
    after = Cursor.parse(after_text) if after_text else None
    if after_text and after is None:
        problems.append("after: not a page position; showing the first page")
    where = TraceFilter(
        label=values["label"] or None,
        tool=values["tool"] or None,
        session=values["session"] or None,
        status=_STATUSES.get(status),
        since=since,
        until=until,
        text=values["q"] or None,
    )
    return ListRequest(where, after, tuple(problems), values)
