"""``trailcheck run``: its options. What it does is in :mod:`trailcheck.commands.run_impl`,
imported when the command runs, so that every other command starts without the runner."""

from pathlib import Path
from typing import Annotated

import typer

from trailcheck.commands.executor_options import AddressOption, ExecutorOption, NumCpusOption
from trailcheck.commands.options import EmitOtelHeaderOption, EmitOtelOption

__all__ = ["run_command"]


def run_command(
    dataset_path: Annotated[Path, typer.Argument(help="The dataset file (YAML or JSON).")],
    agent: Annotated[
        str, typer.Option("--agent", help="MODULE:FACTORY making a fresh agent per trial.")
    ],
    agent_kind: Annotated[
        str,
        typer.Option(
            "--agent-kind",
            help="native: the factory makes an Agent; otel: it is called with the trial's"
            " TelemetryContext and makes any callable, traced by its framework's OpenTelemetry.",
        ),
    ] = "native",
    env: Annotated[
        str | None,
        typer.Option("--env", help="MODULE:FACTORY making a fresh environment per trial."),
    ] = None,
    k: Annotated[int, typer.Option("-k", min=1, help="Trials per case.")] = 1,
    concurrency: Annotated[int, typer.Option(min=1, help="Trials at once.")] = 4,
    timeout: Annotated[float, typer.Option(help="Seconds before a trial is a timeout.")] = 300.0,
    seed: Annotated[int, typer.Option(help="Seed of trace ids and bootstrap intervals.")] = 0,
    rate_limit: Annotated[
        float | None, typer.Option(help="Model calls per second, across all trials.")
    ] = None,
    split: Annotated[
        list[str] | None, typer.Option("--split", help="Run only this split (repeatable).")
    ] = None,
    model: Annotated[
        str | None,
        typer.Option(help="A real model: the agent factory is called with it (OpenAI API)."),
    ] = None,
    base_url: Annotated[
        str | None, typer.Option(help="OpenAI-compatible endpoint for --model.")
    ] = None,
    api_key_env: Annotated[
        str, typer.Option(help="Environment variable holding the API key.")
    ] = "OPENAI_API_KEY",
    baseline: Annotated[
        Path | None, typer.Option(help="A previous report to compare with, case by case.")
    ] = None,
    out: Annotated[
        Path | None, typer.Option(help="Folder for the files (default .trailcheck/runs/...).")
    ] = None,
    name: Annotated[str, typer.Option(help="File name stem of the report.")] = "report",
    html: Annotated[bool, typer.Option("--html", help="Also write the HTML report.")] = False,
    gate_pass_hat_k: Annotated[
        float | None, typer.Option(help="Gate: overall pass^k at least this.")
    ] = None,
    gate_k: Annotated[int | None, typer.Option(help="Gate: the k of --gate-pass-hat-k.")] = None,
    gate_pass_at_1: Annotated[
        float | None, typer.Option(help="Gate: pass@1 at least this.")
    ] = None,
    gate_regression: Annotated[
        bool, typer.Option(help="Gate: every trial of every regression case passes.")
    ] = False,
    gate_max_infra_errors: Annotated[
        int | None, typer.Option(help="Gate: at most this many infra errors.")
    ] = None,
    judge: Annotated[
        str | None,
        typer.Option(help="Judge the cases' rubrics: replay:FILE.jsonl, rubric, ... (see docs)."),
    ] = None,
    judge_model: Annotated[
        str | None, typer.Option(help="The model of a model judge (OpenAI API).")
    ] = None,
    judge_base_url: Annotated[
        str | None, typer.Option(help="OpenAI-compatible endpoint for --judge-model.")
    ] = None,
    judge_calibration: Annotated[
        Path | None,
        typer.Option(help="The judge's calibration report (trailcheck judge calibrate --out)."),
    ] = None,
    gate_judge_max_false_pass: Annotated[
        float | None, typer.Option(help="Gate: the judge's calibrated false-pass rate at most.")
    ] = None,
    gate_judge_max_false_fail: Annotated[
        float | None, typer.Option(help="Gate: the judge's calibrated false-fail rate at most.")
    ] = None,
    emit_otel: EmitOtelOption = None,
    emit_otel_header: EmitOtelHeaderOption = None,
    executor: ExecutorOption = "local",
    address: AddressOption = None,
    num_cpus: NumCpusOption = None,
) -> None:
    """Run an agent on a dataset, k trials per case; write the report; check the gate.

    Exit 0 when the gate passed (or none was set), 1 when it failed or the run was interrupted,
    2 for a usage or input error. ``--emit-otel`` sends the scores as telemetry, best effort:
    it changes no exit code.
    """
    from trailcheck.commands.run_impl import run_command as run

    run(
        dataset_path=dataset_path,
        agent=agent,
        agent_kind=agent_kind,
        env=env,
        k=k,
        concurrency=concurrency,
        timeout=timeout,
        seed=seed,
        rate_limit=rate_limit,
        split=split,
        model=model,
        base_url=base_url,
        api_key_env=api_key_env,
        baseline=baseline,
        out=out,
        name=name,
        html=html,
        gate_pass_hat_k=gate_pass_hat_k,
        gate_k=gate_k,
        gate_pass_at_1=gate_pass_at_1,
        gate_regression=gate_regression,
        gate_max_infra_errors=gate_max_infra_errors,
        judge=judge,
        judge_model=judge_model,
        judge_base_url=judge_base_url,
        judge_calibration=judge_calibration,
        gate_judge_max_false_pass=gate_judge_max_false_pass,
        gate_judge_max_false_fail=gate_judge_max_false_fail,
        emit_otel=emit_otel,
        emit_otel_header=emit_otel_header,
        executor=executor,
        address=address,
        num_cpus=num_cpus,
    )
