"""One trial: a fresh environment, the agent's conversation played and recorded, the trace
graded, and what happened made the trial's status (:mod:`trailcheck.run.status`; the runner's
module docstring lists the statuses). :func:`run_trial` never raises for what the agent, the
environment, the scorers or the simulated user do: each becomes data in the trial. The runner
(:mod:`trailcheck.run.runner`) and the Ray executor (:mod:`trailcheck.distributed`) both run
trials through it.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Sequence
from typing import Any

from trailcheck.capture import Recorder, SeededIds
from trailcheck.cases import Case
from trailcheck.environment import Environment
from trailcheck.errors import InfraError, UsageError
from trailcheck.judge.render import TOOL_DECLARATIONS_KEY
from trailcheck.models.declarations import declare_tools
from trailcheck.run.conversation import Conversation
from trailcheck.run.faults import with_faults
from trailcheck.run.judging import judged
from trailcheck.run.native_trial import NativeTrial
from trailcheck.run.otel_agent import OtelAgent
from trailcheck.run.otel_trial import OtelTrial
from trailcheck.run.plan import TrialPlan
from trailcheck.run.results import TrialError, TrialResult, call_summaries
from trailcheck.run.status import TrialStatus
from trailcheck.scorers import Grade, Scorer, ScorerFailure, grade
from trailcheck.simulation import SimulatorError
from trailcheck.trace import Trace

__all__ = ["run_trial"]


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
