"""Budgets: a spent limit answers the user instead of raising, every invocation gets the whole
budget again, and the hard cap above it is the safety net."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest

from trailcheck.capture import Recorder, SeededIds
from trailcheck.errors import UsageError
from trailcheck.guard import Budget, BudgetCapError, BudgetStop
from trailcheck.models import Reply, ScriptedModel, ToolDeclaration, tool_call_reply
from trailcheck.run.agent import TrialContext
from trailcheck.run.tool_agent import STOPPED_METADATA_KEY, ToolAgent
from trailcheck.trace import Message, MessageToolCall, Trace, Usage


class Standings:
    def __init__(self) -> None:
        self.lookups = 0

    def leader(self, season: int) -> str:
        """The championship leader of a season."""
        self.lookups += 1
        return f"{season}: Verstappen"


def asks_for_a_tool_forever(messages: Sequence[Message], tools: Sequence[ToolDeclaration]) -> Reply:
    return tool_call_reply("leader", {"season": 2024})


def turns_with_call_counts(
    agent: ToolAgent, model: ScriptedModel, turns: Sequence[str], standings: Standings
) -> tuple[list[tuple[str, int]], list[Trace]]:
    """Each turn's answer with the model calls made so far, and each turn's trace."""
    recorder = Recorder(agent_name="pit-wall", ids=SeededIds(7))
    context = TrialContext(tools=recorder.wrap_tools([standings.leader]), recorder=recorder)

    async def session() -> list[tuple[str, int]]:
        answers: list[tuple[str, int]] = []
        for turn in turns:
            async with recorder:
                answers.append((await agent.respond(turn, context), len(model.calls)))
        return answers

    answers = asyncio.run(session())
    return answers, recorder.traces


def test_the_real_loop_stops_at_the_budget_with_its_message_and_the_next_turn_gets_it_again() -> (
    None
):
    model = ScriptedModel(asks_for_a_tool_forever)
    standings = Standings()
    agent = ToolAgent(model, budget=Budget(model_calls=3, hard_cap=5))

    answers, (first, second) = turns_with_call_counts(
        agent, model, ["Who leads?", "And now?"], standings
    )

    message = "Stopped: no final answer after 3 model calls in this turn."
    assert answers == [(message, 3), (message, 6)]
    assert standings.lookups == 6  # every asked-for tool call of both turns ran
    assert first.metadata[STOPPED_METADATA_KEY] == {
        "reason": "model_calls",
        "allowed": 3,
        "used": 3,
        "turn": 1,
    }
    assert second.metadata[STOPPED_METADATA_KEY]["turn"] == 2
    assert len([span for span in second.spans if span.kind == "llm"]) == 3
    # The second turn carried on the same conversation: its first call saw the first turn.
    assert [m.text for m in model.calls[3].messages if m.role == "user"] == [
        "Who leads?",
        "And now?",
    ]


def test_a_token_budget_stops_before_the_call_after_the_one_that_crossed_it() -> None:
    def costly(messages: Sequence[Message], tools: Sequence[ToolDeclaration]) -> Reply:
        reply = asks_for_a_tool_forever(messages, tools)
        usage = Usage(input_tokens=30, output_tokens=10, cost_usd=0.002)
        return reply.model_copy(update={"usage": usage})

    model = ScriptedModel(costly)
    agent = ToolAgent(model, budget=Budget(model_calls=10, tokens=100))

    answers, (trace,) = turns_with_call_counts(agent, model, ["Who leads?"], Standings())

    # 40 tokens a call: 40, 80, 120; the fourth call is not made.
    assert answers == [
        ("Stopped: no final answer within this turn's budget of 100 tokens (120 used).", 3)
    ]
    assert trace.metadata[STOPPED_METADATA_KEY]["reason"] == "tokens"


def test_a_cost_budget_stops_the_turn() -> None:
    def costly(messages: Sequence[Message], tools: Sequence[ToolDeclaration]) -> Reply:
        reply = asks_for_a_tool_forever(messages, tools)
        return reply.model_copy(update={"usage": Usage(cost_usd=0.004)})

    model = ScriptedModel(costly)
    agent = ToolAgent(model, budget=Budget(model_calls=10, cost_usd=0.01))

    answers, _ = turns_with_call_counts(agent, model, ["Who leads?"], Standings())

    # $0.004 a call: 0.004, 0.008, 0.012; the fourth call is not made.
    assert answers == [
        ("Stopped: no final answer within this turn's budget of $0.0100 ($0.0120 spent).", 3)
    ]


def test_a_reply_asking_for_more_tool_calls_than_are_left_runs_none_of_them() -> None:
    def two_at_once(messages: Sequence[Message], tools: Sequence[ToolDeclaration]) -> Reply:
        return Reply(
            tool_calls=[
                MessageToolCall(name="leader", arguments={"season": 2023}),
                MessageToolCall(name="leader", arguments={"season": 2024}),
            ]
        )

    model = ScriptedModel(two_at_once)
    standings = Standings()
    agent = ToolAgent(model, budget=Budget(model_calls=10, tool_calls=3))

    answers, (trace,) = turns_with_call_counts(agent, model, ["Both seasons?"], standings)

    assert answers == [
        (
            "Stopped: no final answer within this turn's budget of 3 tool calls"
            " (2 made, 2 more asked for).",
            2,
        )
    ]
    assert standings.lookups == 2
    assert len(trace.tool_calls) == 2


@pytest.mark.parametrize("hard_cap", [3, 2])
def test_a_budget_at_or_above_its_hard_cap_is_refused(hard_cap: int) -> None:
    with pytest.raises(UsageError, match=f"at or above its hard cap of {hard_cap}"):
        Budget(model_calls=3, hard_cap=hard_cap)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"model_calls": 0}, "at least 1 model call, not 0"),
        ({"tool_calls": 0}, "tool_calls is at least 1 when set, not 0"),
        ({"tokens": -5}, "tokens is at least 1 when set, not -5"),
        ({"cost_usd": 0.0}, "cost_usd is above 0 when set, not 0.0"),
    ],
)
def test_limits_that_allow_nothing_are_refused(settings: dict[str, Any], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        Budget(**settings)


def test_the_default_cap_is_above_the_budget_and_describe_pins_it() -> None:
    assert Budget(model_calls=3).cap == 13
    assert Budget(model_calls=30).cap == 60
    assert Budget(model_calls=3, hard_cap=4).describe() == {
        "model_calls": 3,
        "hard_cap": 4,
        "tool_calls": None,
        "tokens": None,
        "cost_usd": None,
    }


def test_a_loop_that_ignores_the_stop_raises_at_the_hard_cap() -> None:
    meter = Budget(model_calls=2, hard_cap=4).meter()
    meter.begin()
    stops: list[BudgetStop | None] = []
    for _ in range(4):
        stops.append(meter.before_model_call())
        meter.charge_model_call()

    assert stops[:2] == [None, None]
    assert stops[2] == BudgetStop("model_calls", allowed=2, used=2, invocation=1)
    with pytest.raises(BudgetCapError, match="4 model calls in invocation 1 reached the hard cap"):
        meter.before_model_call()
    with pytest.raises(BudgetCapError):
        meter.charge_model_call()


def test_each_invocation_starts_from_zero() -> None:
    meter = Budget(model_calls=1, tokens=50).meter()
    meter.begin()
    meter.charge_model_call(Usage(input_tokens=60))
    assert meter.before_model_call() is not None

    meter.begin()

    assert (meter.invocations, meter.model_calls, meter.tokens) == (2, 0, 0)
    assert meter.before_model_call() is None


def test_tool_agent_takes_max_steps_or_a_budget_not_both() -> None:
    with pytest.raises(UsageError, match="pass max_steps or budget, not both"):
        ToolAgent(ScriptedModel([]), max_steps=3, budget=Budget(model_calls=3))
    agent = ToolAgent(ScriptedModel([]), budget=Budget(model_calls=4, hard_cap=9))
    assert agent.max_steps == 4
    assert agent.describe()["budget"]["hard_cap"] == 9
