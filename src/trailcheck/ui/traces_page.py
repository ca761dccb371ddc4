"""The trace list: the filter form (a GET, so it works without JavaScript) and one page of
traces, newest first, with a link to the next page (:mod:`trailcheck.store.browse`)."""

from __future__ import annotations

from urllib.parse import quote, urlencode

from trailcheck.report.html_markup import Html, el, join, void
from trailcheck.store.browse import TracePage
from trailcheck.store.reading import TraceSummary
from trailcheck.ui.filters import ListRequest
from trailcheck.ui.layout import format_ns

__all__ = ["render_trace_list", "trace_href"]

_PREVIEW = 120


def trace_href(trace_id: str) -> str:
    return "/traces/" + quote(trace_id, safe="")


def _field(label: str, name: str, value: str, kind: str = "text") -> Html:
    return el(
        "label",
        label,
        void("input", type=kind, name=name, value=value, data_testid=f"filter-{name}"),
    )


def _status_field(value: str) -> Html:
    options = [("", "any"), ("error", "error"), ("ok", "ok")]
    return el(
        "label",
        "status",
        el(
            "select",
            *(el("option", text, value=key, selected=key == value) for key, text in options),
            name="status",
            data_testid="filter-status",
        ),
    )


def _filter_form(values: dict[str, str]) -> Html:
    return el(
        "form",
        _field("text", "q", values["q"], "search"),
        _field("label", "label", values["label"]),
        _field("tool", "tool", values["tool"]),
        _field("session", "session", values["session"]),
        _status_field(values["status"]),
        _field("since (UTC)", "since", values["since"], "datetime-local"),
        _field("until (UTC)", "until", values["until"], "datetime-local"),
        el("button", "Filter", type="submit", data_testid="filter-submit"),
        el("a", "clear", href="/traces"),
        method="get",
        action="/traces",
        class_="filters",
        data_testid="filters",
    )


def _preview(text: str | None) -> str:
    if not text:
        return ""
    return text if len(text) <= _PREVIEW else text[: _PREVIEW - 1] + "…"


def _duration(summary: TraceSummary) -> str:
    if summary.started_ns is None or summary.ended_ns is None:
        return "-"
    return f"{(summary.ended_ns - summary.started_ns) / 1e6:.1f} ms"


def _row(summary: TraceSummary) -> Html:
    labels = join(el("span", label, class_="label") for label in summary.labels)
    return el(
        "tr",
        el("td", el("a", summary.trace_id, href=trace_href(summary.trace_id))),
        el("td", format_ns(summary.started_ns or summary.ingested_ns)),
        el("td", _duration(summary)),
        el("td", " ".join(summary.tool_names)),
        el("td", _preview(summary.input_text), class_="text", data_testid="trace-input"),
        el("td", labels),
        el("td", summary.session_id or ""),
        data_testid="trace-row",
    )


def _next_link(request: ListRequest, page: TracePage) -> Html | None:
    if page.next_cursor is None:
        return None
    query = {name: value for name, value in request.values.items() if value}
    query["after"] = page.next_cursor.text()
    text = "Search older traces →" if page.searched_to is not None else "Next page →"
    return el("a", text, href="/traces?" + urlencode(query), data_testid="next-page")


def _searched(page: TracePage) -> Html | None:
    """Why a page is short though older traces remain: the search window ended."""
    if page.searched_to is None:
        return None
    return el(
        "p",
        f"{len(page.traces)} match(es) among the traces searched, back to"
        f" {format_ns(page.searched_to.start_ns)}; a search reads a bounded stretch of traces"
        " per page, so older ones are searched on the next.",
        class_="meta",
        data_testid="searched-to",
    )


def render_trace_list(request: ListRequest, page: TracePage) -> Html:
    problems = [el("p", problem, class_="flash bad") for problem in request.problems]
    header = el(
        "tr",
        *(
            el("th", name)
            for name in ("trace", "start", "duration", "tools", "input", "labels", "session")
        ),
    )
    table = el("table", el("thead", header), el("tbody", *map(_row, page.traces)))
    empty = None
    if not page.traces and page.searched_to is None:
        empty = el("p", "No trace matches.", data_testid="no-traces")
    return join(
        [
            _filter_form(request.values),
            *problems,
            table,
            empty,
            _searched(page),
            el("p", _next_link(request, page)),
        ]
    )
