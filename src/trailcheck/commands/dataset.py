"""``trailcheck dataset import``: a suite written for another tool as a trailcheck dataset file.

The options; what the command does is in :mod:`trailcheck.commands.dataset_impl`, imported when
it runs.
"""

from pathlib import Path
from typing import Annotated

import typer

__all__ = ["dataset_app"]

dataset_app = typer.Typer(help="Dataset files: import suites written for other tools.")


@dataset_app.command("import")
def import_command(
    sources: Annotated[list[Path], typer.Argument(help="Evalset files or folders; task files.")],
    suite_format: Annotated[
        str, typer.Option("--format", help="adk (Google ADK evalsets) or tau-bench (tasks).")
    ],
    out: Annotated[Path, typer.Option("-o", "--out", help="The dataset file to write.")],
    tools_info: Annotated[
        Path | None, typer.Option(help="tau-bench: the domain's tool schemas (*_tools_info.json).")
    ] = None,
    config: Annotated[
        Path | None, typer.Option(help="adk: the criteria file (default test_config.json beside).")
    ] = None,
    num_runs: Annotated[
        int, typer.Option(min=1, help="adk: how many times ADK runs each case.")
    ] = 1,
) -> None:
    """Convert a foreign suite; what could not be mapped, and the source's own traps, are
    reported one line each. Imported cases are candidates: a person reviews them."""
    from trailcheck.commands.dataset_impl import import_command as body

    body(
        sources=sources,
        suite_format=suite_format,
        out=out,
        tools_info=tools_info,
        config=config,
        num_runs=num_runs,
    )
