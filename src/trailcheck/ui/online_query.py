"""What the online pages show, read from the query string (a GET form, so a view is a URL to
share): the window length (``window``, default ``1h``), where counting starts (``since``: a
duration ago or a time, none for everything kept) and, on a failing-traces page, where the page
starts (``after``). A bad value is named and the default used, never a server error."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final
from urllib.parse import urlencode

from trailcheck.errors import UsageError
from trailcheck.online.periods import parse_since, parse_window
from trailcheck.store.browse import Cursor

__all__ = ["DEFAULT_WINDOW", "OnlineRequest", "read_online_request"]

DEFAULT_WINDOW: Final = "1h"


@dataclass(frozen=True)
class OnlineRequest:
    """The window (as written and in ns), since (as written, ``""`` for none, and in ns), the
    page position, and what was wrong with the query string."""

    window: str
    window_ns: int
    since: str
    since_ns: int | None
    after: Cursor | None
    problems: tuple[str, ...]

    def query(self, **more: str) -> str:
        """The query string that keeps this view (and ``more``), with its ``?``."""
        kept = {"window": self.window, "since": self.since, **more}
        return "?" + urlencode({name: value for name, value in kept.items() if value})


def read_online_request(query: Mapping[str, str], now_ns: int) -> OnlineRequest:
    problems: list[str] = []
    window = query.get("window", "").strip() or DEFAULT_WINDOW
    try:
        window_ns = parse_window(window)
    except UsageError as error:
        problems.append(f"{error}; showing {DEFAULT_WINDOW} windows")
        window, window_ns = DEFAULT_WINDOW, parse_window(DEFAULT_WINDOW)
    since = query.get("since", "").strip()
    since_ns = None
    if since:
        try:
            since_ns = parse_since(since, now_ns)
        except UsageError as error:
            problems.append(f"{error}; counting everything kept")
            since = ""
    after_text = query.get("after", "")
    after = Cursor.parse(after_text) if after_text else None
    if after_text and after is None:
        problems.append("after: not a page position; showing the first page")
    return OnlineRequest(window, window_ns, since, since_ns, after, tuple(problems))
