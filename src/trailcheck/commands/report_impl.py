"""What ``trailcheck report`` does (its options: :mod:`trailcheck.commands.report`): a report
file shown again, compared with a baseline, or as HTML."""

from __future__ import annotations

from pathlib import Path

from trailcheck.commands.output import stderr, stdout
from trailcheck.report.files import write_atomically
from trailcheck.report.html import render_html
from trailcheck.report.run_view import render_run
from trailcheck.run.compare import compare_outcomes
from trailcheck.run.results import RunReport, load_report


def _dataset_version(report: RunReport) -> object:
    dataset = report.manifest.get("dataset")
    return dataset.get("version") if isinstance(dataset, dict) else None


def report_command(
    *, report_path: Path, html: Path | None, compare: Path | None, seed: int
) -> None:
    """The body of :func:`trailcheck.commands.report.report_command`."""
    report = load_report(report_path)
    if compare is not None:
        baseline = load_report(compare)
        comparison = compare_outcomes(report.outcomes(), baseline.outcomes(), seed=seed)
        report = report.model_copy(update={"comparison": comparison})
        mine, theirs = _dataset_version(report), _dataset_version(baseline)
        if mine != theirs:
            stderr.print(
                f"note: the baseline ran {theirs}, this report {mine}; cases are paired by id",
                markup=False,
            )
    stdout.print(render_run(report))
    if html is not None:
        write_atomically(html, render_html(report).encode())
        stderr.print(f"wrote {html}", markup=False)
