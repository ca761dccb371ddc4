"""What ``trailcheck demo`` does without a subcommand (its options:
:mod:`trailcheck.commands.demo`): the support shop, from v1's traffic to candidate cases, then v1
against v2 on the approved suite, written as reports one can open."""

from __future__ import annotations

from pathlib import Path

from trailcheck.commands.demo import DemoRequest
from trailcheck.commands.demo_traffic import render_traffic_loop, run_traffic_loop
from trailcheck.commands.output import stderr, stdout
from trailcheck.demo.support.showcase import DEMO_K, FRAMEWORK_NAMES, run_demo
from trailcheck.extras import require_extra
from trailcheck.report.files import write_run
from trailcheck.report.html import render_html
from trailcheck.report.progress import ProgressObserver
from trailcheck.report.run_view import render_comparison, render_overview
from trailcheck.run.results import RunReport


def demo_command(request: DemoRequest) -> None:
    """The body of :func:`trailcheck.commands.demo.demo_command`, run without a subcommand."""
    out, chosen = request.out, request.framework
    if chosen == "native":
        _traffic(out)
    rows: list[tuple[str, RunReport, Path]] = []
    comparisons: list[tuple[str, RunReport]] = []

    def progress(name: str) -> ProgressObserver:
        return ProgressObserver(stderr, label=name)

    for demo, result in run_demo(observer=progress, framework=chosen):
        written = write_run(result.report, result.trace_lines, out, demo.name, html=render_html)
        rows.append((demo.name, result.report, written[-1]))
        if result.report.comparison is not None:
            comparisons.append((demo.name, result.report))
    agents = "" if chosen == "native" else f", {FRAMEWORK_NAMES[chosen]} agents"
    stdout.print(
        render_overview(
            [(name, report) for name, report, _ in rows],
            title=f"support dataset{agents}, k = {DEMO_K}",
            k=DEMO_K,
        )
    )
    for name, report in comparisons:
        assert report.comparison is not None
        stdout.print(f"{name} against {rows[0][0]}:", markup=False, soft_wrap=True)
        stdout.print(render_comparison(report.comparison))
    stderr.print("wrote " + ", ".join(str(path) for _, _, path in rows), markup=False)
    stdout.print(f"open {rows[0][2]} to see why v1 fails", markup=False, soft_wrap=True)


def _traffic(out: Path) -> None:
    """v1's traffic into a store, detected, clustered and promoted to candidates."""
    require_extra("loop", "trailcheck demo")  # it clusters; refused before anything runs
    loop = run_traffic_loop(out)
    stdout.print(render_traffic_loop(loop))
    stdout.print(
        f"candidates written to {loop.candidates_file}: review them with"
        f" 'trailcheck review {loop.candidates_file}'; the suite below is the shipped,"
        " approved one.",
        markup=False,
        soft_wrap=True,
    )
