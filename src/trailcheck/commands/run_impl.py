"""What ``trailcheck run`` does (its options: :mod:`trailcheck.commands.run`): a dataset, an
agent and an environment in; report files and a gate out."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, get_args

import typer
from rich.console import Console

from trailcheck.cases import Case, GateSpec, Split, TrialResources, load_dataset
from trailcheck.commands.executor_options import Executor, executor_kind
from trailcheck.commands.judge_impl import JudgeModels, build_judge, openai_model
from trailcheck.commands.output import stderr, stdout
from trailcheck.commands.run import AgentKind, RunRequest, RunSplit
from trailcheck.commands.telemetry import emit, emit_target
from trailcheck.errors import EXIT_FAILED, UsageError
from trailcheck.extras import needs_extra
from trailcheck.judge.calibration import CalibrationReport, load_calibration_report
from trailcheck.judge.simulator_audit import ModelSimulatorReviewer
from trailcheck.models.openai_client import OpenAIChatModel
from trailcheck.report.files import write_run
from trailcheck.report.html import render_html
from trailcheck.report.otel_results import trial_results
from trailcheck.report.progress import ProgressObserver
from trailcheck.report.run_view import render_run
from trailcheck.run.agent import AgentFactory
from trailcheck.run.gate import GateResult, check_gate
from trailcheck.run.otel_agent import OtelAgent
from trailcheck.run.plan import RunOptions, TrialExecutor
from trailcheck.run.preflight import selected_cases
from trailcheck.run.results import RunReport, load_report
from trailcheck.run.runner import run
from trailcheck.simulation import ModelUserSimulator, UserSimulator
from trailcheck.specs.references import resolve_reference

_OTEL_WITHOUT_MODEL = (
    "--model works with --agent-kind native: an otel agent's factory makes its own model"
)


def agent_factory(
    reference: str, model: OpenAIChatModel | None, kind: AgentKind = "native"
) -> AgentFactory | OtelAgent:
    """The factory ``reference`` names; with a model, a factory that hands it that model. An
    ``otel`` factory is called with each trial's TelemetryContext (``docs/running.md``)."""
    factory: Any = resolve_reference(reference, what="agent factory")
    if not callable(factory):
        raise UsageError(f"agent factory {reference!r} is not callable")
    if kind == "otel":
        if model is not None:
            raise UsageError(_OTEL_WITHOUT_MODEL)
        return OtelAgent(factory)
    if model is None:
        return factory  # type: ignore[no-any-return]
    return lambda: factory(model)


def print_gate(result: GateResult, console: Console) -> None:
    """One line per broken threshold, or the thresholds met."""
    if not result.checked:
        return
    if result.passed:
        console.print(f"gate passed: {'; '.join(result.checked)}", markup=False)
        return
    for line in result.broken:
        console.print(f"gate failed: {line}", style="bold red", markup=False)


def new_run_folder(
    dataset_name: str, *, root: Path = Path(".trailcheck") / "runs", now: datetime | None = None
) -> Path:
    """A folder made for this run, named after the dataset and the second it started; a run
    started in the same second as another gets ``-2``, ``-3``...: the folder is created here,
    so two runs never share one."""
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
    root.mkdir(parents=True, exist_ok=True)
    for attempt in itertools.count(1):
        folder = root / (f"{dataset_name}-{stamp}" + (f"-{attempt}" if attempt > 1 else ""))
        try:
            folder.mkdir()
        except FileExistsError:
            continue
        return folder
    raise AssertionError("unreachable: itertools.count never ends")


def _user_simulator(
    request: RunRequest,
) -> tuple[OpenAIChatModel | None, UserSimulator | None]:
    """The simulator ``--user-model`` or ``--user-simulator`` names (one at most), and the
    model to close when the run ends."""
    if (
        request.user_base_url is not None
        and None is request.user_model is request.user_review_model
    ):
        raise UsageError("--user-base-url needs --user-model or --user-review-model")
    if request.user_model is not None and request.user_simulator is not None:
        raise UsageError("give --user-model or --user-simulator, not both")
    if request.user_simulator is not None:
        factory = resolve_reference(request.user_simulator, what="user simulator factory")
        return None, factory()
    if request.user_model is None:
        if request.replay_user is not None:
            raise UsageError("--replay-user needs a simulator for the turns it cannot replay")
        return None, None
    model = openai_model(
        request.user_model,
        request.user_base_url,
        request.api_key_env,
        what="trailcheck run --user-model",
    )
    return model, ModelUserSimulator(model)


def _user_reviewer(
    request: RunRequest,
) -> tuple[OpenAIChatModel | None, ModelSimulatorReviewer | None]:
    """The judge ``--user-review-model`` names (at ``--user-base-url``), and its model."""
    if request.user_review_model is None:
        return None, None
    model = openai_model(
        request.user_review_model,
        request.user_base_url,
        request.api_key_env,
        what="trailcheck run --user-review-model",
    )
    return model, ModelSimulatorReviewer(model)


def run_command(request: RunRequest) -> None:
    """The body of :func:`trailcheck.commands.run.run_command`."""
    target = emit_target(request.emit_otel, request.emit_otel_header)
    where = executor_kind(request.executor, request.address, request.num_cpus)
    if request.agent_kind == "otel" and request.model is not None:
        raise UsageError(_OTEL_WITHOUT_MODEL)
    dataset = load_dataset(request.dataset_path)
    prior = load_report(request.baseline) if request.baseline is not None else None
    chat = None
    if request.model is not None:
        chat = openai_model(
            request.model, request.base_url, request.api_key_env, what="trailcheck run --model"
        )
    elif request.base_url is not None:
        raise UsageError("--base-url needs --model")
    options = RunOptions(
        k=request.k,
        concurrency=request.concurrency,
        timeout_s=request.timeout,
        seed=request.seed,
        rate_limit_per_s=request.rate_limit,
        splits=_splits(request.split),
    )
    gate = (dataset.gate or GateSpec()).merged(_gate_overrides(request))
    env = request.env
    environment = resolve_reference(env, what="environment factory") if env else None
    judge_models = JudgeModels(request.judge_model, request.judge_base_url, request.api_key_env)
    rubric_judge = build_judge(request.judge, judge_models) if request.judge is not None else None
    calibration = (
        load_calibration_report(request.judge_calibration) if request.judge_calibration else None
    )
    if calibration is not None and rubric_judge is None:
        raise UsageError("--judge-calibration needs --judge")
    user_chat, simulator = _user_simulator(request)
    review_chat, reviewer = _user_reviewer(request)
    replay = load_report(request.replay_user) if request.replay_user is not None else None
    models = (chat, judge_models.model, user_chat, review_chat)
    closing = [model for model in models if model is not None]
    with (
        _trial_executor(
            where,
            request.address,
            request.num_cpus,
            selected_cases(dataset, options.splits),
            dataset.resources,
        ) as trial_executor,
        ProgressObserver(stderr, label=dataset.name) as progress,
    ):
        result = run(
            dataset,
            agent_factory(request.agent, chat, request.agent_kind),
            environment,
            options=options,
            baseline=prior,
            observer=progress,
            references={
                "agent": request.agent,
                "environment": env,
                "dataset": str(request.dataset_path),
            },
            closing=closing,
            judge=rubric_judge,
            executor=trial_executor,
            user_simulator=simulator,
            replay_user=replay,
            user_reviewer=reviewer,
        )
    folder = request.out or new_run_folder(dataset.name)
    written = write_run(
        result.report,
        result.trace_lines,
        folder,
        request.name,
        html=render_html if request.html else None,
    )
    if target is not None:
        emit(trial_results(result), target, stderr)
    finish(result.report, gate, written, calibration)


def _gate_overrides(request: RunRequest) -> GateSpec:
    """The thresholds the ``--gate-*`` options set, over those of the dataset."""
    return GateSpec.model_validate(
        {
            key: value
            for key, value in {
                "pass_hat_k": request.gate_pass_hat_k,
                "k": request.gate_k,
                "pass_at_1": request.gate_pass_at_1,
                "regression_must_pass": request.gate_regression or None,
                "max_infra_errors": request.gate_max_infra_errors,
                "max_sim_errors": request.gate_max_sim_errors,
                "judge_max_false_pass": request.gate_judge_max_false_pass,
                "judge_max_false_fail": request.gate_judge_max_false_fail,
            }.items()
            if value is not None
        },
        strict=False,
    )


@contextmanager
def _trial_executor(
    where: Executor,
    address: str | None,
    num_cpus: float | None,
    cases: list[Case],
    resources: TrialResources | None,
) -> Iterator[TrialExecutor | None]:
    """Nothing for the local executor (trials run in this process); else Ray, connected. A
    local Ray started here cannot grow, so a case asking more CPUs than it has is refused."""
    if where == "local":
        yield None
        return
    with needs_extra("ray", "trailcheck run --executor ray"):
        from trailcheck.distributed import RayTrialExecutor, ray_session
    with ray_session(address) as local:
        executor = RayTrialExecutor(num_cpus=num_cpus)
        if local:
            executor.refuse_unplaceable(cases, resources)
        yield executor


def finish(
    report: RunReport,
    gate: GateSpec,
    written: list[Path],
    calibration: CalibrationReport | None = None,
) -> None:
    """Print the summary, the files and the gate; exit 1 when the gate failed."""
    stdout.print(render_run(report))
    stderr.print("wrote " + ", ".join(str(path) for path in written), markup=False)
    judge = report.manifest.get("judge")
    if isinstance(judge, dict):
        version = judge.get("version")
        if calibration is None:
            stdout.print(
                f"judge {version} is uncalibrated: its verdicts are unmeasured", markup=False
            )
        elif calibration.judge_version != version:
            stdout.print(
                f"judge {version} is uncalibrated: the calibration given is of judge"
                f" {calibration.judge_version}",
                markup=False,
            )
    outcome = check_gate(report, gate, calibration)
    print_gate(outcome, stdout)
    if not outcome.passed:
        raise typer.Exit(EXIT_FAILED)


def _splits(values: list[RunSplit] | None) -> tuple[Split, ...] | None:
    """The splits ``--split`` chose, once each, in the order of :data:`trailcheck.cases.Split`."""
    if not values:
        return None
    known: tuple[Split, ...] = get_args(Split)
    return tuple(split for split in known if split in values)
