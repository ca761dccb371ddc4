"""``trailcheck run``: its options, declared once in :class:`RunRequest`. What it does is in
:mod:`trailcheck.commands.run_impl`, imported when the command runs, so that every other command
starts without the runner. What the options mean at length: ``docs/running.md``."""

import enum
from pathlib import Path
from typing import Annotated, Final, Literal, NamedTuple

import typer

from trailcheck.commands.declare import command, implementation
from trailcheck.commands.executor_options import AddressOption, ExecutorOption, NumCpusOption
from trailcheck.commands.options import EmitOtelHeaderOption, EmitOtelOption

__all__ = ["AgentKind", "RunRequest", "RunSplit", "run_command"]

AGENT: Final = "Agent"
MODEL: Final = "Model"
TRIALS: Final = "Trials"
OUTPUT: Final = "Output"
JUDGE: Final = "Judge"
USER: Final = "Simulated user"
GATE: Final = "Gate"

AgentKind = Literal["native", "otel"]
""":data:`trailcheck.commands.run_impl.AgentKind`: how the agent factory is called."""


class RunSplit(enum.StrEnum):
    """:data:`trailcheck.cases.Split`, for ``--split`` (typer takes a list of an enum, not of a
    ``Literal``)."""

    REGRESSION = "regression"
    HOLDOUT = "holdout"
    CALIBRATION = "calibration"
    MONITORING = "monitoring"


class RunRequest(NamedTuple):
    """What ``trailcheck run`` was asked."""

    dataset_path: Annotated[
        Path, typer.Argument(metavar="DATASET", help="The dataset file (YAML or JSON).")
    ]
    agent: Annotated[
        str,
        typer.Option(
            "--agent",
            metavar="MODULE:FACTORY",
            rich_help_panel=AGENT,
            help="Makes a fresh agent for each trial.",
        ),
    ]
    agent_kind: Annotated[
        AgentKind,
        typer.Option(
            "--agent-kind",
            rich_help_panel=AGENT,
            help="native: the factory makes an Agent; otel: any callable, traced by its"
            " framework's OpenTelemetry.",
        ),
    ] = "native"
    env: Annotated[
        str | None,
        typer.Option(
            "--env",
            metavar="MODULE:FACTORY",
            rich_help_panel=AGENT,
            help="Makes a fresh environment for each trial.",
        ),
    ] = None
    model: Annotated[
        str | None,
        typer.Option(
            metavar="NAME",
            rich_help_panel=MODEL,
            help="A real model (OpenAI API), handed to the agent factory.",
        ),
    ] = None
    base_url: Annotated[
        str | None,
        typer.Option(
            metavar="URL",
            rich_help_panel=MODEL,
            help="The OpenAI-compatible endpoint of `--model`.",
        ),
    ] = None
    api_key_env: Annotated[
        str,
        typer.Option(
            metavar="VAR",
            rich_help_panel=MODEL,
            help="The environment variable holding the API key.",
        ),
    ] = "OPENAI_API_KEY"
    k: Annotated[
        int, typer.Option("-k", min=1, metavar="N", rich_help_panel=TRIALS, help="Trials per case.")
    ] = 1
    concurrency: Annotated[
        int, typer.Option(min=1, metavar="N", rich_help_panel=TRIALS, help="Trials at once.")
    ] = 4
    timeout: Annotated[
        float,
        typer.Option(
            metavar="SECONDS", rich_help_panel=TRIALS, help="Seconds before a trial times out."
        ),
    ] = 300.0
    seed: Annotated[
        int,
        typer.Option(
            metavar="N",
            rich_help_panel=TRIALS,
            help="Seed of the trace ids and bootstrap intervals.",
        ),
    ] = 0
    rate_limit: Annotated[
        float | None,
        typer.Option(
            metavar="PER-SECOND",
            rich_help_panel=TRIALS,
            help="Model calls per second, across all trials.",
        ),
    ] = None
    split: Annotated[
        list[RunSplit] | None,
        typer.Option(
            "--split",
            metavar="SPLIT",
            rich_help_panel=TRIALS,
            help="Run only this split: regression, holdout, calibration or monitoring"
            " (repeatable).",
        ),
    ] = None
    baseline: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE",
            rich_help_panel=OUTPUT,
            help="A previous report to compare with, case by case.",
        ),
    ] = None
    out: Annotated[
        Path | None,
        typer.Option(
            metavar="DIR",
            rich_help_panel=OUTPUT,
            help="The folder for the files (default: a new one in `.trailcheck/runs`).",
        ),
    ] = None
    name: Annotated[
        str,
        typer.Option(
            metavar="STEM", rich_help_panel=OUTPUT, help="The file name stem of the report."
        ),
    ] = "report"
    html: Annotated[
        bool, typer.Option("--html", rich_help_panel=OUTPUT, help="Also write the HTML report.")
    ] = False
    judge: Annotated[
        str | None,
        typer.Option(
            metavar="SPEC",
            rich_help_panel=JUDGE,
            help="The judge of the cases' rubrics: `replay:FILE.jsonl`, `rubric`, ...",
        ),
    ] = None
    judge_model: Annotated[
        str | None,
        typer.Option(
            metavar="NAME", rich_help_panel=JUDGE, help="The model of a model judge (OpenAI API)."
        ),
    ] = None
    judge_base_url: Annotated[
        str | None,
        typer.Option(
            metavar="URL",
            rich_help_panel=JUDGE,
            help="The OpenAI-compatible endpoint of `--judge-model`.",
        ),
    ] = None
    judge_calibration: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE",
            rich_help_panel=JUDGE,
            help="The judge's calibration report (`trailcheck judge calibrate --out`).",
        ),
    ] = None
    user_model: Annotated[
        str | None,
        typer.Option(
            metavar="NAME",
            rich_help_panel=USER,
            help="The model that plays the cases' simulated users (OpenAI API).",
        ),
    ] = None
    user_base_url: Annotated[
        str | None,
        typer.Option(
            metavar="URL",
            rich_help_panel=USER,
            help="The OpenAI-compatible endpoint of `--user-model`.",
        ),
    ] = None
    user_simulator: Annotated[
        str | None,
        typer.Option(
            metavar="MODULE:FACTORY",
            rich_help_panel=USER,
            help="A factory of the user simulator, instead of `--user-model`.",
        ),
    ] = None
    user_review_model: Annotated[
        str | None,
        typer.Option(
            metavar="NAME",
            rich_help_panel=USER,
            help="A judge model that reviews each simulated user after the audit's rules.",
        ),
    ] = None
    replay_user: Annotated[
        Path | None,
        typer.Option(
            metavar="REPORT",
            rich_help_panel=USER,
            help="Replay this run's simulated turns while the conversation is the same.",
        ),
    ] = None
    gate_pass_hat_k: Annotated[
        float | None,
        typer.Option(metavar="RATE", rich_help_panel=GATE, help="Overall pass^k at least this."),
    ] = None
    gate_k: Annotated[
        int | None,
        typer.Option(metavar="N", rich_help_panel=GATE, help="The k of `--gate-pass-hat-k`."),
    ] = None
    gate_pass_at_1: Annotated[
        float | None,
        typer.Option(metavar="RATE", rich_help_panel=GATE, help="pass@1 at least this."),
    ] = None
    gate_regression: Annotated[
        bool,
        typer.Option(
            "--gate-regression",
            rich_help_panel=GATE,
            help="Every trial of every regression case passes.",
        ),
    ] = False
    gate_max_infra_errors: Annotated[
        int | None,
        typer.Option(metavar="N", rich_help_panel=GATE, help="At most this many infra errors."),
    ] = None
    gate_max_sim_errors: Annotated[
        int | None,
        typer.Option(
            metavar="N", rich_help_panel=GATE, help="At most this many simulated-user errors."
        ),
    ] = None
    gate_judge_max_false_pass: Annotated[
        float | None,
        typer.Option(
            metavar="RATE",
            rich_help_panel=GATE,
            help="The judge's calibrated false-pass rate at most this.",
        ),
    ] = None
    gate_judge_max_false_fail: Annotated[
        float | None,
        typer.Option(
            metavar="RATE",
            rich_help_panel=GATE,
            help="The judge's calibrated false-fail rate at most this.",
        ),
    ] = None
    emit_otel: EmitOtelOption = None
    emit_otel_header: EmitOtelHeaderOption = None
    executor: ExecutorOption = "local"
    address: AddressOption = None
    num_cpus: NumCpusOption = None


@command(RunRequest)
def run_command(request: RunRequest) -> None:
    """Run an agent on a dataset, k trials per case; write the report; check the gate.

    Exit 0 when the gate passed (or none was set), 1 when it failed or the run was interrupted,
    2 for a usage or input error. `--emit-otel` sends the scores as telemetry, best effort: it
    changes no exit code.
    """
    implementation("trailcheck.commands.run_impl:run_command", RunRequest)(request)
