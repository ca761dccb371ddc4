"""``--executor``, ``--address`` and ``--num-cpus``: where ``trailcheck run`` runs its trials and
``trailcheck score`` its chunks. Declared with cheap imports only (typer reads them at every
start); Ray is imported only by a command that was given ``--executor ray``."""

from typing import Annotated, Literal

import typer

from trailcheck.errors import UsageError

__all__ = ["AddressOption", "Executor", "ExecutorOption", "NumCpusOption", "executor_kind"]

Executor = Literal["local", "ray"]

ExecutorOption = Annotated[
    str,
    typer.Option(
        "--executor",
        help="local: this machine; ray: Ray tasks (the 'ray' extra), on a local Ray or the"
        " cluster at --address (docs/scale.md).",
    ),
]
AddressOption = Annotated[
    str | None,
    typer.Option(
        "--address",
        help="With --executor ray: the cluster to join (auto, or ray://HEAD:10001); default: a"
        " local Ray started for this command.",
    ),
]
NumCpusOption = Annotated[
    float | None,
    typer.Option(
        "--num-cpus",
        min=0.01,
        help="With --executor ray: the CPUs each task asks Ray for (default 1).",
    ),
]


def executor_kind(executor: str, address: str | None, num_cpus: float | None) -> Executor:
    """``executor`` checked, with the options that only Ray reads refused without it."""
    if executor == "local":
        if address is not None or num_cpus is not None:
            given = "--address" if address is not None else "--num-cpus"
            raise UsageError(f"{given} needs --executor ray")
        return "local"
    if executor == "ray":
        return "ray"
    raise UsageError(f"--executor {executor!r}: an executor is local or ray")
