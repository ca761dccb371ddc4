"""``trailcheck stats``: pass@k and pass^k of recorded runs, counted from the outcome each trace
carries.

The options, declared once in :class:`StatsRequest`; what the command does is in
:mod:`trailcheck.commands.stats_impl`, imported when it runs.
"""

from pathlib import Path
from typing import Annotated, NamedTuple

import typer

from trailcheck.commands.declare import command, implementation
from trailcheck.commands.options import FormatOption

__all__ = ["StatsRequest", "stats_command"]


class StatsRequest(NamedTuple):
    """What ``trailcheck stats`` was asked."""

    sources: Annotated[
        list[Path],
        typer.Argument(metavar="TRACES", help="Recorded traces, in any format trailcheck reads."),
    ]
    task_key: Annotated[
        str,
        typer.Option(
            "--task-key",
            metavar="PATH",
            help="Dotted path to each trace's task, e.g. `metadata.task_id`.",
        ),
    ]
    outcome_key: Annotated[
        str,
        typer.Option(
            "--outcome-key",
            metavar="PATH",
            help="Dotted path to each trace's outcome: a number, a boolean or a trial status.",
        ),
    ]
    k: Annotated[
        int | None,
        typer.Option(
            "--k",
            "-k",
            min=1,
            metavar="N",
            help="The largest k (default: the most trials of any task).",
        ),
    ] = None
    threshold: Annotated[
        float,
        typer.Option(
            "--threshold", metavar="VALUE", help="A numeric outcome passes at this value."
        ),
    ] = 1.0
    seed: Annotated[
        int, typer.Option("--seed", metavar="N", help="Seed of the bootstrap intervals.")
    ] = 0
    as_json: Annotated[bool, typer.Option("--json", help="Print the statistics as JSON.")] = False
    format_name: FormatOption = None


@command(StatsRequest)
def stats_command(request: StatsRequest) -> None:
    """pass@k and pass^k of recorded runs that carry their own outcome, one trace per trial.

    Exit 0 when computed; 2 when a record was rejected, a key is missing or an outcome is bad.
    """
    implementation("trailcheck.commands.stats_impl:stats_command", StatsRequest)(request)
