"""ToolAgent: the tool-calling loop, recorded through the Recorder, with a scripted model."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from typing import Annotated, Any

import pytest
from pydantic import Field

from tests.waiting import forever, wait_for_event
from trailcheck.capture import Recorder, SeededIds
from trailcheck.environment import ToolError
from trailcheck.errors import UsageError
from trailcheck.models import (
    RAW_ARGUMENTS_KEY,
    Reply,
    ScriptedModel,
    ToolDeclaration,
    tool_call_reply,
)
from trailcheck.run.agent import TrialContext
from trailcheck.run.tool_agent import STOPPED_METADATA_KEY, ToolAgent
from trailcheck.trace import Message, MessageToolCall, Trace, Usage


class NotVerifiedError(ToolError):
    """The customer's identity is not verified."""


class Shop:
    def __init__(self) -> None:
        self.verified = False
        self.refunds: list[str] = []

    def lookup_order(
        self, order_id: Annotated[str, Field(description="The order's id")]
    ) -> dict[str, Any]:
        """Look up an order."""
        return {"order_id": order_id, "status": "delivered"}

    async def verify_identity(self, name: str) -> str:
        """Verify the customer."""
        await asyncio.sleep(0)
        self.verified = True
        return f"verified {name}"

    def issue_refund(self, order_id: str, amount: float = 0.0) -> dict[str, Any]:
        """Refund an order."""
        if not self.verified:
            raise NotVerifiedError("identity not verified")
        self.refunds.append(order_id)
        return {"refunded": order_id, "amount": amount}

    @property
    def tools(self) -> list[Callable[..., Any]]:
        return [self.lookup_order, self.verify_identity, self.issue_refund]


def run_turns(
    agent: ToolAgent, turns: Sequence[str], tools: Sequence[Callable[..., Any]]
) -> tuple[list[str], Trace]:
    recorder = Recorder(agent_name="shop-agent", ids=SeededIds(1))
    context = TrialContext(tools=recorder.wrap_tools(tools), recorder=recorder)

    async def conversation() -> list[str]:
        async with recorder:
            return [await agent.respond(turn, context) for turn in turns]

    answers = asyncio.run(conversation())
    return answers, recorder.trace


def tool_messages(messages: Sequence[Message]) -> list[tuple[str | None, Any]]:
    return [(m.tool_call_id, m.content) for m in messages if m.role == "tool"]


def test_tools_run_and_the_trace_has_their_spans_and_the_model_calls() -> None:
    shop = Shop()
    model = ScriptedModel(
        [
            Reply(
                tool_calls=[MessageToolCall(name="lookup_order", arguments={"order_id": "A-1"})],
                usage=Usage(input_tokens=30, output_tokens=4),
                model="scripted-v2",
            ),
            tool_call_reply("verify_identity", {"name": "Ada"}),
            tool_call_reply("issue_refund", {"order_id": "A-1", "amount": "12.5"}),
            Reply(
                text="Refunded A-1.",
                usage=Usage(input_tokens=50, output_tokens=6),
                finish_reason="stop",
            ),
        ]
    )
    agent = ToolAgent(model, system_prompt="You help shoppers.")

    (answer,), trace = run_turns(agent, ["Refund A-1 please"], shop.tools)

    assert answer == "Refunded A-1."
    assert shop.refunds == ["A-1"]
    calls = trace.tool_calls
    assert [(call.name, call.arguments) for call in calls] == [
        ("lookup_order", {"order_id": "A-1"}),
        ("verify_identity", {"name": "Ada"}),
        # The model's "12.5" was converted to the declared float before the call.
        ("issue_refund", {"order_id": "A-1", "amount": 12.5}),
    ]
    assert calls[2].result == {"refunded": "A-1", "amount": 12.5}
    llm_spans = [span for span in trace.spans if span.kind == "llm"]
    assert len(llm_spans) == 4
    first = llm_spans[0].llm
    assert first is not None
    assert first.model == "scripted-v2"  # the answering model
    assert first.usage == Usage(input_tokens=30, output_tokens=4)
    assert [m.role for m in first.input_messages or []] == ["system", "user"]
    last = llm_spans[-1].llm
    assert last is not None
    assert last.output_messages == [Message(role="assistant", content="Refunded A-1.")]
    assert llm_spans[-1].attributes["gen_ai.response.finish_reasons"] == ["stop"]
    # What the model saw: declarations of the tools, and each result keyed by its call id.
    assert [tool.name for tool in model.calls[0].tools] == [
        "lookup_order",
        "verify_identity",
        "issue_refund",
    ]
    assert (
        model.calls[0].tools[0].parameters["properties"]["order_id"]["description"]
        == "The order's id"
    )
    assert tool_messages(model.calls[3].messages) == [
        ("call_1", '{"order_id":"A-1","status":"delivered"}'),
        ("call_2", "verified Ada"),
        ("call_3", '{"refunded":"A-1","amount":12.5}'),
    ]
    assert STOPPED_METADATA_KEY not in trace.metadata


def test_a_tool_error_goes_back_to_the_model_and_the_loop_goes_on() -> None:
    shop = Shop()
    model = ScriptedModel(
        [tool_call_reply("issue_refund", {"order_id": "A-1"}), "I need to verify you first."]
    )

    (answer,), trace = run_turns(ToolAgent(model), ["Refund A-1"], shop.tools)

    assert answer == "I need to verify you first."
    assert tool_messages(model.calls[1].messages) == [
        (
            "call_1",
            json.dumps({"error": "NotVerifiedError: identity not verified"}, separators=(",", ":")),
        )
    ]
    (call,) = trace.tool_calls
    assert call.error == "NotVerifiedError: identity not verified"
    assert shop.refunds == []


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (
            MessageToolCall(id="c1", name="delete_everything", arguments={}),
            "UnknownTool: no tool is named 'delete_everything'"
            " (tools: lookup_order, verify_identity, issue_refund)",
        ),
        (
            MessageToolCall(id="c1", name="lookup_order", arguments={"order": "A-1"}),
            "InvalidArguments: order_id: Missing required argument;"
            " order: Unexpected keyword argument",
        ),
        (
            MessageToolCall(
                id="c1", name="lookup_order", arguments={RAW_ARGUMENTS_KEY: '{"order_id": '}
            ),
            'InvalidArguments: the arguments are not a JSON object: {"order_id": ',
        ),
    ],
)
def test_what_the_model_got_wrong_goes_back_as_an_error_and_no_tool_runs(
    call: MessageToolCall, error: str
) -> None:
    model = ScriptedModel([Reply(tool_calls=[call]), "Sorry."])

    (answer,), trace = run_turns(ToolAgent(model), ["Hi"], Shop().tools)

    assert answer == "Sorry."
    ((call_id, content),) = tool_messages(model.calls[1].messages)
    assert call_id == "c1"
    assert json.loads(content) == {"error": error}
    assert trace.tool_calls == []


def test_a_bug_in_a_tool_propagates_and_the_trace_records_it() -> None:
    def broken(order_id: str) -> str:
        """Always fails."""
        raise RuntimeError("database is gone")

    model = ScriptedModel([tool_call_reply("broken", {"order_id": "A-1"}), "never"])
    recorder = Recorder()
    context = TrialContext(tools=[recorder.tool(broken)], recorder=recorder)

    async def turn() -> None:
        async with recorder:
            await ToolAgent(model).respond("Hi", context)

    with pytest.raises(RuntimeError, match="database is gone"):
        asyncio.run(turn())
    (call,) = recorder.trace.tool_calls
    assert call.error is not None
    assert "database is gone" in call.error
    assert len(model.calls) == 1


def test_calls_of_one_reply_run_concurrently_and_answer_in_call_order() -> None:
    events: dict[str, asyncio.Event] = {}

    async def ping(name: str) -> str:
        """Waits for pong: deadlocks unless both run at once."""
        events["ping"].set()
        await wait_for_event(events["pong"].wait(), "pong to run alongside ping")
        return f"ping {name}"

    async def pong(name: str) -> str:
        """Waits for ping."""
        events["pong"].set()
        await wait_for_event(events["ping"].wait(), "ping to run alongside pong")
        return f"pong {name}"

    def reply(messages: Sequence[Message], tools: Sequence[ToolDeclaration]) -> Reply | str:
        if messages[-1].role == "user":
            events.update(ping=asyncio.Event(), pong=asyncio.Event())
            return Reply(
                tool_calls=[
                    MessageToolCall(id="p1", name="pong", arguments={"name": "a"}),
                    MessageToolCall(id="p2", name="ping", arguments={"name": "b"}),
                ]
            )
        return "both answered"

    model = ScriptedModel(reply)
    (answer,), trace = run_turns(ToolAgent(model), ["go"], [ping, pong])

    assert answer == "both answered"
    assert tool_messages(model.calls[1].messages) == [("p1", "pong a"), ("p2", "ping b")]
    assert sorted(call.name for call in trace.tool_calls) == ["ping", "pong"]


def test_a_failing_call_cancels_its_siblings() -> None:
    cancelled: list[str] = []

    async def slow() -> str:
        """Slow."""
        try:
            await forever()  # only the failing sibling's cancelling can end it
        except asyncio.CancelledError:
            cancelled.append("slow")
            raise
        return "late"

    async def crash() -> str:
        """Crash."""
        await asyncio.sleep(0)
        raise KeyError("bug")

    model = ScriptedModel(
        [
            Reply(
                tool_calls=[
                    MessageToolCall(id="1", name="slow"),
                    MessageToolCall(id="2", name="crash"),
                ]
            )
        ]
    )
    with pytest.raises(KeyError, match="bug"):
        run_turns(ToolAgent(model), ["go"], [slow, crash])
    assert cancelled == ["slow"]


def test_max_steps_stops_the_turn_with_a_message_and_metadata() -> None:
    def always_a_tool(messages: Sequence[Message], tools: Sequence[ToolDeclaration]) -> Reply:
        return tool_call_reply("lookup_order", {"order_id": "A-1"})

    model = ScriptedModel(always_a_tool)
    (answer,), trace = run_turns(ToolAgent(model, max_steps=3), ["loop"], Shop().tools)

    assert answer == "Stopped: no final answer after 3 model calls in this turn."
    assert len(model.calls) == 3
    assert len(trace.tool_calls) == 3
    assert trace.metadata[STOPPED_METADATA_KEY] == {
        "reason": "model_calls",
        "allowed": 3,
        "used": 3,
        "turn": 1,
    }


def test_history_is_kept_across_turns() -> None:
    shop = Shop()
    model = ScriptedModel(
        [
            tool_call_reply("lookup_order", {"order_id": "A-7"}),
            "A-7 was delivered.",
            "You're welcome.",
        ]
    )
    agent = ToolAgent(model, system_prompt="Be kind.")

    answers, trace = run_turns(agent, ["Where is A-7?", "Thanks!"], shop.tools)

    assert answers == ["A-7 was delivered.", "You're welcome."]
    second_turn = model.calls[2].messages
    assert [(m.role, m.text) for m in second_turn] == [
        ("system", "Be kind."),
        ("user", "Where is A-7?"),
        ("assistant", ""),
        ("tool", '{"order_id":"A-7","status":"delivered"}'),
        ("assistant", "A-7 was delivered."),
        ("user", "Thanks!"),
    ]
    assert agent.history[-1] == Message(role="assistant", content="You're welcome.")
    assert len([span for span in trace.spans if span.kind == "llm"]) == 3


def test_duplicate_tool_names_are_a_usage_error_before_any_model_call() -> None:
    shop = Shop()
    model = ScriptedModel(["never"])
    with pytest.raises(UsageError, match="two tools are named 'lookup_order'"):
        run_turns(ToolAgent(model), ["Hi"], [shop.lookup_order, Shop().lookup_order])
    assert model.calls == []


def test_each_model_call_takes_the_shared_rate_limiter_and_describe_pins_the_prompt() -> None:
    from trailcheck.rate_limit import RateLimiter

    limiter = RateLimiter(1000, burst=10)
    model = ScriptedModel([tool_call_reply("lookup_order", {"order_id": "A-1"}), "done"])
    agent = ToolAgent(model, system_prompt="Verify first.", max_steps=5)
    recorder = Recorder(agent_name="shop-agent", ids=SeededIds(1))
    tools = recorder.wrap_tools(Shop().tools)
    context = TrialContext(tools=tools, recorder=recorder, rate_limiter=limiter)

    async def turn() -> str:
        async with recorder:
            return await agent.respond("where is A-1?", context)

    assert asyncio.run(turn()) == "done"
    assert limiter.acquisitions == 2
    described = agent.describe()
    assert described["model"] == "scripted"
    assert described["max_steps"] == 5
    other = ToolAgent(model, system_prompt="Refund freely.").describe()
    assert described["system_prompt_sha256"] != other["system_prompt_sha256"]
