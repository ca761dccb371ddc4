"""What ``trailcheck report`` does (its options: :mod:`trailcheck.commands.report`): a report
file shown again, compared with a baseline, or as HTML."""

from __future__ import annotations

from trailcheck.commands.output import stderr, stdout
from trailcheck.commands.report import ReportRequest
from trailcheck.report.files import write_atomically
from trailcheck.report.html import render_html
from trailcheck.report.run_view import render_run
from trailcheck.run.results import RunReport, load_report


def _dataset_version(report: RunReport) -> object:
    dataset = report.manifest.get("dataset")
    return dataset.get("version") if isinstance(dataset, dict) else None


def report_command(request: ReportRequest) -> None:
    """The body of :func:`trailcheck.commands.report.report_command`."""
    report = load_report(request.report_path)
    if request.compare is not None:
        baseline = load_report(request.compare)
        comparison = report.against(baseline, seed=request.seed)
        report = report.model_copy(update={"comparison": comparison})
        mine, theirs = _dataset_version(report), _dataset_version(baseline)
        if mine != theirs:
            stderr.print(
                f"note: the baseline ran {theirs}, this report {mine}; cases are paired by id",
                markup=False,
            )
    stdout.print(render_run(report))
    html = request.html
    if html is not None:
        write_atomically(html, render_html(report).encode())
        stderr.print(f"wrote {html}", markup=False)
