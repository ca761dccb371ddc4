"""Findings and clusters: how many traces each label marked, day by day (a small inline SVG
chart, drawn here: nothing is fetched), and the clusters with their signature, members and a
button that promotes one to a candidate case."""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import quote

from trailcheck.report.html_markup import Html, el, join, void
from trailcheck.store.browse import NS_PER_DAY, LabelDay
from trailcheck.store.clusters import ClusterRecord
from trailcheck.ui.layout import format_ns, post_form, read_only_note
from trailcheck.ui.traces_page import trace_href

__all__ = ["render_findings_page"]

_BAR = 8
_HEIGHT = 28
_SHOWN_MEMBERS = 12
# The chart's days: the latest ones with findings, so that it stays small; totals count all.
_CHARTED_DAYS = 90


def _day(moment_ns: int) -> str:
    return format_ns(moment_ns)[:10]


def _chart(label: str, days: dict[int, int], first: int, last: int) -> Html:
    """One bar per day from ``first`` to ``last`` (day starts in ns), height by count."""
    span = (last - first) // NS_PER_DAY + 1
    top = max(days.values())
    bars = []
    for index in range(span):
        day = first + index * NS_PER_DAY
        count = days.get(day, 0)
        height = 0 if count == 0 else max(1.0, _HEIGHT * count / top)
        bars.append(
            el(
                "rect",
                el("title", f"{_day(day)}: {count} trace(s)"),
                x=index * (_BAR + 2),
                y=f"{_HEIGHT - height:.1f}",
                width=_BAR,
                height=f"{height:.1f}",
                class_="day",
            )
        )
    width = span * (_BAR + 2)
    return el(
        "svg",
        *bars,
        void("line", x1=0, y1=_HEIGHT, x2=width, y2=_HEIGHT, class_="axis"),
        width=width,
        height=_HEIGHT + 1,
        role="img",
        aria_label=f"{label}: traces per day",
        data_testid="label-chart",
    )


def _label_table(counts: Sequence[LabelDay]) -> Html:
    if not counts:
        return el("p", "No findings yet: run trailcheck detect.", class_="meta")
    last = max(c.day_start_ns for c in counts)
    first = max(min(c.day_start_ns for c in counts), last - (_CHARTED_DAYS - 1) * NS_PER_DAY)
    by_label: dict[str, dict[int, int]] = {}
    for count in counts:
        by_label.setdefault(count.label, {})[count.day_start_ns] = count.traces
    rows = [
        el(
            "tr",
            el("td", el("a", label, href="/traces?label=" + quote(label))),
            el("td", sum(days.values()), data_testid="label-total"),
            el("td", _chart(label, days, first, last)),
            data_testid="label-row",
        )
        for label, days in sorted(by_label.items())
    ]
    head = el(
        "tr",
        el("th", "label"),
        el("th", "traces"),
        el("th", f"per day, {_day(first)} to {_day(last)}"),
    )
    return el("table", el("thead", head), el("tbody", *rows), class_="numbers")


def _cluster(record: ClusterRecord, secret: str | None, dataset: str) -> Html:
    members = [el("a", m, href=trace_href(m)) for m in record.member_trace_ids[:_SHOWN_MEMBERS]]
    more = record.size - len(members)
    promote = None
    if secret is not None:
        promote = post_form(
            f"/clusters/{quote(record.cluster_id, safe='')}/promote",
            secret,
            el("button", "Promote", type="submit", title=f"add a candidate case to {dataset}"),
            testid="promote-form",
        )
    return el(
        "tr",
        el("td", record.cluster_id),
        el("td", el("span", record.label, class_="label")),
        el("td", record.size),
        el("td", el("pre", record.signature), class_="text"),
        el("td", join(members, ", "), f" and {more} more" if more > 0 else None, class_="text"),
        el("td", record.case_id or "-"),
        el("td", promote),
        data_testid="cluster-row",
    )


def render_findings_page(
    counts: Sequence[LabelDay],
    clusters: Sequence[ClusterRecord],
    *,
    secret: str | None,
    dataset: str,
) -> Html:
    """The findings page; ``secret`` is the form secret, None for a viewer (no promote
    buttons)."""
    head = el(
        "tr",
        *(
            el("th", h)
            for h in ("cluster", "label", "size", "signature", "member traces", "case", "")
        ),
    )
    cluster_part = (
        el(
            "table",
            el("thead", head),
            el("tbody", *(_cluster(c, secret, dataset) for c in clusters)),
        )
        if clusters
        else el("p", "No clusters yet: run trailcheck clusters.", class_="meta")
    )
    return join(
        [
            el("section", el("h2", "Traces per label"), _label_table(counts), id="labels"),
            el(
                "section",
                el("h2", "Clusters"),
                el(
                    "p",
                    f"Promoting adds a candidate case to {dataset}, for the review queue.",
                    class_="meta",
                ),
                read_only_note("promoting a cluster") if secret is None else None,
                cluster_part,
                id="clusters",
            ),
        ]
    )
