"""Runs: the reports ``trailcheck run`` wrote (``NAME.json`` in the runs folder), two side by
side: pass^k and pass@k by k with their intervals and chart, then the candidate against the
baseline (per-case deltas, McNemar, the paired interval) as the HTML report computes them
(:mod:`trailcheck.report.html_parts`), and each trial that did not pass, linked to its trace."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlencode

from trailcheck.report.html_charts import pass_chart
from trailcheck.report.html_markup import Html, el, join
from trailcheck.report.html_parts import comparison_section, pass_table
from trailcheck.report.outcomes import run_identity
from trailcheck.run.results import RunReport
from trailcheck.ui.traces_page import trace_href

__all__ = ["RunFile", "render_runs_page"]


@dataclass(frozen=True)
class RunFile:
    """A report file of the runs folder: its name, and the report or why it could not be read."""

    name: str
    report: RunReport | None
    problem: str | None = None


def _picker(runs: Sequence[RunFile], baseline: str | None, candidate: str | None) -> Html:
    readable = [run.name for run in runs if run.report is not None]

    def select(name: str, chosen: str | None) -> Html:
        options = [el("option", "-", value="")]
        options += [el("option", run, value=run, selected=run == chosen) for run in readable]
        return el("label", name, el("select", *options, name=name, data_testid=f"pick-{name}"))

    return el(
        "form",
        select("baseline", baseline),
        select("candidate", candidate),
        el("button", "Compare", type="submit"),
        method="get",
        action="/runs",
        class_="filters",
    )


def _failed_trials(report: RunReport) -> Html:
    items = []
    for case in report.cases:
        for trial in case.trials:
            if trial.status == "passed":
                continue
            where = f"{case.id} #{trial.attempt}"
            link = el("a", where, href=trace_href(trial.trace_id)) if trial.trace_id else where
            items.append(
                el(
                    "li",
                    link,
                    " ",
                    el("span", trial.status, class_=f"status-{trial.status}"),
                    f": {trial.reason}",
                    data_testid="failed-trial",
                )
            )
    return el("ul", *items) if items else el("p", "Every trial passed.", class_="meta")


def _run_column(run: RunFile) -> Html:
    assert run.report is not None
    identity = run_identity(run.report)
    return el(
        "div",
        el("h2", run.name),
        el("p", f"{identity.dataset} · {identity.agent} · k={identity.k}", class_="meta"),
        pass_table(run.report.summary),
        pass_chart(run.report.summary),
        el("h3", "Trials that did not pass"),
        _failed_trials(run.report),
        data_testid="run-column",
    )


def _listing(runs: Sequence[RunFile]) -> Html:
    rows = []
    for run in runs:
        if run.report is None:
            rows.append(
                el("tr", el("td", run.name), el("td", run.problem or "", class_="error", colspan=3))
            )
            continue
        identity = run_identity(run.report)
        hat = run.report.summary.pass_hat_k.get(run.report.summary.k)
        rows.append(
            el(
                "tr",
                el("td", el("a", run.name, href="/runs?" + urlencode({"candidate": run.name}))),
                el("td", identity.dataset),
                el("td", identity.agent),
                el("td", "-" if hat is None else f"{hat:.3f}"),
            )
        )
    head = el("tr", *(el("th", h) for h in ("report", "dataset", "agent", "pass^k at largest k")))
    return el("table", el("thead", head), el("tbody", *rows), data_testid="run-list")


def render_runs_page(runs: Sequence[RunFile], baseline: str | None, candidate: str | None) -> Html:
    if not runs:
        return el(
            "p", "No run reports in the runs folder (trailcheck ui --runs DIR).", class_="meta"
        )
    by_name = {run.name: run for run in runs if run.report is not None}
    chosen = [by_name[name] for name in (baseline, candidate) if name in by_name]
    parts: list[Html] = [_picker(runs, baseline, candidate), _listing(runs)]
    if chosen:
        parts.append(el("div", *map(_run_column, chosen), class_="columns"))
    base, cand = by_name.get(baseline or ""), by_name.get(candidate or "")
    if base is not None and cand is not None and base.report and cand.report:
        parts.append(comparison_section(cand.report.against(base.report)))
    return join(parts)
