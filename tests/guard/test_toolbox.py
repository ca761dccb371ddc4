"""Answering a reply's tool calls: concurrently, through a shared rate limiter, in call order,
and through the error policy, inside the real ToolAgent loop."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from typing import Annotated, Any

import pytest
from pydantic import Field

from tests.waiting import wait_for_event
from trailcheck.capture import Recorder, SeededIds
from trailcheck.environment import ToolError
from trailcheck.guard import (
    CallSettings,
    Toolbox,
    UnknownToolError,
    answer_calls,
    rate_limited,
    render_result,
    requires_exactly_one,
)
from trailcheck.models import Reply, ScriptedModel, ToolDeclaration, tool_call_reply
from trailcheck.rate_limit import RateLimiter
from trailcheck.run.agent import TrialContext
from trailcheck.run.tool_agent import ToolAgent
from trailcheck.trace import Message, MessageToolCall, Trace


class CountingLimiter(RateLimiter):
    """A rate limiter that counts the acquisitions it was asked for."""

    def __init__(self) -> None:
        super().__init__(rate=1000, burst=10)
        self.asked = 0

    async def acquire(self) -> None:
        self.asked += 1
        await super().acquire()


def respond(
    agent: ToolAgent, message: str, tools: Sequence[Callable[..., Any]]
) -> tuple[str, Trace]:
    recorder = Recorder(agent_name="pit-wall", ids=SeededIds(3))
    context = TrialContext(tools=recorder.wrap_tools(tools), recorder=recorder)

    async def turn() -> str:
        async with recorder:
            return await agent.respond(message, context)

    return asyncio.run(turn()), recorder.trace


def tool_results(messages: Sequence[Message]) -> list[tuple[str | None, str]]:
    return [(m.tool_call_id, m.text) for m in messages if m.role == "tool"]


def test_three_async_tools_of_one_reply_run_concurrently_through_one_shared_limiter() -> None:
    limiter = CountingLimiter()
    started: list[str] = []
    all_started: list[asyncio.Barrier] = []

    async def standings(season: int) -> str:
        """Driver standings."""
        started.append("standings")
        # Each tool holds until all three started: a serial run hangs here until the guard.
        await wait_for_event(all_started[0].wait(), "all three tools to start together")
        return f"standings {season}"

    async def schedule(season: int) -> str:
        """The race calendar."""
        started.append("schedule")
        await wait_for_event(all_started[0].wait(), "all three tools to start together")
        return f"schedule {season}"

    async def circuits(season: int) -> str:
        """The circuits."""
        started.append("circuits")
        await wait_for_event(all_started[0].wait(), "all three tools to start together")
        return f"circuits {season}"

    def script(messages: Sequence[Message], tools: Sequence[ToolDeclaration]) -> Reply | str:
        if messages[-1].role == "user":
            all_started.append(asyncio.Barrier(3))
            return Reply(
                tool_calls=[
                    MessageToolCall(id=f"c{n}", name=name, arguments={"season": 2024})
                    for n, name in enumerate(("standings", "schedule", "circuits"), start=1)
                ]
            )
        return "; ".join(m.text for m in messages if m.role == "tool")

    model = ScriptedModel(script)
    tools = [rate_limited(fn, limiter) for fn in (standings, schedule, circuits)]

    answer, trace = respond(ToolAgent(model), "What is on in 2024?", tools)

    assert answer == "standings 2024; schedule 2024; circuits 2024"  # in the order of the calls
    assert tool_results(model.calls[1].messages) == [
        ("c1", "standings 2024"),
        ("c2", "schedule 2024"),
        ("c3", "circuits 2024"),
    ]
    assert sorted(started) == ["circuits", "schedule", "standings"]
    assert limiter.asked == 3
    assert limiter.acquisitions == 3
    assert len(trace.tool_calls) == 3


class Calendar:
    """Tools on a class, as a demo writes them: the data comes in through the constructor."""

    def __init__(self, rounds: dict[int, int]) -> None:
        self.rounds = rounds
        self.asked: list[tuple[int, int | None, str | None]] = []

    @requires_exactly_one("round", "circuit_id")
    def race(
        self,
        season: Annotated[int, Field(ge=1950, description="The season.")],
        round: int | None = None,
        circuit_id: str | None = None,
    ) -> dict[str, Any]:
        """One race of a season, by round or by circuit."""
        self.asked.append((season, round, circuit_id))
        last = self.rounds[season]  # a KeyError here is a bug in the tool
        if round is not None and round > last:
            raise ToolError(f"{season} has {last} rounds, not {round}")
        return {"season": season, "round": round or last, "winner": "Norris"}

    @property
    def tools(self) -> list[Callable[..., Any]]:
        return [self.race]


def corrects_itself(messages: Sequence[Message], tools: Sequence[ToolDeclaration]) -> Reply | str:
    """Asks for round 30, then for the last round the error names, then answers."""
    last = messages[-1]
    if last.role == "user":
        return tool_call_reply("race", {"season": 2024, "round": 30})
    content = json.loads(last.text)
    if "error" in content:
        rounds = int(content["error"].split(" has ")[1].split()[0])
        return tool_call_reply("race", {"season": 2024, "round": rounds})
    return f"Round {content['round']} was won by {content['winner']}."


def test_a_recoverable_error_goes_back_to_the_model_which_corrects_itself() -> None:
    calendar = Calendar({2024: 24})
    model = ScriptedModel(corrects_itself)

    answer, trace = respond(ToolAgent(model), "Who won the last race?", calendar.tools)

    assert answer == "Round 24 was won by Norris."
    assert tool_results(model.calls[2].messages) == [
        ("call_1", '{"error":"ToolError: 2024 has 24 rounds, not 30"}'),
        ("call_2", '{"season":2024,"round":24,"winner":"Norris"}'),
    ]
    assert calendar.asked == [(2024, 30, None), (2024, 24, None)]
    assert [call.error for call in trace.tool_calls] == [
        "ToolError: 2024 has 24 rounds, not 30",
        None,
    ]


def test_a_contract_violation_goes_back_to_the_model_and_the_tool_does_not_run() -> None:
    calendar = Calendar({2024: 24})
    model = ScriptedModel(
        [
            tool_call_reply("race", {"season": 2024}),
            tool_call_reply("race", {"season": 2024, "circuit_id": "monza"}),
            "Norris won at Monza.",
        ]
    )

    answer, trace = respond(ToolAgent(model), "Who won at Monza?", calendar.tools)

    assert answer == "Norris won at Monza."
    assert tool_results(model.calls[1].messages) == [
        (
            "call_1",
            '{"error":"InvalidArguments: provide exactly one of round or circuit_id'
            ' (got none of them)"}',
        )
    ]
    assert calendar.asked == [(2024, None, "monza")]
    assert len(trace.tool_calls) == 1  # the refused call made no tool span
    assert "provide exactly one of round or circuit_id" in (
        model.calls[0].tools[0].description or ""
    )


def test_a_bug_in_a_tool_fails_the_turn() -> None:
    calendar = Calendar({2024: 24})
    model = ScriptedModel([tool_call_reply("race", {"season": 1999, "round": 1}), "never"])

    with pytest.raises(KeyError, match="1999"):
        respond(ToolAgent(model), "Who won in 1999?", calendar.tools)
    assert len(model.calls) == 1


def test_an_unknown_tool_lists_the_known_ones() -> None:
    toolbox = Toolbox.of(Calendar({}).tools)

    with pytest.raises(UnknownToolError, match=r"no tool is named 'weather' \(tools: race\)"):
        toolbox.tool("weather")


def test_sync_tools_of_one_reply_run_in_the_order_of_the_calls() -> None:
    order: list[int] = []

    def lap(number: int) -> int:
        """A lap time."""
        order.append(number)
        return number * 90

    calls = [MessageToolCall(id=str(n), name="lap", arguments={"number": n}) for n in (3, 1, 2)]

    contents = asyncio.run(answer_calls(calls, Toolbox.of([lap]), CallSettings()))

    assert contents == ["270", "90", "180"]
    assert order == [3, 1, 2]


def test_a_toolbox_knows_whether_it_was_made_of_the_same_functions() -> None:
    calendar = Calendar({})
    tools = calendar.tools
    toolbox = Toolbox.of(tools)

    assert toolbox.same_tools(tools)
    assert not toolbox.same_tools(Calendar({}).tools)
    assert [tool.name for tool in toolbox.tools] == ["race"]


def test_results_are_text_as_they_are_and_anything_else_as_json() -> None:
    class Opaque:
        def __repr__(self) -> str:
            return "<opaque>"

    assert render_result("P1 Norris") == "P1 Norris"
    assert render_result({"points": 25, "fastest": [1, 2]}) == '{"points":25,"fastest":[1,2]}'
    assert render_result({"car": Opaque()}) == '{"car":"<opaque>"}'
