"""The plain tool-calling loop as an :class:`~trailcheck.run.Agent`: a model, its tools, a history.

::

    agent = ToolAgent(OpenAIChatModel("gpt-4o-mini"), system_prompt="You are a shop assistant.")
    answer = await agent.respond("Refund order A-1", context)

Each :meth:`ToolAgent.respond` adds the user's message to the conversation (kept across turns)
and then loops: it calls the model with the conversation and the declarations of
``context.tools`` (see :mod:`trailcheck.models.declarations`), inside
``context.recorder.model(...)`` so each call is an llm span with its messages, usage and
answering model. A reply without tool calls ends the turn: its text is the answer. Otherwise
the reply's tool calls are answered by :mod:`trailcheck.guard.toolbox` (they run concurrently,
and their results join the conversation in the order of the calls): each is validated against
its tool's contract, checked against the ``policies`` (a blocked call does not run and leaves
a guard span), run, and its outcome goes back to the model as a ``tool`` message: the result
as JSON text (a text result as it is; values JSON does not know are converted as the Recorder
converts them, see :mod:`trailcheck.capture.jsonable`), or ``{"error": "<Type>: <message>"}``
for what the ``error_policy`` calls recoverable (see :mod:`trailcheck.guard.error_policy`).
Any other exception from a tool is a bug: it propagates and fails the trial. An unknown tool,
invalid arguments and a blocked call make no tool span: no tool ran.

Before each model call the loop acquires ``context.rate_limiter`` when the run has one (every
trial shares it). ``describe()`` is what the run manifest pins: the model, its settings, a hash of
the system prompt, ``max_steps``, the budget and the policies.

The ``budget`` (:class:`~trailcheck.guard.Budget`; ``max_steps`` is its ``model_calls``) holds
for each turn: when a limit is spent without a final answer, :meth:`respond` returns the
budget's message for the user (:data:`STOPPED_AT_MAX_STEPS` for model calls), does not raise,
keeps it in the history as the turn's answer (tool calls it stopped before running are
answered ``{"error": "not run: ..."}``, so the conversation stays one a chat API accepts),
and sets the run's metadata ``tool_agent.stopped`` to the stop's
``{"reason", "allowed", "used", "turn"}``. The next turn starts with the whole budget again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import orjson

from trailcheck.capture.jsonable import to_json_value
from trailcheck.errors import UsageError
from trailcheck.guard import (
    Budget,
    BudgetStop,
    CallSettings,
    ErrorPolicy,
    PolicyGuard,
    Toolbox,
    answer_calls,
    error_content,
)
from trailcheck.models.chat import ChatModel, Reply, ToolDeclaration
from trailcheck.models.declarations import declaration_of
from trailcheck.policy import PolicySpec
from trailcheck.run.agent import TrialContext
from trailcheck.trace import Message

__all__ = ["STOPPED_AT_MAX_STEPS", "STOPPED_METADATA_KEY", "ToolAgent"]

STOPPED_AT_MAX_STEPS = "Stopped: no final answer after {max_steps} model calls in this turn."
STOPPED_METADATA_KEY = "tool_agent.stopped"
_FINISH_REASONS = "gen_ai.response.finish_reasons"
_DEFAULT_MAX_STEPS = 20
_NOT_RUN = error_content("not run: this turn's budget is spent")


class ToolAgent:
    """A model in a tool-calling loop; see the module docstring.

    ``max_steps`` or ``budget`` (not both) limit each turn; ``policies`` are enforced on every
    call of the session; ``error_policy`` says which tool errors go back to the model."""

    def __init__(
        self,
        model: ChatModel,
        *,
        system_prompt: str | None = None,
        max_steps: int | None = None,
        budget: Budget | None = None,
        policies: Sequence[PolicySpec | Mapping[str, Any]] = (),
        error_policy: ErrorPolicy | None = None,
    ) -> None:
        if budget is not None and max_steps is not None:
            raise UsageError(
                "pass max_steps or budget, not both: max_steps is a budget's model_calls"
            )
        if budget is None:
            steps = _DEFAULT_MAX_STEPS if max_steps is None else max_steps
            if steps < 1:
                raise UsageError(f"max_steps must be at least 1, not {steps}")
            budget = Budget(model_calls=steps)
        self.model = model
        self.system_prompt = system_prompt
        self.budget = budget
        self.guard = PolicyGuard(policies) if policies else None
        self.error_policy = error_policy or ErrorPolicy()
        self._meter = budget.meter()
        self._history: list[Message] = []
        if system_prompt is not None:
            self._history.append(Message(role="system", content=system_prompt))
        self._toolbox: Toolbox | None = None
        self._declarations: list[ToolDeclaration] = []

    @property
    def max_steps(self) -> int:
        """The model calls a turn may make: the budget's ``model_calls``."""
        return self.budget.model_calls

    @property
    def history(self) -> list[Message]:
        """The conversation so far (a copy): system prompt, user turns, replies, tool results."""
        return list(self._history)

    async def respond(self, message: str, context: TrialContext) -> str:
        """Answer one user turn, calling tools as the model asks (see the module docstring)."""
        self._meter.begin()
        self._history.append(Message(role="user", content=message))
        toolbox = self._toolbox_for(context.tools)
        settings = CallSettings(
            error_policy=self.error_policy,
            guard=self.guard,
            spans=context.recorder,
            render=_result_content,
        )
        while (stop := self._meter.before_model_call()) is None:
            reply, said = await self._call_model(context)
            self._history.append(said)
            if not reply.tool_calls:
                return reply.text or ""
            stop = self._meter.before_tool_calls(len(reply.tool_calls))
            if stop is not None:
                self._history.extend(
                    Message(role="tool", tool_call_id=call.id, content=_NOT_RUN)
                    for call in reply.tool_calls
                )
                break
            conversation = self._history[:-1]  # what preceded the reply that asked
            contents = await answer_calls(reply.tool_calls, toolbox, settings, conversation)
            self._history.extend(
                Message(role="tool", tool_call_id=call.id, content=content)
                for call, content in zip(reply.tool_calls, contents, strict=True)
            )
        return self._stopped(stop, context)

    def _stopped(self, stop: BudgetStop, context: TrialContext) -> str:
        # The stop is the turn's answer, in the history too: the next turn's model sees that
        # it was stopped, and every tool call it asked for has its tool message.
        self._history.append(Message(role="assistant", content=stop.message))
        context.recorder.set_metadata(STOPPED_METADATA_KEY, stop.metadata())
        return stop.message

    def _toolbox_for(self, tools: Sequence[Callable[..., Any]]) -> Toolbox:
        if self._toolbox is None or not self._toolbox.same_tools(tools):
            self._toolbox = Toolbox.of(tools)
            self._declarations = [declaration_of(tool) for tool in self._toolbox.tools]
        return self._toolbox

    def describe(self) -> dict[str, Any]:
        """What the run manifest pins about this agent: model, settings, prompt hash, limits."""
        settings = getattr(self.model, "settings", None)
        prompt = self.system_prompt or ""
        return {
            "loop": "ToolAgent",
            "model": self.model.name,
            "model_settings": settings() if callable(settings) else None,
            "system_prompt_sha256": hashlib.sha256(prompt.encode()).hexdigest()[:16],
            "max_steps": self.max_steps,
            "budget": self.budget.describe(),
            "policies": [rule.summary for rule in self.guard.rules] if self.guard else [],
        }

    async def _call_model(self, context: TrialContext) -> tuple[Reply, Message]:
        """The model's reply, and the assistant message it is (recorded, and for the history:
        one frozen message serves both)."""
        messages = list(self._history)
        if context.rate_limiter is not None:
            await context.rate_limiter.acquire()
        with context.recorder.model(model=self.model.name, input_messages=messages) as call:
            reply = await self.model.complete(messages, self._declarations)
            said = reply.as_message()
            call.record_reply([said], usage=reply.usage, response_model=reply.model)
            if reply.finish_reason is not None:
                call.set_attribute(_FINISH_REASONS, [reply.finish_reason])
        self._meter.charge_model_call(reply.usage)
        return reply, said


def _result_content(result: Any) -> str:
    """A result as the Recorder records it: a text as it is, else its JSON conversion."""
    if isinstance(result, str):
        return result
    return orjson.dumps(to_json_value(result).value).decode()
