"""Terminal and JSON renderings of an :class:`~trailcheck.run.stats.OutcomeSummary`.

Undefined values print as ``undefined`` (``null`` in JSON), never as a number; every interval
is printed with its method, so a task bootstrap is not mistaken for a Wilson interval.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from trailcheck.intervals import Rate
from trailcheck.report.formatting import format_bounds, format_number
from trailcheck.run.stats import OutcomeSummary
from trailcheck.run.status import TRIAL_STATUSES


def _counts_line(summary: OutcomeSummary) -> str:
    trials = summary.trials
    counts = ", ".join(f"{getattr(trials, status)} {status}" for status in TRIAL_STATUSES)
    return (
        f"{summary.tasks} tasks; {trials.attempted} trials attempted, {trials.scored} scored\n"
        f"{counts}"
    )


def _rate_line(name: str, rate: Rate, note: str = "") -> str:
    return (
        f"{name}: {rate.count}/{rate.total} = {format_number(rate.value)}"
        f" {format_bounds(rate.interval)} ({rate.interval.label()}{note})"
    )


def stats_table(summary: OutcomeSummary) -> Table:
    """One row per k: pass^k, pass@k, the tasks defined at k and pass^k's interval."""
    label = summary.pass_hat_k_interval[1].label()
    table = Table(
        "k", "pass^k", "pass@k", "tasks defined", "pass^k interval", caption=f"intervals: {label}"
    )
    for k in range(1, summary.k + 1):
        table.add_row(
            str(k),
            format_number(summary.pass_hat_k[k]),
            format_number(summary.pass_at_k[k]),
            f"{summary.tasks_defined[k]}/{summary.tasks}",
            format_bounds(summary.pass_hat_k_interval[k]),
        )
    return table


def render_stats(summary: OutcomeSummary) -> RenderableType:
    """The counts, the pass^k table and the plain rates, for a terminal."""
    return Group(
        Text(_counts_line(summary)),
        stats_table(summary),
        Text(
            _rate_line(
                "trial pass rate",
                summary.trial_pass_rate,
                "; trials taken as independent: not pass@1's interval",
            )
        ),
        Text(_rate_line("infra error rate", summary.infra_error_rate)),
        Text(_rate_line("unscorable rate", summary.unscorable_rate)),
        *(
            [Text(_rate_line("simulated-user error rate", summary.sim_error_rate))]
            if summary.sim_error_rate is not None and summary.sim_error_rate.count
            else []
        ),
    )


def stats_json(summary: OutcomeSummary) -> dict[str, Any]:
    """The summary as JSON-ready data: undefined values are ``None`` (null), keys by k are text."""
    return summary.model_dump(mode="json")
