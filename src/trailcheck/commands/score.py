"""``trailcheck score``: traces recorded elsewhere, graded against the cases they name.

The options, declared once in :class:`ScoreRequest`; what the command does is in
:mod:`trailcheck.commands.score_impl`, imported when it runs. What the options mean at length:
``docs/scoring.md`` (grading, ``--workers``, ``--emit-otel``), ``docs/traces.md``
(``--by-session``) and ``docs/scale.md`` (``--executor ray``).
"""

from pathlib import Path
from typing import Annotated, NamedTuple

import typer

from trailcheck.commands.declare import command, implementation
from trailcheck.commands.executor_options import AddressOption, ExecutorOption, NumCpusOption
from trailcheck.commands.options import (
    DbOption,
    EmitOtelHeaderOption,
    EmitOtelOption,
    FormatOption,
    LabelFilterOption,
    SessionFilterOption,
    SinceOption,
    ToolFilterOption,
    UntilOption,
)

__all__ = ["ScoreRequest", "score_command"]


class ScoreRequest(NamedTuple):
    """What ``trailcheck score`` was asked."""

    dataset: Annotated[
        Path,
        typer.Option("--dataset", "-d", metavar="FILE", help="The dataset (YAML or JSON)."),
    ]
    traces: Annotated[
        list[Path] | None,
        typer.Argument(
            metavar="TRACES",
            help="Trace files, in any format trailcheck reads, as one input; none: the store's.",
            show_default=False,
        ),
    ] = None
    db: DbOption = None
    since: SinceOption = None
    until: UntilOption = None
    label: LabelFilterOption = None
    tool: ToolFilterOption = None
    session: SessionFilterOption = None
    as_json: Annotated[bool, typer.Option("--json", help="Print the grades as JSON.")] = False
    format_name: FormatOption = None
    emit_otel: EmitOtelOption = None
    emit_otel_header: EmitOtelHeaderOption = None
    by_session: Annotated[
        bool,
        typer.Option("--by-session", help="Grade each session (conversation) as one trace."),
    ] = False
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            min=1,
            metavar="N",
            help="Processes grading trailcheck JSONL or the store (default: every core).",
        ),
    ] = None
    executor: ExecutorOption = "local"
    address: AddressOption = None
    num_cpus: NumCpusOption = None


@command(ScoreRequest)
def score_command(request: ScoreRequest) -> None:
    """Grade recorded traces (files, or the store's) against the cases they name in
    `metadata.case_id`.

    Exit 0 when every trace passed, 1 when any failed or was unscorable, 2 for input errors
    (a bad dataset, an unreadable trace, a trace that names no known case). `--emit-otel`
    sends the scores as telemetry, best effort: it changes no exit code.

    Without trace files, the store's traces are graded (`--db`), those that `--since`,
    `--until`, `--label`, `--tool` and `--session` choose.
    """
    implementation("trailcheck.commands.score_impl:score_command", ScoreRequest)(request)
