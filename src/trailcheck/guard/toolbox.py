"""The tools of a session, and the answer to each tool call a model asks for.

::

    toolbox = Toolbox.of(shop.tools)
    contents = await answer_calls(reply.tool_calls, toolbox, error_policy=ErrorPolicy(),
                                  guard=PolicyGuard(rules), conversation=history, spans=recorder)

Each call goes through the same steps, and its answer is the content of a ``tool`` message:

1. the tool is found by name (else ``UnknownTool``);
2. the arguments are validated against the tool's contract (:meth:`Tool.validate`: the
   schema, then the argument rules; else ``InvalidArguments``);
3. the policy guard, when there is one, checks the call against its rules (else
   ``PolicyBlocked``, and a guard span);
4. the tool runs; its result is rendered as text (a text as it is, anything else as JSON);
5. an error from any step goes to the :class:`ErrorPolicy`: a recoverable one becomes
   ``{"error": "<Type>: <message>"}``, anything else propagates.

The calls of one reply run concurrently (``asyncio`` tasks; a sync tool runs in the event loop,
so sync tools run one after another in the reply's order), and the answers come back in the
order of the calls. When one propagates an error, the others are cancelled.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson
from pydantic_core import to_jsonable_python

from trailcheck.guard.enforce import GuardSpans, PolicyGuard
from trailcheck.guard.error_policy import ErrorPolicy
from trailcheck.guard.tools import Tool, UnknownToolError, as_tools
from trailcheck.trace import Message, MessageToolCall
from trailcheck.trace.answering import answering

__all__ = ["CallSettings", "Toolbox", "answer_call", "answer_calls", "render_result"]


def render_result(result: Any) -> str:
    """A tool's result as the text of its tool message: a text as it is, else JSON (values
    JSON does not know by their ``repr``)."""
    if isinstance(result, str):
        return result
    return orjson.dumps(to_jsonable_python(result, fallback=repr)).decode()


@dataclass(frozen=True, slots=True)
class Toolbox:
    """Tools by name, made once per list of functions (see :meth:`same_tools`)."""

    functions: tuple[Callable[..., Any], ...]
    by_name: Mapping[str, Tool]

    @classmethod
    def of(cls, functions: Sequence[Callable[..., Any]]) -> Toolbox:
        """The tools of ``functions``; two with one name are a UsageError."""
        tools = as_tools(functions)
        return cls(tuple(functions), {tool.name: tool for tool in tools})

    @property
    def tools(self) -> list[Tool]:
        return list(self.by_name.values())

    def same_tools(self, functions: Sequence[Callable[..., Any]]) -> bool:
        """Whether ``functions`` are the very objects this toolbox was made of."""
        return len(functions) == len(self.functions) and all(
            mine is theirs for mine, theirs in zip(self.functions, functions, strict=True)
        )

    def tool(self, name: str) -> Tool:
        """The tool named ``name``, or an :class:`UnknownToolError` listing the known ones."""
        found = self.by_name.get(name)
        if found is None:
            known = ", ".join(self.by_name) or "none"
            raise UnknownToolError(f"no tool is named {name!r} (tools: {known})")
        return found


@dataclass(frozen=True, slots=True)
class CallSettings:
    """How calls are answered: the error policy, the policy guard (optional), where guard
    spans go, and how results become text."""

    error_policy: ErrorPolicy = field(default_factory=ErrorPolicy)
    guard: PolicyGuard | None = None
    spans: GuardSpans | None = None
    render: Callable[[Any], str] = render_result


async def answer_call(
    call: MessageToolCall,
    toolbox: Toolbox,
    settings: CallSettings,
    conversation: Sequence[Message] = (),
) -> str:
    """The content of the tool message for ``call`` (see the module docstring);
    ``conversation`` is what preceded the reply that asked for it."""
    try:
        tool = toolbox.tool(call.name)
        arguments = tool.validate(call.arguments)
        if settings.guard is None:
            result = await _answer(call, tool, arguments)
        else:
            result = await settings.guard.run(
                tool.name,
                arguments,
                lambda: _answer(call, tool, arguments),
                call_id=call.id,
                conversation=conversation,
                spans=settings.spans,
            )
    except Exception as error:  # noqa: BLE001 -- the error policy answers or re-raises it
        return settings.error_policy.tool_result(error)
    return settings.render(result)


async def answer_calls(
    calls: Sequence[MessageToolCall],
    toolbox: Toolbox,
    settings: CallSettings,
    conversation: Sequence[Message] = (),
) -> list[str]:
    """:func:`answer_call` for each call, run concurrently, in the order of ``calls``."""
    if len(calls) == 1:
        return [await answer_call(calls[0], toolbox, settings, conversation)]
    tasks = [
        asyncio.ensure_future(answer_call(call, toolbox, settings, conversation)) for call in calls
    ]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:  # a bug (or a cancellation): stop the siblings, then propagate
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


async def _answer(call: MessageToolCall, tool: Tool, arguments: dict[str, Any]) -> Any:
    # The tool span this call starts records the model's call id: one call, in the messages
    # and in the spans.
    with answering(call.id):
        return await tool.call(arguments)
