"""The otel runner kind, with no framework: hand-made agents instrumented through the OpenTelemetry
SDK's API (``tests.run.otel_agents``), each trial's trace collected from the spans it emitted."""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from opentelemetry import trace as otel_trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.trace import NoOpTracerProvider
from opentelemetry.util._once import Once

from tests.run.otel_agents import (
    ANSWER,
    instrumented_turn,
    ledger,
    ledger_dataset,
    make_async,
    make_crashing,
    make_hanging,
    make_leaky,
    make_silent,
    make_sync,
)
from tests.waiting import GUARD_S, wait_for_event
from trailcheck.capture import TraceCollector
from trailcheck.cases import SimulatedUser, StopCondition, dump_dataset
from trailcheck.cli import run_cli
from trailcheck.errors import UsageError
from trailcheck.run import (
    FrameworkAgent,
    OtelAgent,
    OtelAgentFactory,
    RunOptions,
    TelemetryContext,
    run,
)
from trailcheck.run.conversation import USER_TURN_SPAN
from trailcheck.run.otel_trial import TRIAL_SPAN_NAME
from trailcheck.run.results import load_report
from trailcheck.run.trial_spans import sdk_tracer_provider, trial_router
from trailcheck.testing import ScriptedUser

pytestmark = pytest.mark.live


@pytest.fixture
def provider() -> Iterator[TracerProvider]:
    provider = TracerProvider()
    yield provider
    provider.shutdown()


def test_a_trial_is_graded_on_the_trace_its_telemetry_recorded(provider: TracerProvider) -> None:
    result = run(ledger_dataset(), OtelAgent(make_async, tracer_provider=provider), ledger)

    [trial] = result.report.trials()
    assert trial.status == "passed", trial.reason
    [trace] = result.traces
    assert trace.final_output == ANSWER  # from telemetry, not what the callable returned
    assert trace.input == "Add 5 to the ledger."
    assert trace.state_before == {"entries": []}
    assert trace.state_after == {"entries": [{"amount": 5.0}]}
    assert [(c.name, c.call_id, c.arguments) for c in trace.tool_calls] == [
        ("add_entry", "call_1", {"amount": 5.0})
    ]
    assert trace.metadata["case_id"] == "add-0"
    assert trace.metadata["agent_name"] == "ledger"
    assert trace.usage is not None
    assert trace.usage.input_tokens == 30
    root = trace.tree.root
    assert root is not None
    assert root.name == TRIAL_SPAN_NAME
    assert "trailcheck.otel.remote_parent_id" not in root.attributes
    assert [s.name for s in trace.tree.children(root.span_id)] == ["invoke_agent ledger"]
    assert trial.model_calls == 2
    assert trial.trace_id == trace.trace_id
    assert result.report.manifest["agent"]["kind"] == "otel"  # type: ignore[index,call-overload]
    assert trial_router(provider).routes == {}  # every trial released its trace id


def test_trace_ids_follow_the_seed_as_native_trials_do(provider: TracerProvider) -> None:
    agent = OtelAgent(make_async, tracer_provider=provider)
    first = run(ledger_dataset(), agent, ledger, options=RunOptions(k=2, seed=7))
    again = run(ledger_dataset(), agent, ledger, options=RunOptions(k=2, seed=7))
    ids = [t.trace_id for t in first.report.trials()]
    assert ids == [t.trace_id for t in again.report.trials()]
    assert len(set(ids)) == 2


def meeting(factory: OtelAgentFactory, parties: int) -> OtelAgentFactory:
    """``factory``'s agents, but the first ``parties`` turns of the run each wait until all of
    them have begun: that many trials are running at once when they emit their spans."""
    arrivals = 0
    counting = threading.Lock()
    barrier = threading.Barrier(parties)  # for sync agents, each in a thread of its own
    everyone = asyncio.Event()  # for async agents, all on the run's event loop

    def arrive() -> int:
        nonlocal arrivals
        with counting:
            arrivals += 1
            return arrivals

    def make(context: TelemetryContext) -> FrameworkAgent:
        agent = factory(context)
        if inspect.iscoroutinefunction(agent):

            async def respond_async(message: str) -> Any:
                arrived = arrive()
                if arrived == parties:
                    everyone.set()
                elif arrived < parties:
                    await wait_for_event(everyone.wait(), f"{parties} trials to run at once")
                return await agent(message)

            return respond_async

        def respond(message: str) -> Any:
            if arrive() <= parties:
                barrier.wait(GUARD_S)
            return agent(message)

        return respond

    return make


@pytest.mark.parametrize("factory", [make_async, make_sync], ids=["async", "sync"])
def test_concurrent_trials_each_get_only_their_own_spans(
    provider: TracerProvider, factory: OtelAgentFactory
) -> None:
    inputs = [f"Add 5 to the ledger, request {n}." for n in range(6)]
    # The first eight trials (the concurrency) all emit their spans while all eight run.
    agent = OtelAgent(meeting(factory, 8), tracer_provider=provider)
    result = run(ledger_dataset(*inputs), agent, ledger, options=RunOptions(k=3, concurrency=8))

    assert [t.status for t in result.report.trials()] == ["passed"] * 18
    for trace in result.traces:
        assert len(trace.spans) == 5  # the trial span, invoke_agent, two chats and the tool
        assert len(trace.tool_calls) == 1
        chat = trace.tree.find(kind="llm")[0]
        assert chat.llm is not None
        case = int(trace.metadata["case_id"].removeprefix("add-"))
        assert chat.llm.input_messages[0].text == inputs[case]
    assert len({trace.trace_id for trace in result.traces}) == 18


def test_several_turns_nest_under_one_trial_span(provider: TracerProvider) -> None:
    from trailcheck.trace import Message

    dataset = ledger_dataset()
    turns = [Message(role="user", content="Hello."), Message(role="user", content="Add 5.")]
    case = dataset.cases[0].model_copy(update={"input": turns, "expected_state": None})
    seen: list[str] = []

    def make(context: TelemetryContext) -> FrameworkAgent:
        def respond(message: str) -> None:
            seen.append(message)
            if message == "Add 5.":
                instrumented_turn(context.tracer_provider, context.tools, message)

        return respond

    one = dataset.model_copy(update={"cases": [case]})
    result = run(one, OtelAgent(make, tracer_provider=provider), ledger)
    assert seen == ["Hello.", "Add 5."]
    [trace] = result.traces
    assert trace.input == turns
    assert trace.final_output == ANSWER


def test_an_agent_whose_telemetry_records_nothing_is_an_infra_error(
    provider: TracerProvider,
) -> None:
    result = run(ledger_dataset(), OtelAgent(make_silent, tracer_provider=provider), ledger)
    [trial] = result.report.trials()
    assert trial.status == "infra_error"
    assert "recorded nothing under the trial span" in trial.reason
    assert result.traces == []
    assert result.report.summary.trials.infra_error == 1


def test_spans_sent_to_another_provider_are_not_the_trial(provider: TracerProvider) -> None:
    elsewhere = TracerProvider()

    def make(context: TelemetryContext) -> FrameworkAgent:
        return lambda message: instrumented_turn(elsewhere, context.tools, message)

    result = run(ledger_dataset(), OtelAgent(make, tracer_provider=provider), ledger)
    [trial] = result.report.trials()
    assert trial.status == "infra_error"
    assert "not on the trial's tracer provider" in trial.reason


def test_a_span_left_running_leaves_no_trace_and_says_so(provider: TracerProvider) -> None:
    agent = OtelAgent(make_leaky, tracer_provider=provider, settle_s=0.2)
    result = run(ledger_dataset(), agent, ledger)
    [trial] = result.report.trials()
    assert trial.status == "infra_error"
    assert trial.reason.startswith("the agent's telemetry produced no trace: trace ")
    assert "1 still running" in trial.reason
    assert "waited 0.2 s" in trial.reason


def test_an_agent_that_raises_crashes_and_keeps_its_trace(provider: TracerProvider) -> None:
    result = run(ledger_dataset(), OtelAgent(make_crashing, tracer_provider=provider), ledger)
    [trial] = result.report.trials()
    assert trial.status == "crashed"
    assert trial.reason == "RuntimeError: the graph broke"
    assert trial.error is not None
    assert "the graph broke" in trial.error.traceback
    [trace] = result.traces
    root = trace.tree.root
    assert root is not None
    assert root.status.code == "error"


def test_a_factory_that_raises_crashes(provider: TracerProvider) -> None:
    def make(context: TelemetryContext) -> FrameworkAgent:
        raise ValueError("no graph")

    result = run(ledger_dataset(), OtelAgent(make, tracer_provider=provider), ledger)
    [trial] = result.report.trials()
    assert (trial.status, trial.reason) == ("crashed", "ValueError: no graph")


def test_an_agent_past_the_timeout_is_a_timeout_with_its_partial_trace(
    provider: TracerProvider,
) -> None:
    # The settle window is only a guard: cancelling the agent ended its spans at once.
    agent = OtelAgent(make_hanging, tracer_provider=provider, settle_s=GUARD_S)
    result = run(ledger_dataset(), agent, ledger, options=RunOptions(timeout_s=0.2))
    [trial] = result.report.trials()
    assert trial.status == "timeout"
    assert trial.reason == "timed out after 0.2 s"
    [trace] = result.traces  # the cancelled spans ended, so the trace completed
    assert {s.name for s in trace.spans} == {TRIAL_SPAN_NAME, "invoke_agent ledger"}


def test_a_sync_agent_past_the_timeout_does_not_hold_up_the_run(provider: TracerProvider) -> None:
    release, returned = threading.Event(), threading.Event()

    def make(context: TelemetryContext) -> FrameworkAgent:
        def respond(message: str) -> None:
            release.wait(GUARD_S)  # released by the test once the run has returned
            returned.set()

        return respond

    # The settle window is only a guard: the agent emitted no span, the trial span ended.
    agent = OtelAgent(make, tracer_provider=provider, settle_s=GUARD_S)
    try:
        result = run(ledger_dataset(), agent, ledger, options=RunOptions(timeout_s=0.2))
        agent_still_running = not returned.is_set()
    finally:
        release.set()
    [trial] = result.report.trials()
    assert trial.status == "timeout"
    assert agent_still_running  # the run returned without waiting for the agent's thread


def test_two_trials_cannot_share_a_trace_id(provider: TracerProvider) -> None:
    router = trial_router(provider)
    first, second = TraceCollector(), TraceCollector()
    router.register(1, first)
    with pytest.raises(UsageError, match="already a running trial's"):
        router.register(1, second)
    router.release(1, second)  # the refused trial cannot release the running one's id
    assert router.routes == {1: first}
    router.release(1, first)
    assert router.routes == {}
    assert trial_router(provider) is router


def test_the_global_provider_is_set_once_when_none_is(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(otel_trace, "_TRACER_PROVIDER", None)
    monkeypatch.setattr(otel_trace, "_TRACER_PROVIDER_SET_ONCE", Once())
    provider = sdk_tracer_provider(None)
    assert isinstance(provider, TracerProvider)
    assert otel_trace.get_tracer_provider() is provider
    assert sdk_tracer_provider(None) is provider
    result = run(ledger_dataset(), OtelAgent(make_async), ledger)
    assert [t.status for t in result.report.trials()] == ["passed"]


def test_a_global_provider_that_is_not_the_sdks_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(otel_trace, "get_tracer_provider", NoOpTracerProvider)
    with pytest.raises(UsageError, match="global tracer provider is a NoOpTracerProvider"):
        sdk_tracer_provider(None)


def test_a_cancelled_run_releases_its_trials_trace_ids(provider: TracerProvider) -> None:
    from trailcheck.run import run_async

    async def registered() -> None:
        while not trial_router(provider).routes:
            await asyncio.sleep(0.01)  # pacing: the router tells no one when a trial registers

    async def cancel_midway() -> None:
        agent = OtelAgent(make_hanging, tracer_provider=provider)
        task = asyncio.ensure_future(run_async(ledger_dataset(), agent, ledger))
        await wait_for_event(registered(), "the trial to register its trace id")
        task.cancel()
        result = await wait_for_event(task, "the cancelled run to return")
        assert result.report.partial

    asyncio.run(cancel_midway())
    assert trial_router(provider).routes == {}


def test_run_command_with_agent_kind_otel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(otel_trace, "_TRACER_PROVIDER", None)
    monkeypatch.setattr(otel_trace, "_TRACER_PROVIDER_SET_ONCE", Once())
    dataset = tmp_path / "ledger.yaml"
    dump_dataset(ledger_dataset(), dataset)
    command = [
        *("run", str(dataset), "--agent-kind", "otel"),
        *("--agent", "tests.run.otel_agents:make_sync", "--env", "tests.run.otel_agents:ledger"),
        *("-k", "2", "--out", str(tmp_path / "out"), "--gate-pass-hat-k", "1", "--gate-k", "2"),
    ]
    assert run_cli(command) == 0
    assert "gate passed: pass^2 >= 1" in capsys.readouterr().out
    report = load_report(tmp_path / "out" / "report.json")
    agent = report.manifest["agent"]
    assert isinstance(agent, dict)
    assert (agent["kind"], agent["reference"]) == ("otel", "tests.run.otel_agents:make_sync")
    assert run_cli([*command, "--model", "gpt-4o"]) == 2
    assert "--model works with --agent-kind native" in capsys.readouterr().err
    assert run_cli([*command[:3], "langgraph", *command[4:]]) == 2
    err = capsys.readouterr().err
    assert "'--agent-kind': Value error, 'langgraph' is not one of 'native', 'otel'" in err


def test_a_simulated_user_talks_to_an_otel_agent_and_its_turns_are_spans(
    provider: TracerProvider,
) -> None:
    user = SimulatedUser(
        instruction="Get 5 added to the ledger; say the amount only when asked.",
        known_facts={"amount": 5},
        stop_when=[StopCondition(tool_called="add_entry")],
    )
    dataset = ledger_dataset()
    case = dataset.cases[0].model_copy(update={"input": None, "user": user})

    def make(context: TelemetryContext) -> FrameworkAgent:
        def respond(message: str) -> str:
            if "5" not in message:
                return "How much should I add?"
            instrumented_turn(context.tracer_provider, context.tools, message)
            return ANSWER

        return respond

    simulator = ScriptedUser("Please add to my ledger.", [(r"How much", "Add {amount}.")])
    one = dataset.model_copy(update={"cases": [case]})
    result = run(one, OtelAgent(make, tracer_provider=provider), ledger, user_simulator=simulator)
    trial = result.report.cases[0].trials[0]
    assert trial.status == "passed", trial.reason
    [trace] = result.traces
    turns = [s for s in trace.spans if s.name == USER_TURN_SPAN]
    assert [s.attributes["trailcheck.user.message"] for s in turns] == [
        "Please add to my ledger.",
        "Add 5.",
    ]
    assert all(s.attributes["trailcheck.user.simulated"] is True for s in turns)
    assert isinstance(trace.input, list)
    assert [(m.name, m.text) for m in trace.input] == [
        ("simulated_user", "Please add to my ledger."),
        ("simulated_user", "Add 5."),
    ]
    assert trace.metadata["simulated_user"]["ending"] == "stop_when"
