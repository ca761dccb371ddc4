"""``trailcheck score``: traces recorded elsewhere, graded against the cases they name.

The options; what the command does is in :mod:`trailcheck.commands.score_impl`, imported when it
runs.
"""

from pathlib import Path
from typing import Annotated

import typer

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

__all__ = ["score_command"]


def score_command(
    dataset: Annotated[Path, typer.Option("--dataset", "-d", help="The dataset (YAML or JSON).")],
    traces: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Recorded traces, in any format trailcheck reads; several files are one input"
            " (shards). None: the store's traces (--db; --since, --until, --label, --tool and"
            " --session choose which).",
            show_default=False,
        ),
    ] = None,
    db: DbOption = None,
    since: SinceOption = None,
    until: UntilOption = None,
    label: LabelFilterOption = None,
    tool: ToolFilterOption = None,
    session: SessionFilterOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the grades as JSON.")] = False,
    format_name: FormatOption = None,
    emit_otel: EmitOtelOption = None,
    emit_otel_header: EmitOtelHeaderOption = None,
    by_session: Annotated[
        bool,
        typer.Option(
            "--by-session",
            help="Grade each session (conversation) as one trace: its turns' calls in order,"
            " the last turn's answer, the first turn's state before and the last one's after.",
        ),
    ] = False,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            min=1,
            help="Processes grading trailcheck JSONL or the store (default: every core; 1 grades"
            " in this process). Other formats, --by-session and --emit-otel grade in this process."
            " With --executor ray: Ray tasks at once (default: the cluster's CPUs).",
        ),
    ] = None,
    executor: ExecutorOption = "local",
    address: AddressOption = None,
    num_cpus: NumCpusOption = None,
) -> None:
    """Grade recorded traces (files, or the store's) against the cases they name in
    ``metadata.case_id``.

    Exit 0 when every trace passed, 1 when any failed or was unscorable, 2 for input errors
    (a bad dataset, an unreadable trace, a trace that names no known case). ``--emit-otel``
    sends the scores as telemetry, best effort: it changes no exit code.
    """
    from trailcheck.commands.score_impl import score_command as body

    body(
        traces=traces or [],
        dataset=dataset,
        db=db,
        since=since,
        until=until,
        label=label,
        tool=tool,
        session=session,
        as_json=as_json,
        format_name=format_name,
        emit_otel=emit_otel,
        emit_otel_header=emit_otel_header,
        by_session=by_session,
        workers=workers,
        executor=executor,
        address=address,
        num_cpus=num_cpus,
    )
