"""``trailcheck dataset import``: a suite written for another tool as a trailcheck dataset file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer
from rich.console import Console

from trailcheck.cases import dump_dataset
from trailcheck.cases.importers.adk import import_adk
from trailcheck.cases.importers.tau_bench import import_tau_bench
from trailcheck.errors import UsageError

dataset_app = typer.Typer(help="Dataset files: import suites written for other tools.")
stderr = Console(stderr=True, highlight=False, soft_wrap=True)

SuiteFormat = Literal["adk", "tau-bench"]


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
    if suite_format == "adk":
        imported = import_adk(sources, config=config, num_runs=num_runs)
        dataset, notes = imported.dataset, [*imported.unmapped, *imported.traps]
        traps = imported.traps
    elif suite_format == "tau-bench":
        tau = import_tau_bench(sources, tools_info=tools_info)
        dataset, notes, traps = tau.dataset, tau.unmapped, []
        stderr.print(f"tools that write: {', '.join(sorted(tau.write_tools))}", markup=False)
    else:
        raise UsageError(f"--format {suite_format!r}: one of adk, tau-bench")
    dump_dataset(dataset, out)
    for line in notes:
        stderr.print(f"{'trap' if line in traps else 'not mapped'}: {line}", markup=False)
    stderr.print(
        f"wrote {out}: {len(dataset.cases)} cases ({dataset.version}), {len(traps)} trap(s),"
        f" {len(notes) - len(traps)} item(s) not mapped",
        markup=False,
    )
