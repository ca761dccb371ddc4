"""``trailcheck demo``: the support shop, v1 against v2, written as reports one can open."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from trailcheck.commands.run import stderr, stdout
from trailcheck.demo.support.showcase import DEMO_K, run_demo
from trailcheck.report.files import write_run
from trailcheck.report.html import render_html
from trailcheck.report.progress import ProgressObserver
from trailcheck.report.run_view import render_comparison
from trailcheck.run.results import RunReport


def _figure(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.3f}"


def _overview(rows: list[tuple[str, RunReport, Path]]) -> Table:
    table = Table(title=f"support dataset, k = {DEMO_K}", title_justify="left")
    for column in ("run", "pass@1", f"pass^{DEMO_K}", "trials failed", "cases failing"):
        table.add_column(column, no_wrap=True)
    for name, report, _ in rows:
        trials = report.summary.trials
        failing = [c.id for c in report.cases if any(t.status != "passed" for t in c.trials)]
        table.add_row(
            name,
            _figure(report.summary.pass_at_1),
            _figure(report.summary.pass_hat_k.get(DEMO_K)),
            f"{trials.attempted - trials.passed}/{trials.attempted}",
            str(len(failing)),
        )
    return table


def demo_command(
    out: Annotated[Path, typer.Option(help="Folder for the reports and their HTML.")] = Path(
        ".trailcheck"
    )
    / "demo",
) -> None:
    """Run the support dataset on v1 (planted bugs) and v2 (fixed), k = 4; write the reports.

    Exit 0 when the demo ran (v1 failing is the point), 2 when it could not.
    """
    rows: list[tuple[str, RunReport, Path]] = []
    comparisons: list[tuple[str, RunReport]] = []

    def progress(name: str) -> ProgressObserver:
        return ProgressObserver(stderr, label=name)

    for demo, result in run_demo(observer=progress):
        written = write_run(result.report, result.trace_lines, out, demo.name, html=render_html)
        rows.append((demo.name, result.report, written[-1]))
        if result.report.comparison is not None:
            comparisons.append((demo.name, result.report))
    stdout.print(_overview(rows))
    for name, report in comparisons:
        assert report.comparison is not None
        stdout.print(f"{name} against v1-prompt-only:", markup=False, soft_wrap=True)
        stdout.print(render_comparison(report.comparison))
    stderr.print("wrote " + ", ".join(str(path) for _, _, path in rows), markup=False)
    stdout.print(f"open {rows[0][2]} to see why v1 fails", markup=False, soft_wrap=True)
