"""An evaluator version's failing traces: the scores it failed, newest trace first, a page at a
time as the trace list pages (:func:`trailcheck.online.results.failing_scores`), each linked to
its trace. The reason is the evaluator's, about a trace's content: escaped text."""

from __future__ import annotations

from trailcheck.online.fields import iso
from trailcheck.online.results import EvaluatorStatus, FailingPage, FailingScore
from trailcheck.report.html_markup import Html, el, join
from trailcheck.ui.attribution_view import attribution_link
from trailcheck.ui.layout import format_ns
from trailcheck.ui.online_page import failing_href, rate_and_interval
from trailcheck.ui.online_query import OnlineRequest
from trailcheck.ui.traces_page import trace_href

__all__ = ["render_failing_page"]


def _row(score: FailingScore) -> Html:
    return el(
        "tr",
        el("td", el("a", score.trace_id, href=trace_href(score.trace_id))),
        el("td", format_ns(score.trace_ns)),
        el("td", format_ns(score.scored_ns)),
        el("td", score.label or ""),
        el("td", score.reason, class_="text", data_testid="failing-reason"),
        el(
            "td",
            ""
            if score.attribution is None
            else attribution_link(score.trace_id, score.attribution),
        ),
        data_testid="failing-row",
    )


def _next_link(status: EvaluatorStatus, request: OnlineRequest, page: FailingPage) -> Html | None:
    if page.next_cursor is None:
        return None
    href = failing_href(status.name, status.version, request, after=page.next_cursor.text())
    return el("a", "Next page →", href=href, data_testid="next-page")


def render_failing_page(status: EvaluatorStatus, request: OnlineRequest, page: FailingPage) -> Html:
    """The body: what the evaluator version counted, and one page of the traces it failed."""
    problems = [el("p", problem, class_="flash bad") for problem in request.problems]
    counted = "every score kept"
    if request.since_ns is not None:
        counted = f"traces started since {iso(request.since_ns)}"
    summary = el(
        "p",
        f"{status.kind} · {counted}: scored {status.scored}, failed {status.failed}, failure"
        f" rate {rate_and_interval(status)} · ",
        el("a", "← online", href="/online" + request.query()),
        class_="meta",
        data_testid="failing-summary",
    )
    heads = ("trace", "trace start", "scored", "label", "reason", "where it began")
    header = el("tr", *(el("th", text) for text in heads))
    table = el("table", el("thead", header), el("tbody", *map(_row, page.scores)))
    empty = None
    if not page.scores:
        empty = el("p", "No failing trace.", class_="meta", data_testid="no-failing")
    return join([*problems, summary, table, empty, el("p", _next_link(status, request, page))])
