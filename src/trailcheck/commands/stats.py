"""``trailcheck stats``: pass@k and pass^k of recorded runs, counted from the outcome each trace
carries.

The options; what the command does is in :mod:`trailcheck.commands.stats_impl`, imported when it
runs.
"""

from pathlib import Path
from typing import Annotated

import typer

from trailcheck.commands.options import FormatOption

__all__ = ["stats_command"]


def stats_command(
    sources: Annotated[
        list[Path], typer.Argument(help="Recorded traces, in any format trailcheck reads.")
    ],
    task_key: Annotated[
        str,
        typer.Option("--task-key", help="Dotted path to each trace's task, e.g. metadata.task_id."),
    ],
    outcome_key: Annotated[
        str,
        typer.Option(
            "--outcome-key",
            help="Dotted path to each trace's outcome: a number, a boolean or a trial status.",
        ),
    ],
    k: Annotated[
        int | None,
        typer.Option("--k", "-k", min=1, help="Largest k (default: most trials of any task)."),
    ] = None,
    threshold: Annotated[
        float, typer.Option("--threshold", help="A numeric outcome passes at this value.")
    ] = 1.0,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the bootstrap intervals.")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print the statistics as JSON.")] = False,
    format_name: FormatOption = None,
) -> None:
    """pass@k and pass^k of recorded runs that carry their own outcome, one trace per trial.

    Exit 0 when computed; 2 when a record was rejected, a key is missing or an outcome is bad.
    """
    from trailcheck.commands.stats_impl import stats_command as body

    body(
        sources=sources,
        task_key=task_key,
        outcome_key=outcome_key,
        k=k,
        threshold=threshold,
        seed=seed,
        as_json=as_json,
        format_name=format_name,
    )
