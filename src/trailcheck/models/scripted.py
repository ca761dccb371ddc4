"""A model that answers from a script: the fake for tests, demos and the runner's benchmarks.

::

    model = ScriptedModel([
        tool_call_reply("lookup_order", {"order_id": "A-1"}),
        "Your order A-1 was delivered.",
    ])

The script is either a list of replies, given out in order (a text stands for a text reply), or
a function of the conversation and the tools, sync or async, that returns the next reply. Every
call is kept in :attr:`ScriptedModel.calls` so a test can check what the agent sent.

A tool call without an id gets the next of ``call_1``, ``call_2``, ... counted per model, so the
ids of a scripted conversation are the same on every run and unique within it.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

from trailcheck.errors import UsageError
from trailcheck.models.chat import Reply, ToolDeclaration
from trailcheck.trace import Message, MessageToolCall

__all__ = ["ScriptedCall", "ScriptedModel", "tool_call_reply"]

ScriptedReply: TypeAlias = Reply | str
ReplyFunction: TypeAlias = Callable[
    [Sequence[Message], Sequence[ToolDeclaration]], ScriptedReply | Awaitable[ScriptedReply]
]


@dataclass(frozen=True, slots=True)
class ScriptedCall:
    """What one call of a :class:`ScriptedModel` was given."""

    messages: list[Message]
    tools: list[ToolDeclaration]
    output_schema: dict[str, Any] | None


class ScriptedModel:
    """A :class:`~trailcheck.models.ChatModel` whose replies come from ``script``.

    ``delay`` seconds are slept (``asyncio.sleep``) before each reply, to stand in for a model's
    latency. A list script that runs out raises :class:`UsageError` saying how many replies it
    had: the agent asked more of the model than the test expected.
    """

    def __init__(
        self,
        script: Sequence[ScriptedReply] | ReplyFunction,
        *,
        name: str = "scripted",
        delay: float = 0.0,
    ) -> None:
        self._name = name
        self._delay = delay
        self._function: ReplyFunction | None = script if callable(script) else None
        self._replies: list[ScriptedReply] = [] if callable(script) else list(script)
        self._next_call_id = 1
        self.calls: list[ScriptedCall] = []

    @property
    def name(self) -> str:
        return self._name

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolDeclaration] = (),
        output_schema: dict[str, Any] | None = None,
    ) -> Reply:
        call_number = len(self.calls) + 1
        self.calls.append(ScriptedCall(list(messages), list(tools), output_schema))
        if self._delay > 0:
            await asyncio.sleep(self._delay)
        if self._function is not None:
            answer = self._function(messages, tools)
            reply = await answer if inspect.isawaitable(answer) else answer
        elif call_number <= len(self._replies):
            reply = self._replies[call_number - 1]
        else:
            raise UsageError(
                f"ScriptedModel {self._name!r} was called {call_number} times, but its script"
                f" has {len(self._replies)} replies"
            )
        return self._with_call_ids(_as_reply(reply))

    def _with_call_ids(self, reply: Reply) -> Reply:
        if all(call.id is not None for call in reply.tool_calls):
            return reply
        calls: list[MessageToolCall] = []
        for call in reply.tool_calls:
            if call.id is None:
                call = call.model_copy(update={"id": f"call_{self._next_call_id}"})
                self._next_call_id += 1
            calls.append(call)
        return reply.model_copy(update={"tool_calls": calls})


def tool_call_reply(
    name: str,
    arguments: dict[str, Any] | None = None,
    *,
    call_id: str | None = None,
    text: str | None = None,
) -> Reply:
    """A reply that calls one tool. Without ``call_id``, a :class:`ScriptedModel` gives it the
    next ``call_N`` id of its conversation."""
    call = MessageToolCall(id=call_id, name=name, arguments=dict(arguments or {}))
    return Reply(text=text, tool_calls=[call], finish_reason="tool_calls")


def _as_reply(reply: object) -> Reply:
    if isinstance(reply, Reply):
        return reply
    if isinstance(reply, str):
        return Reply(text=reply, finish_reason="stop")
    raise UsageError(f"a scripted reply is a Reply or a text, not {type(reply).__name__}")
