"""Run an agent on a dataset: k isolated trials per case, graded, counted honestly.

::

    result = run(load_dataset("support.yaml"), v2_agent, prompt_only_shop, options=RunOptions(k=4))
    result.report.summary.pass_hat_k[4]

Each trial gets a fresh agent from the factory and a fresh environment, reset from its fixture,
whose tools carry the case's faults (:mod:`trailcheck.run.faults`) and are recorded; the case's
user turns are played in order inside one recorded run, and the trace is graded. An
:class:`~trailcheck.run.otel_agent.OtelAgent` (a framework's agent) plays them the same way, but
its trace is what its OpenTelemetry instrumentation recorded (:mod:`trailcheck.run.otel_trial`).
What happened becomes the trial's status (:mod:`trailcheck.run.status`):

- ``timeout``: the trial ran past ``timeout_s``; the partial trace is kept;
- ``crashed``: the agent (or its factory) raised; type, message and stack are kept;
- ``infra_error``: an :class:`~trailcheck.errors.InfraError` (the model or network failed after
  its retries), the environment could not be made or reset, or an otel agent's telemetry gave
  no trace;
- ``unscorable``: a scorer raised, or the case checks nothing; else ``passed`` or ``failed``.

Trials run as asyncio tasks, at most ``concurrency`` at once, sharing one rate limiter; results
are reported in dataset order then attempt, whatever order they finish in. Cancelling the run
(Ctrl-C under :func:`run`) stops the trials in flight and returns the finished ones in a report
marked ``partial``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import JsonValue

from trailcheck.cases import Case, Dataset, awkward_kinds
from trailcheck.environment import EnvironmentFactory
from trailcheck.judge.judge import Judge
from trailcheck.run.agent import AgentFactory
from trailcheck.run.manifest import Harness, build_manifest, describe_agent
from trailcheck.run.otel_agent import OtelAgent
from trailcheck.run.plan import RunOptions, TrialExecutor, TrialPlan
from trailcheck.run.preflight import check_simulated_users, probe_environment, selected_cases
from trailcheck.run.results import (
    CaseResult,
    RunReport,
    TrialResult,
    awkward_pass_rates,
    user_replay_summary,
)
from trailcheck.run.stats import summarize_outcomes
from trailcheck.run.trial import run_trial
from trailcheck.scorers import Scorer, case_scorers, default_scorers
from trailcheck.simulation import SimulatorReviewer, TurnCache, UserSimulator
from trailcheck.trace import Trace
from trailcheck.trace.jsonl import dump_trace


class RunObserver(Protocol):
    """Told when the run starts and as each trial finishes (a progress bar, a log)."""

    def started(self, total: int) -> None: ...

    def finished(self, trial: TrialResult) -> None: ...


@dataclass(frozen=True, slots=True, repr=False)
class RunResult:
    """The report, and the traces of the trials that produced one, in report order.

    The traces are kept as their trailcheck JSONL lines (``trace_lines``) and parsed when
    ``traces`` is read: a run of thousands of trials would otherwise keep millions of live
    objects for the garbage collector to walk while the run goes on.
    """

    report: RunReport
    trace_lines: list[bytes] = field(default_factory=list)

    @property
    def traces(self) -> list[Trace]:
        return [Trace.model_validate_json(line) for line in self.trace_lines]

    def __repr__(self) -> str:
        # Short on purpose: asyncio formats the finished main task (with its result) when the
        # loop closes, and the full repr of a large run is megabytes.
        trials = self.report.summary.trials
        return (
            f"RunResult({trials.attempted} trials, {len(self.trace_lines)} traces,"
            f" partial={self.report.partial})"
        )


async def run_async(
    dataset: Dataset,
    agent_factory: AgentFactory | OtelAgent,
    environment_factory: EnvironmentFactory | None = None,
    *,
    options: RunOptions | None = None,
    baseline: RunReport | None = None,
    observer: RunObserver | None = None,
    references: dict[str, str | None] | None = None,
    judge: Judge | None = None,
    executor: TrialExecutor | None = None,
    user_simulator: UserSimulator | None = None,
    replay_user: RunReport | None = None,
    user_reviewer: SimulatorReviewer | None = None,
) -> RunResult:
    """Run every case (of ``options.splits``) ``options.k`` times; see the module docstring.

    ``executor`` runs each trial elsewhere (Ray); ``options.concurrency`` bounds them still.

    ``judge`` answers the cases' rubrics after the deterministic scorers (see
    :mod:`trailcheck.run.judging`); its version and description go in the manifest.

    ``user_simulator`` plays the cases' simulated users, and ``user_reviewer`` (a judge)
    reviews each conversation after the simulator audit's rules; ``replay_user`` is a baseline
    report whose simulated turns are replayed while the conversation is the same as it was
    there (:mod:`trailcheck.simulation.replay`).

    ``references`` names where the agent, environment and dataset came from
    (``{"agent": "shop.agents:v2", "environment": ..., "dataset": "support.yaml"}``), for the
    manifest.
    """
    options = options or RunOptions()
    names = references or {}
    cases = selected_cases(dataset, options.splits)
    check_simulated_users(cases, user_simulator)
    scorers_by_case = {case.id: case_scorers(case) for case in cases}
    replay = None if replay_user is None else TurnCache(replay_user.user_turns())
    plan = TrialPlan.for_run(
        dataset,
        agent_factory,
        environment_factory,
        options,
        judge,
        user_simulator,
        replay,
        user_reviewer,
    )
    environment = probe_environment(cases, environment_factory, names.get("environment"))
    manifest = build_manifest(
        dataset=dataset,
        dataset_path=names.get("dataset"),
        agent=describe_agent(
            agent_factory if isinstance(agent_factory, OtelAgent) else agent_factory(),
            names.get("agent"),
        ),
        environment=environment,
        judge=None if judge is None else {"version": judge.version, **judge.describe()},
        scorers=_all_scorers(scorers_by_case.values()),
        harness=Harness(
            k=options.k,
            concurrency=options.concurrency,
            timeout_s=options.timeout_s,
            seed=options.seed,
            rate_limit_per_s=options.rate_limit_per_s,
            network_allowed=options.network_allowed,
        ),
    )
    slots = asyncio.Semaphore(options.concurrency)
    finished: dict[tuple[int, int], tuple[TrialResult, bytes | None]] = {}

    async def one(index: int, case: Case, attempt: int) -> None:
        async with slots:
            if executor is None:
                trial, trace = await run_trial(case, attempt, plan, scorers_by_case[case.id])
                line = None if trace is None else dump_trace(trace)
            else:
                trial, line = await executor.run_trial(case, attempt, plan)
        finished[index, attempt] = (trial, line)
        if observer is not None:
            observer.finished(trial)

    planned = [(i, case, a) for i, case in enumerate(cases) for a in range(1, options.k + 1)]
    if observer is not None:
        observer.started(len(planned))
    tasks = [asyncio.ensure_future(one(*item)) for item in planned]
    partial = False
    try:
        await asyncio.gather(*tasks)
    except asyncio.CancelledError:
        # Interrupted: the finished trials are reported; the ones in flight are not trials.
        partial = True
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    manifest["interrupted_trials"] = len(planned) - len(finished) if partial else 0
    if executor is not None:
        manifest["executor"] = executor.describe()
    if user_simulator is not None:
        manifest["user_simulator"] = {
            "name": user_simulator.name,
            "reviewer": None if user_reviewer is None else user_reviewer.name,
            "replayed_from": None
            if replay_user is None or replay is None
            else {"created_at": replay_user.manifest.get("created_at"), "turns": len(replay)},
        }
    result = _result(cases, finished, manifest, partial, options, baseline)
    if replay_user is None:
        return result
    replayed = user_replay_summary(result.report, replay_user)
    report = result.report.model_copy(update={"user_replay": replayed})
    return RunResult(report, result.trace_lines)


def _all_scorers(per_case: Any) -> list[Scorer]:
    chosen: dict[str, Scorer] = {}
    for scorers in [default_scorers(), *per_case]:
        for scorer in scorers:
            chosen.setdefault(scorer.name, scorer)
    return list(chosen.values())


def _result(
    cases: Sequence[Case],
    finished: dict[tuple[int, int], tuple[TrialResult, bytes | None]],
    manifest: dict[str, JsonValue],
    partial: bool,
    options: RunOptions,
    baseline: RunReport | None,
) -> RunResult:
    case_results: list[CaseResult] = []
    traces: list[bytes] = []
    for index, case in enumerate(cases):
        trials = []
        for attempt in range(1, options.k + 1):
            if (index, attempt) not in finished:
                continue
            trial, trace = finished[index, attempt]
            trials.append(trial)
            if trace is not None:
                traces.append(trace)
        case_results.append(
            CaseResult(
                id=case.id,
                split=case.split,
                review_status=case.review_status,
                failure_modes=case.failure_modes,
                expected_tools=case.expected_tools,
                expected_arguments=[
                    e.model_dump(mode="json", by_alias=True) for e in case.expected_arguments
                ],
                awkward_results=awkward_kinds(case.faults),
                trials=trials,
            )
        )
    outcomes = {case.id: [t.status for t in case.trials] for case in case_results}
    statuses: dict[str, int] = {}
    for case in cases:
        statuses[case.review_status] = statuses.get(case.review_status, 0) + 1
    report = RunReport(
        partial=partial,
        manifest=manifest,
        summary=summarize_outcomes(outcomes, k=options.k, seed=options.seed),
        review_statuses=statuses,
        cases=case_results,
        awkward_results=awkward_pass_rates(case_results),
    )
    if baseline is not None:
        comparison = report.against(baseline, seed=options.seed)
        report = report.model_copy(update={"comparison": comparison})
    return RunResult(report, traces)


class AsyncClosable(Protocol):
    async def aclose(self) -> None: ...


def run(
    dataset: Dataset,
    agent_factory: AgentFactory | OtelAgent,
    environment_factory: EnvironmentFactory | None = None,
    *,
    closing: Sequence[AsyncClosable] = (),
    **settings: Any,
) -> RunResult:
    """:func:`run_async` on a new event loop; Ctrl-C returns the partial result.

    ``closing`` (a model client, say) is closed on that loop when the run ends: its
    connections belong to the loop, which is gone once this returns.
    """

    async def run_then_close() -> RunResult:
        try:
            return await run_async(dataset, agent_factory, environment_factory, **settings)
        finally:
            for resource in closing:
                await resource.aclose()

    return asyncio.run(run_then_close())
