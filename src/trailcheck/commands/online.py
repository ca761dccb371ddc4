"""``trailcheck online``: score production traces as they arrive, and read the rates.

``run`` scores what is due by the evaluators of an online file (docs/online.md), once with
``--once``, else until interrupted; ``status`` prints each evaluator's failure rate with its
interval, over everything kept or a period, in windows.

The options, declared once in the commands' requests; what the commands do is in
:mod:`trailcheck.commands.online_impl`, imported when one runs.
"""

from pathlib import Path
from typing import Annotated, Literal, NamedTuple

import typer

from trailcheck.commands.declare import Command, command, implementation, new_app
from trailcheck.commands.executor_options import (
    EXECUTOR_PANEL,
    AddressOption,
    ExecutorOption,
    NumCpusOption,
)
from trailcheck.commands.loop import RulesOption
from trailcheck.commands.options import DbOption, JsonOption

__all__ = ["OnlineRunRequest", "OnlineStatusRequest", "online_app"]

online_app = new_app(
    "Online scoring: production traces scored as they arrive, on a deterministic sample.",
    no_args_is_help=True,
)

WORKER = "Worker"
JUDGES = "Judges"
ALERTS = "Alerts"

ConfigOption = Annotated[
    Path,
    typer.Option("--config", metavar="FILE", help="The online file: its evaluators (and alerts)."),
]


class OnlineRunRequest(NamedTuple):
    """What ``trailcheck online run`` was asked."""

    config: ConfigOption
    db: DbOption = None
    once: Annotated[bool, typer.Option("--once", help="Score what is due now, then stop.")] = False
    rules: RulesOption = None
    as_json: Annotated[bool, typer.Option("--json", help="Print each pass's counts as JSON.")] = (
        False
    )
    worker_id: Annotated[
        str | None,
        typer.Option(
            metavar="ID",
            rich_help_panel=WORKER,
            help="This worker's name (default: host:pid:random).",
        ),
    ] = None
    lease: Annotated[
        float,
        typer.Option(
            min=1,
            metavar="SECONDS",
            rich_help_panel=WORKER,
            help="How long a job is this worker's before another may take it over.",
        ),
    ] = 300.0
    batch: Annotated[
        int, typer.Option(min=1, metavar="N", rich_help_panel=WORKER, help="Jobs claimed at once.")
    ] = 200
    poll: Annotated[
        float,
        typer.Option(
            min=0.01,
            metavar="SECONDS",
            rich_help_panel=WORKER,
            help="The wait after a pass that found nothing to do.",
        ),
    ] = 1.0
    emit_otel: Annotated[
        str | None,
        typer.Option(
            "--emit-otel",
            metavar="ENDPOINT",
            rich_help_panel=ALERTS,
            help="The OTLP/HTTP endpoint of alerts that notify `otel` (gen_ai.evaluation.result).",
        ),
    ] = None
    emit_otel_header: Annotated[
        list[str] | None,
        typer.Option(
            "--emit-otel-header",
            metavar="KEY=VALUE",
            rich_help_panel=ALERTS,
            help="A header for `--emit-otel` (repeatable; `OTEL_EXPORTER_OTLP_HEADERS` is read"
            " too).",
        ),
    ] = None
    judge_model: Annotated[
        str | None,
        typer.Option(
            metavar="NAME",
            rich_help_panel=JUDGES,
            help="The judges' model (OpenAI API), unless a judge names its own.",
        ),
    ] = None
    judge_base_url: Annotated[
        str | None,
        typer.Option(metavar="URL", rich_help_panel=JUDGES, help="The OpenAI-compatible endpoint."),
    ] = None
    api_key_env: Annotated[
        str,
        typer.Option(
            metavar="VAR",
            rich_help_panel=JUDGES,
            help="The environment variable holding the API key.",
        ),
    ] = "OPENAI_API_KEY"
    concurrency: Annotated[
        int,
        typer.Option(min=1, metavar="N", rich_help_panel=JUDGES, help="Judgings at once."),
    ] = 8
    max_attempts: Annotated[
        int,
        typer.Option(
            min=1,
            metavar="N",
            rich_help_panel=JUDGES,
            help="Tries of a judge without a verdict before its execution counts as failed.",
        ),
    ] = 3
    judge_calls_per_hour: Annotated[
        int | None,
        typer.Option(
            min=0,
            metavar="N",
            rich_help_panel=JUDGES,
            help="At most this many judge calls an hour, over every worker on the store.",
        ),
    ] = None
    judge_tokens_per_hour: Annotated[
        int | None,
        typer.Option(
            min=0,
            metavar="N",
            rich_help_panel=JUDGES,
            help="At most this many judge tokens an hour, over every worker on the store.",
        ),
    ] = None
    judge_rate: Annotated[
        float | None,
        typer.Option(
            min=0.001,
            metavar="PER_SECOND",
            rich_help_panel=JUDGES,
            help="At most this many judge requests a second (a shared token bucket).",
        ),
    ] = None

    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            min=1,
            metavar="N",
            rich_help_panel=EXECUTOR_PANEL,
            help="With --executor ray: online workers as Ray tasks (default: the cluster's CPUs).",
        ),
    ] = None
    executor: ExecutorOption = "local"
    address: AddressOption = None
    num_cpus: NumCpusOption = None


class OnlineStatusRequest(NamedTuple):
    """What ``trailcheck online status`` was asked."""

    db: DbOption = None
    config: Annotated[
        Path | None,
        typer.Option(
            "--config",
            metavar="FILE",
            help="Show the evaluator versions of this file only (default: every one met).",
        ),
    ] = None
    since: Annotated[
        str | None,
        typer.Option(
            metavar="WHEN",
            help="Count traces that started since then: a duration ago (`24h`) or an ISO time.",
        ),
    ] = None
    window: Annotated[
        str | None,
        typer.Option(metavar="DURATION", help="Also count by windows of this length (`1h`)."),
    ] = None
    level: Annotated[
        float,
        typer.Option(min=0.5, max=0.999, metavar="LEVEL", help="The intervals' confidence level."),
    ] = 0.95
    method: Annotated[
        Literal["wilson", "jeffreys"],
        typer.Option(help="The interval: Wilson's, or the Jeffreys Beta posterior's."),
    ] = "wilson"
    as_json: JsonOption = False


@online_app.command("run", cls=Command)
@command(OnlineRunRequest)
def online_run(request: OnlineRunRequest) -> None:
    """Score the traces that are due by the file's evaluators; keep going unless --once.

    With --once --executor ray, a backlog is drained by --workers online workers as Ray tasks
    on the same store (docs/online.md).

    Exit 0 when stopped (interrupted, or --once done); 2 on a bad file or store.
    """
    implementation("trailcheck.commands.online_impl:online_run", OnlineRunRequest)(request)


@online_app.command("status", cls=Command)
@command(OnlineStatusRequest)
def online_status(request: OnlineStatusRequest) -> None:
    """Each evaluator's failure rate with its interval, its windows and its queue."""
    implementation("trailcheck.commands.online_impl:online_status_command", OnlineStatusRequest)(
        request
    )
