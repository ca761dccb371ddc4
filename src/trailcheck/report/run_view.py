"""The terminal summary of a run: what ran, the counts, pass@k and pass^k, a grid of trials,
failures grouped by the failure mode they break, the conversations of the trials that did not
pass (with a simulated user), and the comparison with a baseline (with the replayed users).

It reads well without colour (CI logs): every status has a glyph and a word in the legend,
counts are written out, and a partial run says so in words at the top and the bottom. Text from
the report (case ids, reasons, agent output) is untrusted: it is shown as plain text, never as
rich markup, with control characters escaped.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from trailcheck.report.conversation_view import render_conversations, render_user_replay
from trailcheck.report.formatting import format_bounds, format_number, format_signed
from trailcheck.report.outcomes import (
    GLYPHS,
    MEANINGS,
    FailureGroup,
    group_failures,
    pass_rate_text,
    run_identity,
)
from trailcheck.run.compare import Comparison
from trailcheck.run.results import RunReport
from trailcheck.run.stats import OutcomeSummary
from trailcheck.run.status import TRIAL_STATUSES, is_scored
from trailcheck.terminal_text import shown

_STATUS_STYLE = {
    "passed": "green",
    "failed": "red",
    "timeout": "yellow",
    "crashed": "bold red",
    "unscorable": "magenta",
    "infra_error": "bold yellow",
    "sim_error": "bold magenta",
}


def partial_warning(report: RunReport) -> RenderableType | None:
    """A loud panel for an interrupted run; ``None`` for a complete one."""
    if not report.partial:
        return None
    missing = run_identity(report).interrupted_trials
    count = "some trials" if missing is None else f"{missing} trial(s)"
    return Panel(
        Text(
            f"PARTIAL RUN: interrupted before the end; {count} did not finish and are missing."
            " Every number below covers only the trials that ran.",
            style="bold",
        ),
        title="PARTIAL",
        border_style="bold red",
    )


def _header(report: RunReport) -> Text:
    identity = run_identity(report)
    trials = report.summary.trials
    header = Text(f"run of {shown(identity.dataset)}", style="bold")
    header.append(f"  ·  agent {shown(identity.agent)}  ·  k = {identity.k}")
    if identity.created_at:
        header.append(f"  ·  {shown(identity.created_at)}", style="dim")
    header.append(
        f"\n{report.summary.tasks} tasks; {trials.attempted} trials attempted,"
        f" {trials.scored} scored: "
    )
    for index, status in enumerate(TRIAL_STATUSES):
        count = getattr(trials, status)
        style = _STATUS_STYLE[status] if count else "dim"
        if status in ("infra_error", "sim_error") and count:
            style = "bold yellow reverse"
        header.append(f"{count} {status}", style=style)
        header.append(", " if index < len(TRIAL_STATUSES) - 1 else "")
    if report.review_statuses:
        reviews = ", ".join(f"{n} {status}" for status, n in sorted(report.review_statuses.items()))
        header.append(f"\ncases by review status: {shown(reviews)}", style="dim")
    return header


def pass_table(summary: OutcomeSummary) -> Table:
    """pass^k and pass@k for each k, each beside its interval, with the method in the caption."""
    table = Table(title="pass^k (all k pass) and pass@k (at least one of k passes)")
    for column in ("k", "pass^k", "pass^k interval", "pass@k", "pass@k interval", "tasks"):
        table.add_column(column, justify="right" if column != "tasks" else "left")
    for k in range(1, summary.k + 1):
        table.add_row(
            str(k),
            format_number(summary.pass_hat_k.get(k)),
            format_bounds(summary.pass_hat_k_interval[k]),
            format_number(summary.pass_at_k.get(k)),
            format_bounds(summary.pass_at_k_interval[k]),
            f"{summary.tasks_defined.get(k, 0)}/{summary.tasks} with >= {k} scored",
        )
    methods = {interval.label() for interval in summary.pass_hat_k_interval.values()}
    methods |= {interval.label() for interval in summary.pass_at_k_interval.values()}
    table.caption = "intervals: " + "; ".join(sorted(methods))
    return table


def _rates(summary: OutcomeSummary) -> Text:
    rate = summary.trial_pass_rate
    infra = summary.infra_error_rate
    return Text(
        f"pass@1 {format_number(summary.pass_at_1)} {format_bounds(summary.pass_at_1_interval)}"
        f" ({summary.pass_at_1_interval.label()})\n"
        f"trial pass rate {rate.count}/{rate.total} = {format_number(rate.value)}"
        f" {format_bounds(rate.interval)} ({rate.interval.label()}; trials taken as independent,"
        " not pass@1's interval)\n"
        f"infra error rate {infra.count}/{infra.total} = {format_number(infra.value)}"
        f" {format_bounds(infra.interval)} ({infra.interval.label()})" + _sim_error_line(summary)
    )


def _sim_error_line(summary: OutcomeSummary) -> str:
    """The simulated-user error rate, on a line of its own, when a simulated user erred."""
    sim = summary.sim_error_rate
    if sim is None or not sim.count:
        return ""
    return (
        f"\nsimulated-user error rate {sim.count}/{sim.total} = {format_number(sim.value)}"
        f" {format_bounds(sim.interval)} ({sim.interval.label()}; not scored, beside pass^k)"
    )


def trial_grid(report: RunReport) -> Table:
    """One row per case: its split, one glyph per trial in attempt order, its pass rate."""
    table = Table(title="trials by case")
    table.add_column("case")
    table.add_column("split")
    table.add_column("trials")
    table.add_column("pass rate", justify="right")
    for case in report.cases:
        glyphs = Text()
        for trial in sorted(case.trials, key=lambda t: t.attempt):
            glyphs.append(GLYPHS[trial.status] + " ", style=_STATUS_STYLE[trial.status])
        table.add_row(Text(shown(case.id)), case.split, glyphs, pass_rate_text(case))
    return table


def legend() -> Text:
    """The glyphs and what each means."""
    return Text(
        "legend: " + "  ".join(f"{GLYPHS[s]} {s} ({MEANINGS[s]})" for s in TRIAL_STATUSES),
        style="dim",
    )


def _group(group: FailureGroup) -> RenderableType:
    body = Text()
    for entry in group.entries:
        attempts = ", ".join(str(a) for a in entry.attempts)
        statuses = "/".join(entry.statuses)
        body.append(f"{shown(entry.case_id)}", style="bold")
        body.append(f"  trial(s) {attempts}: {statuses}\n", style="dim")
        for line in entry.lines:
            body.append(f"  - {shown(line)}\n")
    body.rstrip()
    return Panel(body, title=Text(f"{shown(group.mode)}: {group.trials} trial(s)"), expand=True)


def render_failures(report: RunReport) -> RenderableType:
    """Trials that did not pass, grouped by failure mode, with their reason lines."""
    groups = group_failures(report)
    if not groups:
        return Text("no failures: every attempted trial passed", style="green")
    return Group(Text("failures by failure mode", style="bold"), *map(_group, groups))


def render_comparison(comparison: Comparison) -> RenderableType:
    """The tasks whose pass@1 changed, McNemar, the paired interval and the plain statement."""
    parts: list[RenderableType] = [Text("against the baseline", style="bold")]
    changed = [d for d in comparison.deltas if d.delta != 0]
    if changed:
        table = Table("case", "baseline pass@1", "candidate pass@1", "delta")
        for delta in changed:
            style = "green" if delta.delta > 0 else "red"
            table.add_row(
                Text(shown(delta.task_id)),
                f"{delta.baseline:.3f}",
                f"{delta.candidate:.3f}",
                Text(f"{delta.delta:+.3f}", style=style),
            )
        parts.append(table)
    unchanged = comparison.paired_tasks - len(changed)
    test = comparison.mcnemar
    interval = comparison.interval
    lines = [
        f"{comparison.paired_tasks} paired tasks, {len(changed)} changed, {unchanged} unchanged;"
        f" pass@1 {format_number(comparison.baseline_pass_at_1)} -> "
        f"{format_number(comparison.candidate_pass_at_1)}",
        f"McNemar ({test.method}; {test.definition}): {test.regressed} regressed,"
        f" {test.improved} improved, {test.both_passed} both passed, {test.both_failed} both"
        f" failed; p = {test.p_value:.4g}",
        f"mean delta {format_signed(comparison.mean_delta)} {format_bounds(interval)}"
        f" ({interval.label()})",
    ]
    for name, tasks in (
        ("only in the baseline", comparison.only_in_baseline),
        ("only in the candidate", comparison.only_in_candidate),
        ("unscored on a side", comparison.unscored),
    ):
        if tasks:
            lines.append(f"{name} (not compared): {', '.join(tasks)}")
    parts.append(Text(shown("\n".join(lines))))
    parts.append(Text(shown(comparison.statement), style="bold"))
    if comparison.tools:
        parts.append(_tool_success(comparison))
    return Group(*parts)


def _success(calls: int, rate: float | None) -> str:
    return "-" if rate is None else f"{rate:.3f} of {calls}"


def _tool_success(comparison: Comparison) -> RenderableType:
    """Each tool's success in the baseline and in this run (calls without an error)."""
    table = Table(
        "tool", "baseline success", "success", "change", title="tools against the baseline"
    )
    for delta in comparison.tools:
        change = Text(format_signed(delta.delta))
        if delta.delta:
            change.stylize("green" if delta.delta > 0 else "red")
        table.add_row(
            Text(shown(delta.tool)),
            _success(delta.baseline.calls, delta.baseline.success_rate),
            _success(delta.candidate.calls, delta.candidate.success_rate),
            change,
        )
    return table


def _figure(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.3f}"


def render_overview(rows: Sequence[tuple[str, RunReport]], *, title: str, k: int) -> Table:
    """One line per run: pass@1, pass^k, the scored trials that failed and the cases they are
    in (demos compare runs); beside them, when a run has any, the trials not scored (a
    simulated user's error, an infrastructure error), which are never the agent's failures."""
    table = Table(title=title, title_justify="left")
    unscored = any(r.summary.trials.attempted > r.summary.trials.scored for _, r in rows)
    columns = ["run", "pass@1", f"pass^{k}", "trials failed", "cases failing"]
    for column in columns + (["not scored"] if unscored else []):
        # The figures never wrap; the list of cases does, so a narrow terminal keeps the figures.
        listed = column == "cases failing"
        table.add_column(column, no_wrap=not listed, overflow="fold" if listed else "ellipsis")
    for name, report in rows:
        trials = report.summary.trials
        failing = [
            c.id
            for c in report.cases
            if any(is_scored(t.status) and t.status != "passed" for t in c.trials)
        ]
        cells = [
            name,
            _figure(report.summary.pass_at_1),
            _figure(report.summary.pass_hat_k.get(k)),
            f"{trials.scored - trials.passed}/{trials.scored}",
            ", ".join(failing) if failing else "none",
        ]
        if unscored:
            cells.append(_not_scored(report))
        table.add_row(*cells)
    return table


def _not_scored(report: RunReport) -> str:
    """``4 sim_error``: the trials left out of the pass rates, by status."""
    trials = report.summary.trials
    counts = [
        f"{getattr(trials, status)} {status}"
        for status in TRIAL_STATUSES
        if not is_scored(status) and getattr(trials, status)
    ]
    return ", ".join(counts) or "none"


def awkward_table(report: RunReport) -> Table | None:
    """Per kind of awkward tool result the run's cases return: their cases and the trials'
    pass rate with its interval (the HTML report's section, in the terminal); None without."""
    if not report.awkward_results:
        return None
    table = Table(title="Awkward tool results", title_justify="left")
    for heading in ("kind", "cases", "passed", "rate", "interval"):
        table.add_column(heading, justify="left" if heading in ("kind", "cases") else "right")
    for kind, rate in report.awkward_results.items():
        cases = [shown(case.id) for case in report.cases if kind in case.awkward_results]
        table.add_row(
            kind,
            ", ".join(cases),
            f"{rate.count}/{rate.total}",
            format_number(rate.value),
            f"{format_bounds(rate.interval)} ({rate.interval.label()})",
        )
    return table


def render_run(report: RunReport) -> RenderableType:
    """The whole terminal summary of ``report``."""
    warning = partial_warning(report)
    parts: list[RenderableType] = [] if warning is None else [warning]
    parts += [
        _header(report),
        pass_table(report.summary),
        _rates(report.summary),
        trial_grid(report),
        legend(),
        render_failures(report),
    ]
    conversations = render_conversations(report, passed=False)
    if conversations is not None:
        parts.append(conversations)
    awkward = awkward_table(report)
    if awkward is not None:
        parts.append(awkward)
    if report.comparison is not None:
        parts.append(render_comparison(report.comparison))
    if report.user_replay is not None:
        parts.append(render_user_replay(report.user_replay))
    if warning is not None:
        parts.append(warning)
    return Group(*parts)
