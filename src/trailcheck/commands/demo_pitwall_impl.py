"""What ``trailcheck demo pitwall`` does (its options: :mod:`trailcheck.commands.demo_pitwall`):
the Pit Wall's seed story, v1 of the results tool against v2."""

from __future__ import annotations

from trailcheck.commands.demo_pitwall import PitwallDemoRequest
from trailcheck.commands.output import stderr, stdout
from trailcheck.demo.pitwall.showcase import run_pitwall_demo
from trailcheck.report.files import write_run
from trailcheck.report.html import render_html
from trailcheck.report.progress import ProgressObserver
from trailcheck.report.run_view import render_comparison, render_failures, render_overview

__all__ = ["pitwall_demo_command"]


def pitwall_demo_command(request: PitwallDemoRequest) -> None:
    """The body of :func:`trailcheck.commands.demo_pitwall.pitwall_demo_command`."""
    out, k = request.out, request.k
    results = run_pitwall_demo(
        k=k,
        observer=lambda name: ProgressObserver(stderr, label=name),
        framework=request.framework,
    )
    written = []
    for demo, result in results:
        paths = write_run(result.report, result.trace_lines, out, demo.name, html=render_html)
        written.append(paths[-1])
    for dataset_file in dict.fromkeys(demo.dataset_file for demo, _ in results):
        rows = [(d.name, r.report) for d, r in results if d.dataset_file == dataset_file]
        title = f"{dataset_file.removesuffix('.yaml')} dataset, k = {k}"
        stdout.print(render_overview(rows, title=title, k=k))
    v1 = results[0][1].report
    stdout.print("Why pitwall-v1 fails:", markup=False)
    stdout.print(render_failures(v1))
    for demo, result in results:
        if result.report.comparison is not None:
            stdout.print(f"{demo.name} against its v1 run:", markup=False, soft_wrap=True)
            stdout.print(render_comparison(result.report.comparison))
    stderr.print("wrote " + ", ".join(str(path) for path in written), markup=False)
