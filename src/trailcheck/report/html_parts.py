"""The sections of the HTML report but the failed trials: summary, pass table, trial grid,
per-tool statistics, comparison and manifest.

Numbers a test or a script may read carry a stable ``data-testid`` (``count-failed``,
``pass-hat-k-4``, ``case-pass-rate`` inside ``case-row`` with ``data-case``); they hold the number
alone, formatted to three decimals, or ``undefined``.
"""

from __future__ import annotations

import orjson

from trailcheck.report.formatting import format_bounds, format_number
from trailcheck.report.html_markup import Html, el, join
from trailcheck.report.html_tool_success import tool_success_table
from trailcheck.report.outcomes import GLYPHS, MEANINGS, pass_rate_text, reason_lines, run_identity
from trailcheck.report.tool_stats import tool_stats
from trailcheck.run.compare import Comparison
from trailcheck.run.results import RunReport
from trailcheck.run.stats import OutcomeSummary
from trailcheck.run.status import TRIAL_STATUSES


def _milliseconds(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def header(report: RunReport) -> Html:
    """Title line, and a banner that cannot be missed when the run is partial."""
    identity = run_identity(report)
    banner = None
    if report.partial:
        missing = identity.interrupted_trials
        count = "some trials" if missing is None else f"{missing} trial(s)"
        banner = el(
            "div",
            f"PARTIAL RUN: interrupted before the end; {count} did not finish and are missing."
            " Every number here covers only the trials that ran.",
            class_="partial",
            role="alert",
            data_testid="partial-banner",
        )
    return join(
        [
            el("h1", "trailcheck run: ", el("span", identity.dataset, data_testid="dataset")),
            banner,
            el(
                "p",
                "agent ",
                el("span", identity.agent, data_testid="agent"),
                " · k = ",
                el("span", identity.k, data_testid="k"),
                f" · {identity.created_at}" if identity.created_at else None,
                class_="meta",
            ),
        ]
    )


def _count(label: str, value: int, testid: str, css: str = "") -> Html:
    return el(
        "div",
        el("span", value, class_="value", data_testid=testid),
        el("span", label, class_="label"),
        class_=f"count {css}".strip(),
    )


def summary(report: RunReport) -> Html:
    """The counts (infra errors always among them), pass@1 with its interval, the plain rates."""
    s = report.summary
    trials = s.trials
    counts = [
        _count("tasks", s.tasks, "count-tasks"),
        _count("attempted", trials.attempted, "count-attempted"),
    ]
    for status in TRIAL_STATUSES:
        value = getattr(trials, status)
        # Colour only what happened: a zero stays plain, a non-zero failure is outlined.
        css = f"status-{status}" if value else "zero"
        if value and status != "passed":
            css += " alarm"
        counts.append(_count(status, value, f"count-{status}", css))
    rate = s.trial_pass_rate
    infra = s.infra_error_rate
    return el(
        "section",
        el("h2", "Summary"),
        el("div", join(counts), class_="counts"),
        el(
            "p",
            "pass@1 ",
            el("strong", format_number(s.pass_at_1), data_testid="pass-at-1"),
            " ",
            el("span", format_bounds(s.pass_at_1_interval), data_testid="pass-at-1-interval"),
            f" ({s.pass_at_1_interval.label()})",
        ),
        el(
            "p",
            f"trial pass rate {rate.count}/{rate.total} = {format_number(rate.value)}"
            f" {format_bounds(rate.interval)} ({rate.interval.label()};"
            " trials taken as independent, not pass@1's interval) · infra error rate"
            f" {infra.count}/{infra.total} = {format_number(infra.value)}"
            f" {format_bounds(infra.interval)} ({infra.interval.label()})" + _sim_error_text(s),
            class_="meta",
        ),
        id="summary",
    )


def _sim_error_text(s: OutcomeSummary) -> str:
    sim = s.sim_error_rate
    if sim is None or not sim.count:
        return ""
    return (
        f" · simulated-user error rate {sim.count}/{sim.total} = {format_number(sim.value)}"
        f" {format_bounds(sim.interval)} ({sim.interval.label()}; not scored)"
    )


def pass_table(s: OutcomeSummary) -> Html:
    """pass^k and pass@k for each k, with their intervals and methods."""
    head = el(
        "tr",
        join(
            el("th", h)
            for h in ("k", "pass^k", "interval", "pass@k", "interval", "tasks defined", "method")
        ),
    )
    rows = []
    for k in range(1, s.k + 1):
        hat_i, at_i = s.pass_hat_k_interval[k], s.pass_at_k_interval[k]
        rows.append(
            el(
                "tr",
                el("td", k),
                el("td", format_number(s.pass_hat_k.get(k)), data_testid=f"pass-hat-k-{k}"),
                el("td", format_bounds(hat_i), data_testid=f"pass-hat-k-{k}-interval"),
                el("td", format_number(s.pass_at_k.get(k)), data_testid=f"pass-at-k-{k}"),
                el("td", format_bounds(at_i), data_testid=f"pass-at-k-{k}-interval"),
                el("td", f"{s.tasks_defined.get(k, 0)}/{s.tasks}"),
                el("td", hat_i.label(), class_="meta"),
            )
        )
    return el("table", el("thead", head), el("tbody", join(rows)), class_="numbers")


def trial_grid(report: RunReport) -> Html:
    """One row per case, one glyph per trial (its reason in the tooltip), and a legend."""
    rows = []
    for case in report.cases:
        cells = [
            el(
                "span",
                GLYPHS[t.status],
                class_=f"glyph status-{t.status}",
                title=f"trial {t.attempt}: {t.status}: " + "; ".join(reason_lines(t))
                if t.status != "passed"
                else f"trial {t.attempt}: passed",
                data_status=t.status,
            )
            for t in sorted(case.trials, key=lambda t: t.attempt)
        ]
        rows.append(
            el(
                "tr",
                el(
                    "td",
                    el("a", case.id, href=f"#case-{case.id}")
                    if any(t.status != "passed" for t in case.trials)
                    else case.id,
                ),
                el("td", case.split),
                el("td", ", ".join(case.failure_modes) or "—", class_="meta"),
                el("td", join(cells), class_="glyphs"),
                el("td", pass_rate_text(case), data_testid="case-pass-rate"),
                data_testid="case-row",
                data_case=case.id,
            )
        )
    head = el(
        "tr", join(el("th", h) for h in ("case", "split", "failure modes", "trials", "pass rate"))
    )
    legend = join(
        el("span", f"{GLYPHS[s]} {s}: {MEANINGS[s]}", class_=f"status-{s}") for s in TRIAL_STATUSES
    )
    return el(
        "section",
        el("h2", "Trials by case"),
        el("table", el("thead", head), el("tbody", join(rows)), class_="grid"),
        el("p", legend, class_="legend"),
        id="grid",
    )


def tools_section(report: RunReport) -> Html:
    """Calls, errors, error rate and latency of every tool, over all trials."""
    rows = [
        el(
            "tr",
            el("td", t.name),
            el("td", t.calls, data_testid="tool-calls"),
            el("td", t.errors, data_testid="tool-errors"),
            el("td", f"{t.error_rate:.3f}"),
            el("td", _milliseconds(t.median_ms)),
            el("td", _milliseconds(t.p95_ms)),
            data_testid="tool-row",
            data_tool=t.name,
        )
        for t in tool_stats(report)
    ]
    head = el(
        "tr",
        join(el("th", h) for h in ("tool", "calls", "errors", "error rate", "median ms", "p95 ms")),
    )
    body = (
        el("table", el("thead", head), el("tbody", join(rows)), class_="numbers")
        if rows
        else el("p", "no tool was called")
    )
    return el(
        "section",
        el("h2", "Tools"),
        body,
        el(
            "p",
            "latency: duration_ms of the calls with a recorded end;"
            " p95 interpolated between order statistics",
            class_="meta",
        ),
        id="tools",
    )


def comparison_section(comparison: Comparison) -> Html:
    """The changed tasks, McNemar, the paired interval and the plain statement; each tool's
    success in both runs."""
    changed = [d for d in comparison.deltas if d.delta != 0]
    rows = [
        el(
            "tr",
            el("td", d.task_id),
            el("td", format_number(d.baseline)),
            el("td", format_number(d.candidate)),
            el("td", f"{d.delta:+.3f}", class_="up" if d.delta > 0 else "down"),
        )
        for d in changed
    ]
    head = el(
        "tr", join(el("th", h) for h in ("case", "baseline pass@1", "candidate pass@1", "delta"))
    )
    test = comparison.mcnemar
    excluded = [
        el("p", f"{name} (not compared): {', '.join(tasks)}", class_="meta")
        for name, tasks in (
            ("only in the baseline", comparison.only_in_baseline),
            ("only in the candidate", comparison.only_in_candidate),
            ("unscored on a side", comparison.unscored),
        )
        if tasks
    ]
    return el(
        "section",
        el("h2", "Against the baseline"),
        el("p", el("strong", comparison.statement, data_testid="comparison-statement")),
        el(
            "p",
            f"{comparison.paired_tasks} paired tasks, {len(changed)} changed; pass@1"
            f" {format_number(comparison.baseline_pass_at_1)} →"
            f" {format_number(comparison.candidate_pass_at_1)};"
            f" mean delta {format_bounds(comparison.interval)} ({comparison.interval.label()})",
        ),
        el(
            "p",
            f"McNemar ({test.method}; {test.definition}): {test.regressed} regressed,"
            f" {test.improved} improved, {test.both_passed} both passed,"
            f" {test.both_failed} both failed; p = ",
            el("span", f"{test.p_value:.4g}", data_testid="mcnemar-p"),
        ),
        el("table", el("thead", head), el("tbody", join(rows)), class_="numbers")
        if rows
        else el("p", "no task's pass@1 changed"),
        join(excluded),
        tool_success_table(comparison.tools),
        id="comparison",
    )


def manifest_section(report: RunReport) -> Html:
    """The manifest as JSON, folded away: what the numbers depend on."""
    text = orjson.dumps(report.manifest, option=orjson.OPT_INDENT_2).decode()
    return el(
        "section",
        el("details", el("summary", "Manifest"), el("pre", text, data_testid="manifest")),
        id="manifest",
    )
