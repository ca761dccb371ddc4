"""The HTML report's awkward-result section: how the agent read correct but awkward tool results.

One row per kind the run's cases return (``RunReport.awkward_results``): its cases, and the
trial pass rate over them with its interval. A run without awkward-result cases has no section.
The pass rate is in ``data-testid="awkward-pass-rate"`` inside the row whose ``data-kind`` is
the kind.
"""

from __future__ import annotations

from trailcheck.cases import AWKWARD_DESCRIPTIONS
from trailcheck.report.formatting import format_bounds, format_number
from trailcheck.report.html_markup import Html, el, join
from trailcheck.run.results import RunReport


def awkward_section(report: RunReport) -> Html | None:
    """Per kind of awkward result: the cases that return one and their trial pass rate."""
    if not report.awkward_results:
        return None
    rows = []
    for kind, rate in report.awkward_results.items():
        cases = [case.id for case in report.cases if kind in case.awkward_results]
        rows.append(
            el(
                "tr",
                el("td", kind),
                el("td", AWKWARD_DESCRIPTIONS[kind]),
                el("td", ", ".join(cases)),
                el("td", f"{rate.count}/{rate.total}"),
                el("td", format_number(rate.value), data_testid="awkward-pass-rate"),
                el("td", f"{format_bounds(rate.interval)} ({rate.interval.label()})"),
                data_testid="awkward-row",
                data_kind=kind,
            )
        )
    head = el(
        "tr",
        join(el("th", h) for h in ("kind", "the result", "cases", "passed", "rate", "interval")),
    )
    return el(
        "section",
        el("h2", "Awkward tool results"),
        el(
            "p",
            "Cases whose faults return a correct but awkward result: how often the agent read it"
            " right and did what came next (passed trials over scored ones).",
            class_="meta",
        ),
        el("table", el("thead", head), el("tbody", join(rows)), class_="numbers"),
        id="awkward-results",
    )
