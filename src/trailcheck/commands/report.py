"""``trailcheck report``: a report file shown again, compared with a baseline, or as HTML.

The options, declared once in :class:`ReportRequest`; what the command does is in
:mod:`trailcheck.commands.report_impl`, imported when it runs.
"""

from pathlib import Path
from typing import Annotated, NamedTuple

import typer

from trailcheck.commands.declare import command, implementation

__all__ = ["ReportRequest", "report_command"]


class ReportRequest(NamedTuple):
    """What ``trailcheck report`` was asked."""

    report_path: Annotated[
        Path, typer.Argument(metavar="REPORT", help="A report written by `trailcheck run`.")
    ]
    html: Annotated[
        Path | None,
        typer.Option("--html", metavar="FILE", help="Write the HTML report to this file."),
    ] = None
    compare: Annotated[
        Path | None,
        typer.Option("--compare", metavar="FILE", help="A baseline report to compare with."),
    ] = None
    seed: Annotated[int, typer.Option(metavar="N", help="Seed of the comparison's bootstrap.")] = 0


@command(ReportRequest)
def report_command(request: ReportRequest) -> None:
    """Show a run report; with `--compare`, against a baseline on the same cases."""
    implementation("trailcheck.commands.report_impl:report_command", ReportRequest)(request)
