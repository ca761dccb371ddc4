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
import hashlib
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import JsonValue

from trailcheck.capture import Recorder, SeededIds
from trailcheck.cases import Case, Dataset, awkward_kinds
from trailcheck.environment import Environment, EnvironmentFactory
from trailcheck.errors import InfraError, UsageError
from trailcheck.judge.judge import Judge
from trailcheck.judge.render import TOOL_DECLARATIONS_KEY
from trailcheck.models.declarations import declare_tools
from trailcheck.run.agent import AgentFactory
from trailcheck.run.conversation import Conversation
from trailcheck.run.faults import with_faults
from trailcheck.run.judging import judged
from trailcheck.run.manifest import Harness, build_manifest, describe_agent
from trailcheck.run.native_trial import NativeTrial
from trailcheck.run.otel_agent import OtelAgent
from trailcheck.run.otel_trial import OtelTrial
from trailcheck.run.plan import RunOptions, TrialExecutor, TrialPlan
from trailcheck.run.preflight import check_simulated_users, probe_environment, selected_cases
from trailcheck.run.results import (
    CaseResult,
    RunReport,
    TrialError,
    TrialResult,
    awkward_pass_rates,
    call_summaries,
    user_replay_summary,
)
from trailcheck.run.stats import summarize_outcomes
from trailcheck.run.status import TrialStatus
from trailcheck.scorers import Grade, Scorer, ScorerFailure, case_scorers, default_scorers, grade
from trailcheck.simulation import SimulatorError, SimulatorReviewer, TurnCache, UserSimulator
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


def _trial_seed(seed: int, case_id: str, attempt: int) -> int:
    digest = hashlib.sha256(f"{seed}\0{case_id}\0{attempt}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def _trial_metadata(
    case: Case, attempt: int, plan: TrialPlan, environment: Environment | None
) -> dict[str, Any]:
    metadata: dict[str, Any] = {
        "case_id": case.id,
        "attempt": attempt,
        "dataset": plan.dataset_version,
    }
    if plan.judge is not None and case.rubrics and environment is not None:
        # A judge reads the tools as the model saw them (render.TOOL_DECLARATIONS_KEY).
        try:
            declared = declare_tools(environment.tools)
        except UsageError:  # tools without a schema: the judge's prompt says none are known
            return metadata
        metadata[TOOL_DECLARATIONS_KEY] = [d.model_dump(mode="json") for d in declared]
    return metadata


def _is_infra(error: BaseException) -> bool:
    if isinstance(error, BaseExceptionGroup):
        return error.subgroup(InfraError) is not None
    return isinstance(error, InfraError)


def _session(
    case: Case, attempt: int, plan: TrialPlan, environment: Environment | None
) -> NativeTrial | OtelTrial:
    metadata = _trial_metadata(case, attempt, plan, environment)
    ids = SeededIds(_trial_seed(plan.options.seed, case.id, attempt))
    factory = plan.agent_factory
    conversation = Conversation(case, attempt, plan.user_simulator, plan.user_replay)
    if isinstance(factory, OtelAgent):
        tools = with_faults(environment.tools if environment is not None else [], case.faults)
        return OtelTrial(
            factory,
            conversation=conversation,
            case_input=case.input,
            tools=conversation.counted_tools(tools),
            environment=environment,
            rate_limiter=plan.rate_limiter,
            metadata=metadata,
            ids=ids,
        )
    recorder = Recorder(
        agent_name="trailcheck-run",
        input=case.input,
        environment=environment,
        metadata=metadata,
        ids=ids,
    )
    return NativeTrial(factory, case, environment, recorder, plan.rate_limiter, conversation)


async def run_trial(
    case: Case, attempt: int, plan: TrialPlan, scorers: Sequence[Scorer]
) -> tuple[TrialResult, Trace | None]:
    """One trial of ``case``: never raises for what the agent, environment or scorers do."""
    began = time.perf_counter()

    def result(status: TrialStatus, reason: str, trace: Trace | None, **extra: Any) -> TrialResult:
        return TrialResult(
            case_id=case.id,
            attempt=attempt,
            status=status,
            reason=reason,
            duration_ms=(time.perf_counter() - began) * 1e3,
            trace_id=None if trace is None else trace.trace_id,
            final_output=None if trace is None or trace.final_output is None else trace.final_text,
            calls=[] if trace is None else call_summaries(trace),
            model_calls=0 if trace is None else sum(s.kind == "llm" for s in trace.spans),
            usage=None if trace is None else trace.usage,
            **extra,
        )

    try:
        environment = plan.environment_factory() if plan.environment_factory else None
        if environment is not None:
            environment.reset()
    # An environment that cannot start is the harness's failure, not the agent's: recorded.
    except Exception as broken:  # noqa: BLE001
        failure = TrialError.from_exception(broken)
        reason = f"environment failed: {failure.type}: {broken}"
        return result("infra_error", reason, None, error=failure), None
    session = _session(case, attempt, plan, environment)
    deadline = asyncio.timeout(plan.options.timeout_s)
    error: BaseException | None = None
    try:
        async with deadline:
            await session.play()
    except TimeoutError as raised:
        error = raised
    # The agent's failure is the trial's data: kept with its stack, and the run goes on.
    except Exception as raised:  # noqa: BLE001
        error = raised
    except BaseException:  # cancelled (Ctrl-C): nothing more is collected for this trial
        session.close()
        raise
    collected = await session.collect()
    trace = collected if isinstance(collected, Trace) else None
    conversation = session.conversation
    said = {
        "user_turns": list(conversation.simulated_turns),
        "conversation_ending": conversation.ending,
        # Who said what, for the reports: kept where a simulator spoke, so plain runs stay lean.
        "transcript": list(conversation.transcript) if case.user is not None else [],
    }
    if error is not None:
        failure = TrialError.from_exception(error)
        if isinstance(error, TimeoutError) and deadline.expired():
            reason = f"timed out after {plan.options.timeout_s:g} s"
            return result("timeout", reason, trace, error=failure, **said), trace
        status: TrialStatus = "infra_error" if _is_infra(error) else "crashed"
        return result(status, f"{failure.type}: {error}", trace, error=failure, **said), trace
    if trace is None:  # the agent ran, but its telemetry gave no trace (an otel agent's)
        return result("infra_error", str(collected), None, **said), None
    graded = await judged(grade(trace, case, scorers), trace, case, plan.judge)
    status, reason, extra = _verdict(graded, *await conversation.audit(plan.user_reviewer))
    return result(status, reason, trace, **extra, **said), trace


def _verdict(
    graded: Grade, simulator_errors: list[SimulatorError], review_failures: list[ScorerFailure]
) -> tuple[TrialStatus, str, dict[str, Any]]:
    """A graded trial's status, reason and findings: the grade's, unless the simulated user
    erred, when it is ``sim_error`` (the scores stay, to read: the agent was graded against a
    user who did not follow its brief)."""
    extra: dict[str, Any] = {
        "scores": list(graded.scores),
        "scorer_failures": [*graded.failures, *review_failures],
        # A judge may have turned a failed grade unscorable: only a failure is attributed.
        "attribution": graded.attribution if graded.status == "failed" else None,
    }
    if simulator_errors:
        reason = "the simulated user erred: " + "; ".join(map(str, simulator_errors))
        return "sim_error", reason, {**extra, "simulator_errors": simulator_errors}
    return graded.status, graded.reason, extra


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
