"""``--executor``, ``--address`` and ``--num-cpus``: where ``trailcheck run`` runs its trials and
``trailcheck score`` its chunks. Declared with cheap imports only (typer reads them at every
start); Ray is imported only by a command that was given ``--executor ray``."""

from typing import Annotated, Final, Literal

import typer

from trailcheck.errors import UsageError

__all__ = [
    "EXECUTOR_PANEL",
    "AddressOption",
    "Executor",
    "ExecutorOption",
    "NumCpusOption",
    "executor_kind",
]

EXECUTOR_PANEL: Final = "Executor"

Executor = Literal["local", "ray"]

ExecutorOption = Annotated[
    Executor,
    typer.Option(
        "--executor",
        rich_help_panel=EXECUTOR_PANEL,
        help="local: this machine; ray: Ray tasks, the `ray` extra (docs/scale.md).",
    ),
]
AddressOption = Annotated[
    str | None,
    typer.Option(
        "--address",
        metavar="ADDRESS",
        rich_help_panel=EXECUTOR_PANEL,
        help="The Ray cluster to join (`auto`, or `ray://HEAD:10001`); default: a local Ray.",
    ),
]
NumCpusOption = Annotated[
    float | None,
    typer.Option(
        "--num-cpus",
        min=0.01,
        metavar="CPUS",
        rich_help_panel=EXECUTOR_PANEL,
        help="The CPUs each Ray task asks for (default 1).",
    ),
]


def executor_kind(executor: Executor, address: str | None, num_cpus: float | None) -> Executor:
    """``executor``, with the options that only Ray reads refused without it."""
    if executor == "local" and (address is not None or num_cpus is not None):
        given = "--address" if address is not None else "--num-cpus"
        raise UsageError(f"{given} needs --executor ray")
    return executor
