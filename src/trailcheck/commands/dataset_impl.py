"""What ``trailcheck dataset import`` does (its options: :mod:`trailcheck.commands.dataset`): a
suite written for another tool as a trailcheck dataset file."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from trailcheck.cases import dump_dataset
from trailcheck.cases.importers.adk import import_adk
from trailcheck.cases.importers.tau_bench import import_tau_bench
from trailcheck.commands.output import stderr
from trailcheck.errors import UsageError

SuiteFormat = Literal["adk", "tau-bench"]


def import_command(
    *,
    sources: list[Path],
    suite_format: str,
    out: Path,
    tools_info: Path | None,
    config: Path | None,
    num_runs: int,
) -> None:
    """The body of :func:`trailcheck.commands.dataset.import_command`."""
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
