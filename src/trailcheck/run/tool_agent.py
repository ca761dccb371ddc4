"""The plain tool-calling loop as an :class:`~trailcheck.run.Agent`: a model, its tools, a history.

::

    agent = ToolAgent(OpenAIChatModel("gpt-4o-mini"), system_prompt="You are a shop assistant.")
    answer = await agent.respond("Refund order A-1", context)

Each :meth:`ToolAgent.respond` adds the user's message to the conversation (kept across turns)
and then loops: it calls the model with the conversation and the declarations of
``context.tools`` (see :mod:`trailcheck.models.declarations`), inside
``context.recorder.model(...)`` so each call is an llm span with its messages, usage and
answering model. A reply without tool calls ends the turn: its text is the answer. Otherwise
each tool call runs and its outcome goes back to the model as a ``tool`` message:

- the result, as JSON text (a text result as it is; values JSON does not know are converted as
  the Recorder converts them, see :mod:`trailcheck.capture.jsonable`);
- ``{"error": "<Type>: <message>"}`` for what the model can act on: a
  :class:`~trailcheck.environment.ToolError` (or subclass) or a pydantic ``ValidationError``
  raised by the tool, an unknown tool name (``UnknownTool``), and arguments that do not fit the
  tool's signature or are not a JSON object (``InvalidArguments``). The arguments are validated
  against the declared schema before the call (values converted as pydantic converts them), so
  a ``TypeError`` or any other exception from inside a tool is a bug: it propagates and fails
  the trial. An unknown tool or invalid arguments make no tool span: no tool ran.

The tool calls of one reply run concurrently (``asyncio`` tasks; a sync tool runs in the event
loop, so sync tools run one after another in the reply's order), and their results join the
conversation in the order of the calls. When one raises, the others are cancelled.

Before each model call the loop acquires ``context.rate_limiter`` when the run has one (every
trial shares it). ``describe()`` is what the run manifest pins: the model, its settings, a hash of
the system prompt and ``max_steps``.

``max_steps`` bounds the model calls of one turn: when it is spent without a final answer,
:meth:`respond` returns :data:`STOPPED_AT_MAX_STEPS` (formatted), does not raise, and sets the
run's metadata ``tool_agent.stopped`` to ``{"reason": "max_steps", "max_steps": N, "turn": T}``.
"""

from __future__ import annotations

import asyncio
import hashlib
import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson
from pydantic import ValidationError

from trailcheck.capture.jsonable import to_json_value
from trailcheck.environment import ToolError
from trailcheck.errors import UsageError
from trailcheck.models.chat import ChatModel, Reply, ToolDeclaration
from trailcheck.models.declarations import RAW_ARGUMENTS_KEY, ToolSchema, tool_schemas
from trailcheck.run.agent import TrialContext
from trailcheck.trace import Message, MessageToolCall

__all__ = ["STOPPED_AT_MAX_STEPS", "STOPPED_METADATA_KEY", "ToolAgent"]

STOPPED_AT_MAX_STEPS = "Stopped: no final answer after {max_steps} model calls in this turn."
STOPPED_METADATA_KEY = "tool_agent.stopped"
_FINISH_REASONS = "gen_ai.response.finish_reasons"


@dataclass(frozen=True, slots=True)
class _Toolbox:
    """The tools of a trial, by name, with their declarations; made once per tool list."""

    tools: tuple[Callable[..., Any], ...]
    by_name: Mapping[str, tuple[Callable[..., Any], ToolSchema]]
    declarations: list[ToolDeclaration]

    def same_tools(self, tools: Sequence[Callable[..., Any]]) -> bool:
        return len(tools) == len(self.tools) and all(
            mine is theirs for mine, theirs in zip(self.tools, tools, strict=True)
        )


class ToolAgent:
    """A model in a tool-calling loop; see the module docstring."""

    def __init__(
        self, model: ChatModel, *, system_prompt: str | None = None, max_steps: int = 20
    ) -> None:
        if max_steps < 1:
            raise UsageError(f"max_steps must be at least 1, not {max_steps}")
        self.model = model
        self.system_prompt = system_prompt
        self.max_steps = max_steps
        self._history: list[Message] = []
        if system_prompt is not None:
            self._history.append(Message(role="system", content=system_prompt))
        self._turns = 0
        self._toolbox: _Toolbox | None = None

    @property
    def history(self) -> list[Message]:
        """The conversation so far (a copy): system prompt, user turns, replies, tool results."""
        return list(self._history)

    async def respond(self, message: str, context: TrialContext) -> str:
        """Answer one user turn, calling tools as the model asks (see the module docstring)."""
        self._turns += 1
        self._history.append(Message(role="user", content=message))
        toolbox = self._toolbox_for(context.tools)
        for _ in range(self.max_steps):
            reply = await self._call_model(toolbox, context)
            self._history.append(reply.as_message())
            if not reply.tool_calls:
                return reply.text or ""
            self._history.extend(await _run_calls(reply.tool_calls, toolbox))
        context.recorder.set_metadata(
            STOPPED_METADATA_KEY,
            {"reason": "max_steps", "max_steps": self.max_steps, "turn": self._turns},
        )
        return STOPPED_AT_MAX_STEPS.format(max_steps=self.max_steps)

    def _toolbox_for(self, tools: Sequence[Callable[..., Any]]) -> _Toolbox:
        if self._toolbox is None or not self._toolbox.same_tools(tools):
            schemas = tool_schemas(tools)
            self._toolbox = _Toolbox(
                tools=tuple(tools),
                by_name={
                    schema.name: (fn, schema) for fn, schema in zip(tools, schemas, strict=True)
                },
                declarations=[schema.declaration for schema in schemas],
            )
        return self._toolbox

    def describe(self) -> dict[str, Any]:
        """What the run manifest pins about this agent: model, settings, prompt hash."""
        settings = getattr(self.model, "settings", None)
        prompt = self.system_prompt or ""
        return {
            "loop": "ToolAgent",
            "model": self.model.name,
            "model_settings": settings() if callable(settings) else None,
            "system_prompt_sha256": hashlib.sha256(prompt.encode()).hexdigest()[:16],
            "max_steps": self.max_steps,
        }

    async def _call_model(self, toolbox: _Toolbox, context: TrialContext) -> Reply:
        messages = list(self._history)
        if context.rate_limiter is not None:
            await context.rate_limiter.acquire()
        with context.recorder.model(model=self.model.name, input_messages=messages) as call:
            reply = await self.model.complete(messages, toolbox.declarations)
            call.record_reply([reply.as_message()], usage=reply.usage, response_model=reply.model)
            if reply.finish_reason is not None:
                call.set_attribute(_FINISH_REASONS, [reply.finish_reason])
        return reply


async def _run_calls(calls: Sequence[MessageToolCall], toolbox: _Toolbox) -> list[Message]:
    """The tool messages answering ``calls``, in their order; the calls run concurrently."""
    if len(calls) == 1:
        outcomes = [await _outcome(calls[0], toolbox)]
    else:
        tasks = [asyncio.ensure_future(_outcome(call, toolbox)) for call in calls]
        try:
            outcomes = list(await asyncio.gather(*tasks))
        except BaseException:  # a bug (or a cancellation): stop the siblings, then propagate
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
    return [
        Message(role="tool", tool_call_id=call.id, content=content)
        for call, content in zip(calls, outcomes, strict=True)
    ]


async def _outcome(call: MessageToolCall, toolbox: _Toolbox) -> str:
    """The content of the tool message for ``call``: its result, or the error the model made."""
    found = toolbox.by_name.get(call.name)
    if found is None:
        known = ", ".join(toolbox.by_name) or "none"
        return _error_content("UnknownTool", f"no tool is named {call.name!r} (tools: {known})")
    fn, schema = found
    raw = call.arguments.get(RAW_ARGUMENTS_KEY)
    if isinstance(raw, str) and len(call.arguments) == 1:
        return _error_content("InvalidArguments", f"the arguments are not a JSON object: {raw}")
    try:
        arguments = schema.validate(call.arguments)
    except ValidationError as error:
        return _error_content("InvalidArguments", _validation_summary(error))
    try:
        result = fn(**arguments)
        if inspect.isawaitable(result):
            result = await result
    except ToolError as error:
        return _error_content(type(error).__name__, str(error))
    except ValidationError as error:  # the tool validated its input itself
        return _error_content("ValidationError", _validation_summary(error))
    return _result_content(result)


def _result_content(result: Any) -> str:
    if isinstance(result, str):
        return result
    return orjson.dumps(to_json_value(result).value).decode()


def _error_content(kind: str, message: str) -> str:
    return orjson.dumps({"error": f"{kind}: {message}"}).decode()


def _validation_summary(error: ValidationError) -> str:
    """``order_id: Field required; extra: Unexpected keyword argument``, without pydantic's
    links: the model reads it."""
    problems = error.errors(include_url=False)
    return "; ".join(
        f"{'.'.join(str(part) for part in problem['loc']) or 'arguments'}: {problem['msg']}"
        for problem in problems
    )
