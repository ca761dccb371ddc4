"""The online page: each evaluator version's scores, failure rate with its interval, and queue
(:func:`trailcheck.online.results.online_status`); its rate per window drawn with the interval
(:mod:`.online_chart`); the alerts that fired (:mod:`trailcheck.online.alert_log`). Each
evaluator links to its failing traces (:mod:`.online_failing_page`), and so does each alert.

A reason comes from an evaluator's reading of a trace, and the traces an alert names are ids
from traffic: both are text, escaped like everything else (:mod:`trailcheck.report.html_markup`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final
from urllib.parse import quote

from trailcheck.online.alert_log import FiredAlert
from trailcheck.online.results import EvaluatorStatus, OnlineStatus
from trailcheck.report.html_markup import Html, el, join, void
from trailcheck.ui.layout import format_ns
from trailcheck.ui.online_chart import CHARTED_WINDOWS, rate_chart, window_text
from trailcheck.ui.online_query import OnlineRequest
from trailcheck.ui.traces_page import trace_href

__all__ = [
    "failing_href",
    "interval_text",
    "rate_and_interval",
    "rate_text",
    "render_online_page",
]

# The failing traces an alert's row names; the rest are counted.
_SHOWN_TRACES: Final = 10


def failing_href(name: str, version: str, request: OnlineRequest, **more: str) -> str:
    """The page of ``name@version``'s failing traces, in the same view (window, since), with
    ``more`` in its query string."""
    path = f"/online/{quote(name, safe='')}/{quote(version, safe='')}"
    return path + request.query(**more)


def rate_text(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def interval_text(interval: tuple[float | None, float | None]) -> str:
    low, high = interval
    return "-" if low is None or high is None else f"[{low:.3f}, {high:.3f}]"


def rate_and_interval(status: EvaluatorStatus) -> str:
    """``0.500 [0.254, 0.746]``, or ``-`` with nothing scored."""
    if status.failure_rate is None:
        return "-"
    return f"{rate_text(status.failure_rate)} {interval_text(status.interval)}"


def _lag(seconds: float | None) -> str:
    """How long the oldest due job has waited: ``45s``, ``12m 5s``, ``3h 20m``."""
    if seconds is None:
        return "-"
    whole = int(seconds)
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m {whole % 60}s"
    return f"{whole // 3600}h {whole % 3600 // 60}m"


def _view_form(request: OnlineRequest) -> Html:
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
                data_testid=f"online-{name}",
            ),
        )

    return el(
        "form",
        field("window", "window", request.window, "1h"),
        field("since (UTC)", "since", request.since, "24h or 2026-12-07T13:00"),
        el("button", "Show", type="submit"),
        el("a", "everything kept", href="/online"),
        method="get",
        action="/online",
        class_="filters",
        data_testid="online-view",
    )


def _summary_row(status: EvaluatorStatus, request: OnlineRequest) -> Html:
    return el(
        "tr",
        el("td", el("a", status.name, href=failing_href(status.name, status.version, request))),
        el("td", status.version),
        el("td", status.kind),
        el("td", status.scored, data_testid="scored"),
        el("td", status.failed, data_testid="failed"),
        el("td", rate_text(status.failure_rate), data_testid="failure-rate"),
        el("td", interval_text(status.interval), data_testid="interval"),
        el("td", status.waiting, data_testid="waiting"),
        el("td", _lag(status.lag_s), data_testid="lag"),
        el("td", status.skipped, data_testid="skipped"),
        el("td", status.failed_executions, data_testid="failed-runs"),
        el("td", status.quarantined, data_testid="quarantined"),
        data_testid="evaluator-row",
    )


def _summary(status: OnlineStatus, request: OnlineRequest) -> Html:
    level = f"{status.evaluators[0].level:.0%} interval ({status.evaluators[0].method})"
    heads = ("evaluator", "version", "kind", "scored", "failed", "failure rate", level)
    queue = ("waiting", "lag", "skipped", "failed runs", "quarantined")
    header = el("tr", *(el("th", text) for text in heads), *(el("th", text) for text in queue))
    rows = [_summary_row(evaluator, request) for evaluator in status.evaluators]
    counted = f"traces started since {status.since}" if status.since else "every score kept"
    return join(
        [
            el(
                "p",
                f"Counting {counted}. Failed runs: executions that kept failing (a judge that"
                " never answered); quarantined: traces that crashed the evaluator.",
                class_="meta",
            ),
            el("table", el("thead", header), el("tbody", *rows), class_="numbers"),
        ]
    )


def _window_table(status: EvaluatorStatus) -> Html:
    shown = status.windows[-CHARTED_WINDOWS:]
    items = [el("li", window_text(window), data_testid="window") for window in reversed(shown)]
    return el("details", el("summary", f"the {len(shown)} window(s) as text"), el("ol", *items))


def _evaluator_section(index: int, status: EvaluatorStatus, request: OnlineRequest) -> Html:
    return el(
        "section",
        el("h2", f"{status.name}@{status.version}"),
        el(
            "p",
            f"{status.kind} · scored {status.scored}, failed {status.failed}, failure rate"
            f" {rate_and_interval(status)} · ",
            el(
                "a",
                "failing traces",
                href=failing_href(status.name, status.version, request),
            ),
            class_="meta",
        ),
        rate_chart(status, request.window, chart_id=f"rate-{index}"),
        _window_table(status) if status.windows else None,
        data_testid="evaluator-section",
    )


def _failing_traces(alert: FiredAlert) -> Html:
    links = []
    for ref in alert.failing_traces[:_SHOWN_TRACES]:
        cluster = f" ({ref.cluster_id})" if ref.cluster_id else ""
        links.append(join([el("a", ref.trace_id, href=trace_href(ref.trace_id)), cluster]))
    more = alert.total_failing - len(links)
    return join([join(links, ", "), f" and {more} more" if more > 0 else None])


def _alert_row(alert: FiredAlert, request: OnlineRequest) -> Html:
    evaluator = f"{alert.name}@{alert.version}"
    reason: Html | str = alert.reason
    if alert.problem is not None:
        reason = el("span", alert.problem, class_="error")
    return el(
        "tr",
        el("td", alert.alert),
        el("td", el("a", evaluator, href=failing_href(alert.name, alert.version, request))),
        el("td", f"{format_ns(alert.window_start_ns)} to {format_ns(alert.window_end_ns)}"),
        el("td", format_ns(alert.fired_ns)),
        el("td", reason, class_="text", data_testid="alert-reason"),
        el("td", _failing_traces(alert), class_="text", data_testid="alert-traces"),
        data_testid="alert-row",
    )


def _alerts(alerts: Sequence[FiredAlert], request: OnlineRequest) -> Html:
    if not alerts:
        return el("p", "No alert has fired.", class_="meta", data_testid="no-alerts")
    heads = ("alert", "evaluator", "window (UTC)", "fired", "reason", "failing traces (cluster)")
    header = el("tr", *(el("th", text) for text in heads))
    rows = [_alert_row(alert, request) for alert in alerts]
    return el("table", el("thead", header), el("tbody", *rows))


def render_online_page(
    request: OnlineRequest, status: OnlineStatus, alerts: Sequence[FiredAlert]
) -> Html:
    """The whole page's body: the view form, the evaluators, their charts, the alerts."""
    problems = [el("p", problem, class_="flash bad") for problem in request.problems]
    if not status.evaluators:
        nothing = el(
            "p",
            "No online evaluator has run on this store (trailcheck online run).",
            class_="meta",
            data_testid="no-evaluators",
        )
        return join([_view_form(request), *problems, nothing])
    sections = [
        _evaluator_section(index, evaluator, request)
        for index, evaluator in enumerate(status.evaluators)
    ]
    return join(
        [
            _view_form(request),
            *problems,
            _summary(status, request),
            *sections,
            el("section", el("h2", "Alerts that fired"), _alerts(alerts, request), id="alerts"),
        ]
    )
