"""The runner: isolated trials, every outcome recorded as data, stable order, partial reports."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.waiting import forever, wait_for_event
from trailcheck.cases import Case, Dataset, ToolFault
from trailcheck.demo.support import prompt_only_shop, support_dataset, v1_agent, v2_agent
from trailcheck.environment import ToolError
from trailcheck.errors import InfraError, UsageError
from trailcheck.run.agent import TrialContext
from trailcheck.run.plan import RunOptions
from trailcheck.run.results import TrialResult
from trailcheck.run.runner import run, run_async

EXPECTS_LOOKUP = {"expected_tools": ["lookup"]}


class Counter:
    """A tiny environment: one tool that counts its calls into the state."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.calls: list[str] = []

    def snapshot(self) -> dict[str, Any]:
        return {"calls": list(self.calls)}

    @property
    def tools(self) -> list[Any]:
        return [self.lookup]

    def lookup(self, key: str) -> dict[str, Any]:
        self.calls.append(key)
        return {"key": key, "found": True}


class ScriptAgent:
    """Calls ``lookup`` once per turn, then behaves as ``mode`` says. Only ``hang`` awaits (for
    ever): the others never give the event loop a turn during their trial, so no trial timeout
    can fire in them, however slow the machine."""

    def __init__(self, mode: str = "ok", seen: list[Any] | None = None) -> None:
        self.mode = mode
        self.seen = seen if seen is not None else []

    async def respond(self, message: str, context: TrialContext) -> Any:
        self.seen.append((message, context))
        if self.mode == "crash":
            raise ValueError("the agent has a bug")
        if self.mode == "infra":
            raise InfraError("model unreachable after 3 attempts")
        (lookup,) = context.tools
        try:
            result = lookup(key=message)
        except ToolError as error:
            result = {"error": str(error)}
        if self.mode == "hang":
            await forever()
        return f"looked up {message}: {result}"


def _dataset(*cases: Case) -> Dataset:
    return Dataset(name="tiny", cases=list(cases))


def _case(case_id: str = "c1", **fields: Any) -> Case:
    return Case(id=case_id, input=fields.pop("input", "A-1"), **{**EXPECTS_LOOKUP, **fields})


def test_support_demo_v1_fails_its_bug_cases_and_v2_passes_everything() -> None:
    dataset = support_dataset()
    v1 = run(dataset, v1_agent, prompt_only_shop, options=RunOptions(k=2)).report
    v2 = run(dataset, v2_agent, prompt_only_shop, options=RunOptions(k=2)).report
    assert v2.summary.trials.passed == 2 * len(dataset.cases)
    assert v2.summary.pass_hat_k[2] == 1.0
    failing = {case.id for case in v1.cases if any(t.status == "failed" for t in case.trials)}
    assert {"refund-verified", "reschedule-friday", "lookup-outage-no-loop"} <= failing
    friday = next(case for case in v1.cases if case.id == "reschedule-friday")
    arguments = next(s for s in friday.trials[0].scores if s.scorer == "arguments")
    assert "expected 2026-06-19, got 2026-06-17" in arguments.reason


def test_every_outcome_is_a_trial_with_its_reason() -> None:
    cases = [
        _case("ok"),
        _case("crash"),
        _case("infra"),
        _case("hang"),
        Case(id="checks-nothing", input="A-1"),
    ]
    modes = iter(["probe", "ok", "crash", "infra", "hang", "ok"])

    def factory() -> ScriptAgent:
        return ScriptAgent(next(modes))

    result = run(
        _dataset(*cases),
        factory,
        Counter,
        # Short, yet only "hang" reaches it: the other agents never await (see ScriptAgent).
        options=RunOptions(k=1, concurrency=1, timeout_s=0.2),
    )
    trials = {trial.case_id: trial for trial in result.report.trials()}
    assert {case_id: trial.status for case_id, trial in trials.items()} == {
        "ok": "passed",
        "crash": "crashed",
        "infra": "infra_error",
        "hang": "timeout",
        "checks-nothing": "unscorable",
    }
    crash = trials["crash"]
    assert crash.error is not None
    assert (crash.error.type, crash.error.message) == ("ValueError", "the agent has a bug")
    assert "raise ValueError" in crash.error.traceback
    assert trials["hang"].reason == "timed out after 0.2 s"
    # The partial trace of the timed-out trial is kept: its lookup is there.
    assert [call.name for call in trials["hang"].calls] == ["lookup"]
    assert (
        "no scorer applied" in trials["checks-nothing"].reason
        or "generic" in trials["checks-nothing"].reason
    )
    counts = result.report.summary.trials
    assert (counts.attempted, counts.infra_error, counts.crashed, counts.timeout) == (5, 1, 1, 1)


def test_each_trial_gets_a_fresh_environment_and_agent() -> None:
    environments: list[Counter] = []

    def shop() -> Counter:
        environments.append(Counter())
        return environments[-1]

    result = run(_dataset(_case()), ScriptAgent, shop, options=RunOptions(k=3))
    traces = result.traces
    assert [trace.state_before for trace in traces] == [{"calls": []}] * 3
    assert [trace.state_after for trace in traces] == [{"calls": ["A-1"]}] * 3
    # One environment for the manifest's fixture hash, then one per trial.
    assert len(environments) == 4
    assert len({trace.trace_id for trace in traces}) == 3


def test_faults_apply_to_the_first_calls_of_each_trial() -> None:
    fault = ToolFault(tool="lookup", first=1, error="RateLimited: retry in 1 s")
    case = _case(input=[{"role": "user", "content": "A-1"}, {"role": "user", "content": "A-2"}])
    case = case.model_copy(update={"faults": [fault], "expected_tools": ["lookup", "lookup"]})
    result = run(_dataset(case), ScriptAgent, Counter, options=RunOptions(k=2))
    for trial in result.report.trials():
        assert [c.succeeded for c in trial.calls] == [False, True]
        assert trial.calls[0].error == "ToolError: RateLimited: retry in 1 s"
        assert trial.final_output is not None
        assert trial.final_output.startswith("looked up A-2")
    assert [trace.state_after for trace in result.traces] == [{"calls": ["A-2"]}] * 2


def test_a_fault_for_a_tool_the_environment_lacks_is_refused_before_any_trial() -> None:
    case = _case().model_copy(update={"faults": [ToolFault(tool="refund", result=[])]})
    with pytest.raises(UsageError, match=r"case 'c1': faults name 'refund', which the environ"):
        run(_dataset(case), ScriptAgent, Counter)


def test_multi_turn_input_is_played_in_order() -> None:
    seen: list[Any] = []
    turns = [{"role": "user", "content": "first"}, {"role": "user", "content": "second"}]
    case = _case(input=turns, expected_tools=["lookup", "lookup"])
    run(_dataset(case), lambda: ScriptAgent(seen=seen), Counter)
    assert [message for message, _ in seen] == ["first", "second"]


def test_an_assistant_turn_in_the_input_is_refused_before_any_trial() -> None:
    turns = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    with pytest.raises(UsageError, match=r"case 'c1': the runner plays user turns only"):
        run(_dataset(_case(input=turns)), ScriptAgent, Counter)


def test_environment_that_never_starts_makes_every_trial_an_infra_error() -> None:
    def down() -> Counter:
        raise ConnectionError("fixture database is down")

    result = run(_dataset(_case("a"), _case("b")), ScriptAgent, down, options=RunOptions(k=2))
    assert [t.status for t in result.report.trials()] == ["infra_error"] * 4
    assert result.report.manifest["environment"] == {
        "reference": None,
        "error": "ConnectionError: fixture database is down",
    }
    assert result.report.summary.trials.infra_error == 4


def test_environment_that_cannot_start_is_an_infra_error() -> None:
    made = 0

    def broken() -> Counter:
        nonlocal made
        made += 1
        if made > 1:
            raise ConnectionError("fixture database is down")
        return Counter()

    (trial,) = run(_dataset(_case()), ScriptAgent, broken).report.trials()
    assert trial.status == "infra_error"
    assert trial.reason == "environment failed: ConnectionError: fixture database is down"


class SlowAgent:
    """Answers after ``delay`` seconds; with no delay, never (it waits until cancelled)."""

    running = 0
    peak = 0

    def __init__(self, delay: float | None) -> None:
        self.delay = delay

    async def respond(self, message: str, context: TrialContext) -> str:
        SlowAgent.running += 1
        SlowAgent.peak = max(SlowAgent.peak, SlowAgent.running)
        try:
            if self.delay is None:
                await forever()
            else:
                await asyncio.sleep(self.delay)
            context.tools[0](key=message)
        finally:
            SlowAgent.running -= 1
        return "done"


def test_concurrency_is_bounded_and_results_keep_dataset_order() -> None:
    delays = iter([0.0] + [0.05, 0.0, 0.03, 0.01, 0.04, 0.02] * 2)
    SlowAgent.peak = 0
    cases = [_case(f"c{i}") for i in range(6)]
    report = run(
        _dataset(*cases),
        lambda: SlowAgent(next(delays)),
        Counter,
        options=RunOptions(k=2, concurrency=3),
    ).report
    assert SlowAgent.peak == 3
    assert [(t.case_id, t.attempt) for t in report.trials()] == [
        (f"c{i}", attempt) for i in range(6) for attempt in (1, 2)
    ]


def test_one_rate_limiter_is_shared_by_every_trial() -> None:
    seen: list[Any] = []
    run(
        _dataset(_case("a"), _case("b")),
        lambda: ScriptAgent(seen=seen),
        Counter,
        options=RunOptions(k=2, rate_limit_per_s=1000),
    )
    limiters = {id(context.rate_limiter) for _, context in seen}
    assert len(seen) == 4
    assert len(limiters) == 1
    assert None not in {context.rate_limiter for _, context in seen}


class Finished:
    """A :class:`~trailcheck.run.runner.RunObserver` whose ``all_back`` is set once ``expected``
    trials have finished."""

    def __init__(self, expected: int) -> None:
        self.expected = expected
        self.trials: list[TrialResult] = []
        self.all_back = asyncio.Event()

    def started(self, total: int) -> None:
        pass

    def finished(self, trial: TrialResult) -> None:
        self.trials.append(trial)
        if len(self.trials) >= self.expected:
            self.all_back.set()


def test_cancelling_the_run_returns_a_partial_report_of_the_finished_trials() -> None:
    # The manifest's agent, then the trials in order: the fast ones answer, the slow ones never.
    delays = iter([0.0, 0.0, 0.0, None, None])

    async def interrupted() -> Any:
        finished = Finished(expected=2)
        task = asyncio.ensure_future(
            run_async(
                _dataset(_case("fast"), _case("slow")),
                lambda: SlowAgent(next(delays)),
                Counter,
                options=RunOptions(k=2, concurrency=4),
                observer=finished,
            )
        )
        await wait_for_event(finished.all_back.wait(), "the two fast trials to finish")
        task.cancel()
        return await wait_for_event(task, "the cancelled run to return its partial report")

    result = asyncio.run(interrupted())
    assert result.report.partial
    assert [(t.case_id, t.status) for t in result.report.trials()] == [
        ("fast", "passed"),
        ("fast", "passed"),
    ]
    assert result.report.manifest["interrupted_trials"] == 2


def test_baseline_comparison_and_manifest() -> None:
    dataset = support_dataset()
    baseline = run(dataset, v1_agent, prompt_only_shop, options=RunOptions(k=2)).report
    report = run(
        dataset,
        v2_agent,
        prompt_only_shop,
        options=RunOptions(k=2, seed=7),
        baseline=baseline,
        references={"agent": "trailcheck.demo.support:v2_agent"},
    ).report
    assert report.comparison is not None
    assert report.comparison.mcnemar.improved == 11
    assert report.comparison.mcnemar.regressed == 0
    manifest = report.manifest
    assert manifest["dataset"] == {"name": "support", "version": dataset.version, "path": None}
    agent = manifest["agent"]
    assert isinstance(agent, dict)
    assert agent["reference"] == "trailcheck.demo.support:v2_agent"
    assert agent["model"] == "support-v2"
    assert isinstance(agent["system_prompt_sha256"], str)
    environment = manifest["environment"]
    assert isinstance(environment, dict)
    assert environment["tools"] == [
        "search_orders",
        "lookup_order",
        "verify_identity",
        "check_refund_policy",
        "issue_refund",
        "reschedule_delivery",
    ]
    harness = manifest["harness"]
    assert isinstance(harness, dict)
    assert (harness["k"], harness["seed"]) == (2, 7)
    machine = manifest["machine"]
    assert isinstance(machine, dict)
    assert isinstance(machine["cpu_count"], int)
    assert report.review_statuses == {"approved": len(dataset.cases)}


def test_same_seed_same_trace_ids() -> None:
    first = run(_dataset(_case()), ScriptAgent, Counter, options=RunOptions(k=2, seed=3))
    again = run(_dataset(_case()), ScriptAgent, Counter, options=RunOptions(k=2, seed=3))
    other = run(_dataset(_case()), ScriptAgent, Counter, options=RunOptions(k=2, seed=4))
    ids = [t.trace_id for t in first.traces]
    assert ids == [t.trace_id for t in again.traces]
    assert ids != [t.trace_id for t in other.traces]
