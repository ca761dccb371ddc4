"""ScriptedModel: replies in order or from a function, calls kept, deterministic call ids."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from trailcheck.errors import UsageError
from trailcheck.models import Reply, ScriptedModel, ToolDeclaration, tool_call_reply
from trailcheck.trace import Message, MessageToolCall, Usage

HELLO = [Message(role="user", content="Hello")]
TOOL = ToolDeclaration(name="lookup_order")


def test_replies_come_in_order_and_a_text_is_a_text_reply() -> None:
    model = ScriptedModel(
        [
            tool_call_reply("lookup_order", {"order_id": "A-1"}),
            Reply(text="Done", usage=Usage(input_tokens=3)),
            "Bye",
        ]
    )

    async def three() -> list[Reply]:
        return [await model.complete(HELLO, [TOOL]) for _ in range(3)]

    first, second, third = asyncio.run(three())
    assert first.tool_calls == [
        MessageToolCall(id="call_1", name="lookup_order", arguments={"order_id": "A-1"})
    ]
    assert first.finish_reason == "tool_calls"
    assert second == Reply(text="Done", usage=Usage(input_tokens=3))
    assert third == Reply(text="Bye", finish_reason="stop")
    assert model.name == "scripted"
    assert [call.tools for call in model.calls] == [[TOOL]] * 3
    assert model.calls[0].messages == HELLO


def test_running_out_of_replies_says_how_many_there_were() -> None:
    model = ScriptedModel(["one", "two"], name="support-bot")

    async def three() -> None:
        for _ in range(3):
            await model.complete(HELLO)

    with pytest.raises(
        UsageError, match=r"'support-bot' was called 3 times, but its script has 2 replies"
    ):
        asyncio.run(three())
    assert len(model.calls) == 3


def test_call_ids_count_through_the_conversation_and_given_ids_stay() -> None:
    both = Reply(
        tool_calls=[
            MessageToolCall(name="a"),
            MessageToolCall(id="mine", name="b"),
            MessageToolCall(name="c"),
        ]
    )
    model = ScriptedModel([tool_call_reply("x", {}), both, tool_call_reply("y", call_id="given")])

    async def run() -> list[Reply]:
        return [await model.complete(HELLO) for _ in range(3)]

    replies = asyncio.run(run())
    assert [[call.id for call in reply.tool_calls] for reply in replies] == [
        ["call_1"],
        ["call_2", "mine", "call_3"],
        ["given"],
    ]


def test_a_function_script_sees_the_conversation_and_tools_sync_or_async() -> None:
    def echo(messages: Sequence[Message], tools: Sequence[ToolDeclaration]) -> str:
        return f"{messages[-1].text} ({len(tools)} tools)"

    async def echo_async(messages: Sequence[Message], tools: Sequence[ToolDeclaration]) -> Reply:
        await asyncio.sleep(0)
        return Reply(text=messages[-1].text.upper())

    assert asyncio.run(ScriptedModel(echo).complete(HELLO, [TOOL])).text == "Hello (1 tools)"
    assert asyncio.run(ScriptedModel(echo_async).complete(HELLO)).text == "HELLO"


def test_a_script_of_the_wrong_kind_is_a_usage_error() -> None:
    model = ScriptedModel(lambda messages, tools: 42)  # type: ignore[arg-type, return-value]
    with pytest.raises(UsageError, match="a Reply or a text, not int"):
        asyncio.run(model.complete(HELLO))


def test_delay_sleeps_before_each_reply(monkeypatch: pytest.MonkeyPatch) -> None:
    slept: list[float] = []
    real_sleep = asyncio.sleep

    async def fake_sleep(seconds: float) -> None:
        slept.append(seconds)
        await real_sleep(0)

    monkeypatch.setattr("trailcheck.models.scripted.asyncio.sleep", fake_sleep)
    model = ScriptedModel(["a", "b"], delay=0.25)

    async def two() -> None:
        await model.complete(HELLO)
        await model.complete(HELLO)

    asyncio.run(two())
    assert slept == [0.25, 0.25]
