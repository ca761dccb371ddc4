"""What ``trailcheck dataset import`` does (its options: :mod:`trailcheck.commands.dataset`): a
suite written for another tool as a trailcheck dataset file."""

from __future__ import annotations

from trailcheck.cases import dump_dataset
from trailcheck.cases.importers.adk import import_adk
from trailcheck.cases.importers.tau_bench import import_tau_bench
from trailcheck.commands.dataset import DatasetImportRequest
from trailcheck.commands.output import stderr


def import_command(request: DatasetImportRequest) -> None:
    """The body of :func:`trailcheck.commands.dataset.import_command`."""
    if request.suite_format == "adk":
        imported = import_adk(request.sources, config=request.config, num_runs=request.num_runs)
        dataset, notes = imported.dataset, [*imported.unmapped, *imported.traps]
        traps = imported.traps
    else:
        tau = import_tau_bench(
            request.sources,
            tools_info=request.tools_info,
            max_turns=request.max_turns,
            instruction_as_input=request.instruction_as_input,
        )
        dataset, notes, traps = tau.dataset, tau.unmapped, []
        stderr.print(f"tools that write: {', '.join(sorted(tau.write_tools))}", markup=False)
    out = request.out
    dump_dataset(dataset, out)
    for line in notes:
        stderr.print(f"{'trap' if line in traps else 'not mapped'}: {line}", markup=False)
    stderr.print(
        f"wrote {out}: {len(dataset.cases)} cases ({dataset.version}), {len(traps)} trap(s),"
        f" {len(notes) - len(traps)} item(s) not mapped",
        markup=False,
    )
    simulated = sum(case.user is not None for case in dataset.cases)
    if simulated:
        stderr.print(
            f"{simulated} case(s) have a simulated user: `trailcheck run` needs --user-model"
            " or --user-simulator (docs/simulated_users.md)",
            markup=False,
        )
