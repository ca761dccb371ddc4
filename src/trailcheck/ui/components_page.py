"""The components page: per tool, sub-agent, retriever and model, its calls, success rate with
its interval, error kinds, latency p50 and p95 and a sparkline of its success rate per window
(:mod:`.components_chart`), from the span scores the store keeps
(:func:`trailcheck.components.component_rates`); sorted by any column, on the server, through
the query string (:mod:`.components_query`).

A component's name and its error kinds come from traffic: text, escaped like everything else
(:mod:`trailcheck.report.html_markup`).
"""

from __future__ import annotations

from typing import Final

from trailcheck.components import ComponentRate, ComponentRates
from trailcheck.report.html_markup import Html, el, join, void
from trailcheck.ui.components_chart import sparkline, time_axis
from trailcheck.ui.components_query import SORT_COLUMNS, ComponentsView, sorted_rates
from trailcheck.ui.online_page import interval_text, rate_text

__all__ = ["render_components_page"]

_KIND_NAMES: Final = {
    "tool": "tool",
    "agent": "sub-agent",
    "llm": "model",
    "retriever": "retriever",
}
# The error kinds a row names; the rest are counted.
_SHOWN_ERRORS: Final = 3


def _view_form(view: ComponentsView) -> Html:
    def field(label: str, name: str, value: str, hint: str) -> Html:
        return el(
            "label",
            label,
            void(
                "input",
                type="text",
                name=name,
                value=value,
                placeholder=hint,
                data_testid=f"components-{name}",
            ),
        )

    return el(
        "form",
        field("window", "window", view.period.window, "1h"),
        field("since (UTC)", "since", view.period.since, "7d or 2026-12-07T13:00"),
        void("input", type="hidden", name="sort", value=view.sort),
        void("input", type="hidden", name="order", value="desc" if view.descending else "asc"),
        el("button", "Show", type="submit"),
        el("a", "everything kept", href="/components" + view.query(since="", window="")),
        method="get",
        action="/components",
        class_="filters",
        data_testid="components-view",
    )


def _heading(name: str, text: str, first: str, view: ComponentsView) -> Html:
    """A column's heading: a link that sorts by it (its first order, or the other one when it
    is already the sort), marked when it is the sort."""
    if name == view.sort:
        order = "asc" if view.descending else "desc"
        text += " ▼" if view.descending else " ▲"
        sort = "descending" if view.descending else "ascending"
    else:
        order, sort = first, "none"
    link = el("a", text, href="/components" + view.query(sort=name, order=order))
    return el("th", link, aria_sort=sort, data_testid=f"sort-{name}")


def _errors(rate: ComponentRate) -> Html:
    failed = rate.calls - rate.succeeded
    kinds = list(rate.error_kinds.items())
    named = ", ".join(f"{kind} {count}" for kind, count in kinds[:_SHOWN_ERRORS])
    more = len(kinds) - _SHOWN_ERRORS
    if more > 0:
        named += f" and {more} more"
    return join([el("span", failed, data_testid="failed"), f" ({named})" if named else None])


def _milliseconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _row(rate: ComponentRate, chart: Html) -> Html:
    return el(
        "tr",
        el("td", rate.component, class_="text", data_testid="component"),
        el("td", _KIND_NAMES[rate.kind], data_testid="kind"),
        el("td", rate.calls, data_testid="calls"),
        el("td", rate_text(rate.success_rate), data_testid="success-rate"),
        el("td", interval_text(rate.interval), data_testid="interval"),
        el("td", _errors(rate), class_="text", data_testid="errors"),
        el("td", _milliseconds(rate.latency_p50_ms), data_testid="p50"),
        el("td", _milliseconds(rate.latency_p95_ms), data_testid="p95"),
        el("td", chart, data_testid="trend"),
        data_testid="component-row",
    )


def _table(rates: ComponentRates, view: ComponentsView) -> Html:
    shown = sorted_rates(rates.components, view)
    axis = time_axis(shown)
    headings = {name: _heading(name, text, first, view) for name, text, _, first in SORT_COLUMNS}
    level = f"{rates.level:.0%} interval ({rates.method})"
    header = el(
        "tr",
        headings["component"],
        headings["kind"],
        headings["calls"],
        headings["success"],
        el("th", level),
        headings["errors"],
        headings["p50"],
        headings["p95"],
        el("th", f"success per {view.period.window} window"),
    )
    rows = [
        _row(
            rate,
            Html("-") if axis is None else sparkline(rate, axis, chart_id=f"spark-{index}"),
        )
        for index, rate in enumerate(shown)
    ]
    return el("table", el("thead", header), el("tbody", *rows), class_="numbers")


def render_components_page(view: ComponentsView, rates: ComponentRates) -> Html:
    """The whole page's body: the view form, then the components table or why it is empty."""
    problems = [el("p", problem, class_="flash bad") for problem in view.problems]
    if not rates.components:
        nothing = el(
            "p",
            "No component call scored in this period. Traces stored before the store kept"
            " span scores are scored by trailcheck components --backfill.",
            class_="meta",
            data_testid="no-components",
        )
        return join([_view_form(view), *problems, nothing])
    counted = f"calls started since {view.period.since}" if view.period.since else "every call kept"
    meta = el(
        "p",
        f"Counting {counted}. A call succeeded when its span ended without an error and passed"
        " every check made on it (arguments and result against their declared schemas, output"
        " that had to parse); errors counts the others, by kind.",
        class_="meta",
    )
    return join([_view_form(view), *problems, meta, _table(rates, view)])
