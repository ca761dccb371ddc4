"""``trailcheck report``: a report file shown again, compared with a baseline, or as HTML.

The options; what the command does is in :mod:`trailcheck.commands.report_impl`, imported when it
runs.
"""

from pathlib import Path
from typing import Annotated

import typer

__all__ = ["report_command"]


def report_command(
    report_path: Annotated[Path, typer.Argument(help="A report written by trailcheck run.")],
    html: Annotated[
        Path | None, typer.Option("--html", help="Write the HTML report to this file.")
    ] = None,
    compare: Annotated[
        Path | None, typer.Option("--compare", help="A baseline report to compare with.")
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the comparison's bootstrap.")] = 0,
) -> None:
    """Show a run report; with --compare, against a baseline on the same cases."""
    from trailcheck.commands.report_impl import report_command as body

    body(report_path=report_path, html=html, compare=compare, seed=seed)
