"""``trailcheck score`` and ``trailcheck stats``: traces recorded elsewhere, graded against the
cases they name, or counted into pass@k and pass^k from the outcome each carries.

The options; what the commands do is in :mod:`trailcheck.commands.recorded_impl`, imported when
one runs.
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

__all__ = ["score_command", "stats_command"]


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
    from trailcheck.commands.recorded_impl import score_command as body

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
    from trailcheck.commands.recorded_impl import stats_command as body

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
