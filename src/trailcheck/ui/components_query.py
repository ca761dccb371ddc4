"""What the components page shows, read from the query string (a GET form and links, so a view
is a URL to share): the period and windows as the online pages read them (``window``, default
``1h``; ``since``, none for everything kept), and the column the table is sorted by (``sort``)
in which direction (``order``: ``asc`` or ``desc``). The default is the lowest success rate
first: what degraded shows at the top. A bad value is named and the default used."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from trailcheck.components import ComponentRate
from trailcheck.ui.online_query import OnlineRequest, read_online_request

__all__ = ["SORT_COLUMNS", "ComponentsView", "read_components_view", "sorted_rates"]


def _missing_last(value: float | None) -> tuple[bool, float]:
    return (value is None, value or 0.0)


# Each sortable column: its query value, heading, the key it sorts by, and its first order.
SORT_COLUMNS: Final[tuple[tuple[str, str, Callable[[ComponentRate], Any], str], ...]] = (
    ("component", "component", lambda r: (r.component, r.kind), "asc"),
    ("kind", "kind", lambda r: (r.kind, r.component), "asc"),
    ("calls", "calls", lambda r: r.calls, "desc"),
    ("success", "success", lambda r: _missing_last(r.success_rate), "asc"),
    ("errors", "errors", lambda r: r.calls - r.succeeded, "desc"),
    ("p50", "p50 ms", lambda r: _missing_last(r.latency_p50_ms), "desc"),
    ("p95", "p95 ms", lambda r: _missing_last(r.latency_p95_ms), "desc"),
)
_KEYS: Final = {name: key for name, _, key, _ in SORT_COLUMNS}
_DEFAULT_SORT: Final = "success"


@dataclass(frozen=True)
class ComponentsView:
    """The period (window and since, as the online pages read them), the sort column and
    direction, and what was wrong with the query string."""

    period: OnlineRequest
    sort: str
    descending: bool
    problems: tuple[str, ...]

    def query(self, **more: str) -> str:
        """The query string that keeps this view (and ``more``, which wins), with its ``?``."""
        kept = {"sort": self.sort, "order": "desc" if self.descending else "asc", **more}
        return self.period.query(**kept)


def read_components_view(query: Mapping[str, str], now_ns: int) -> ComponentsView:
    period = read_online_request(query, now_ns)
    problems = list(period.problems)
    sort = query.get("sort", "").strip() or _DEFAULT_SORT
    if sort not in _KEYS:
        problems.append(f"sort: no column {sort!r}; sorting by {_DEFAULT_SORT}")
        sort = _DEFAULT_SORT
    order = query.get("order", "").strip()
    if order not in ("", "asc", "desc"):
        problems.append(f"order: asc or desc, not {order!r}")
        order = ""
    first = next(first for name, _, _, first in SORT_COLUMNS if name == sort)
    return ComponentsView(period, sort, (order or first) == "desc", tuple(problems))


def sorted_rates(rates: Sequence[ComponentRate], view: ComponentsView) -> list[ComponentRate]:
    """``rates`` in the view's order; ties kept in the order given (tools, sub-agents, models,
    retrievers, each by name), whichever the direction."""
    if not view.descending:
        return sorted(rates, key=_KEYS[view.sort])
    # Reversed, sorted ascending, reversed back: descending, with ties in the given order.
    return list(reversed(sorted(reversed(rates), key=_KEYS[view.sort])))
