"""``trailcheck dataset import``: a suite written for another tool as a trailcheck dataset file.

The options, declared once in :class:`DatasetImportRequest`; what the command does is in
:mod:`trailcheck.commands.dataset_impl`, imported when it runs.
"""

from pathlib import Path
from typing import Annotated, Literal, NamedTuple

import typer

from trailcheck.commands.declare import Command, command, implementation, new_app

__all__ = ["DEFAULT_MAX_TURNS", "DatasetImportRequest", "SuiteFormat", "dataset_app"]

SuiteFormat = Literal["adk", "tau-bench"]
"""The suites ``dataset import`` reads: Google ADK evalsets, tau-bench tasks."""

DEFAULT_MAX_TURNS = 30
"""The library's ``trailcheck.cases.importers.tau_user.DEFAULT_MAX_TURNS``, spelled out here so
that printing the help imports no implementation (a test keeps the two equal)."""

dataset_app = new_app("Dataset files: import suites written for other tools.")


class DatasetImportRequest(NamedTuple):
    """What ``trailcheck dataset import`` was asked."""

    sources: Annotated[
        list[Path],
        typer.Argument(metavar="SOURCES", help="Evalset files or folders; task files."),
    ]
    suite_format: Annotated[
        SuiteFormat,
        typer.Option("--format", help="adk: Google ADK evalsets; tau-bench: tau-bench tasks."),
    ]
    out: Annotated[
        Path, typer.Option("-o", "--out", metavar="FILE", help="The dataset file to write.")
    ]
    tools_info: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE", help="tau-bench: the domain's tool schemas (`*_tools_info.json`)."
        ),
    ] = None
    config: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE", help="adk: the criteria file (default: `test_config.json` beside)."
        ),
    ] = None
    num_runs: Annotated[
        int, typer.Option(min=1, metavar="N", help="adk: how many times ADK runs each case.")
    ] = 1
    max_turns: Annotated[
        int,
        typer.Option(
            min=1, max=200, metavar="N", help="tau-bench: the most turns a simulated user speaks."
        ),
    ] = DEFAULT_MAX_TURNS
    instruction_as_input: Annotated[
        bool,
        typer.Option(
            "--instruction-as-input",
            help="tau-bench: the instruction as the case input, for a run with no simulated user.",
        ),
    ] = False


@dataset_app.command("import", cls=Command)
@command(DatasetImportRequest)
def import_command(request: DatasetImportRequest) -> None:
    """Convert a foreign suite; what could not be mapped, and the source's own traps, are
    reported one line each. Imported cases are candidates: a person reviews them."""
    implementation("trailcheck.commands.dataset_impl:import_command", DatasetImportRequest)(request)
