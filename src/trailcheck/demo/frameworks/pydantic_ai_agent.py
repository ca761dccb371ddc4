"""A trial's environment as a Pydantic AI agent, traced by Pydantic AI's own OpenTelemetry
instrumentation: the otel-agent factory for Pydantic AI demos.

::

    factory = PydanticAIFactory(lambda: ScriptedModel(v2_brain), instructions=PROMPT)
    run(dataset, OtelAgent(factory), prompt_only_shop)

For each trial the factory builds an ``Agent`` over the trial's tools, with the model bridged by
:func:`~.pydantic_ai_model.chat_function_model`, instrumented by its ``Instrumentation``
capability on the trial's tracer provider (for this agent only: nothing is installed for the
process, and message content is recorded, Pydantic AI's default). Each user turn is one
``agent.run`` with the conversation so far as its ``message_history``; the turn's answer is the
run's output.

A tool is declared with the JSON schema trailcheck derives from its signature
(:func:`trailcheck.guard.as_tool`, through ``Tool.from_schema``), its arguments are validated
by the same contract before it runs, and its result goes back as the native loop renders it.
An error the ``error_policy`` calls recoverable is raised as Pydantic AI's ``ToolFailed``
(``Type: message``): the tool's span records the failure, the model sees ``{"error": ...}``,
and no retry budget is spent, so an agent may call a failing tool as often as the native loop
would let it. Any other exception ends the run.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from trailcheck.demo.frameworks.pydantic_ai_model import chat_function_model
from trailcheck.demo.frameworks.tool_results import recoverable_description, result_text
from trailcheck.extras import missing_extra
from trailcheck.guard import ErrorPolicy, as_tool
from trailcheck.models import ChatModel
from trailcheck.run.otel_agent import FrameworkAgent, TelemetryContext

try:
    from pydantic_ai import Agent, Tool, ToolFailed
    from pydantic_ai.capabilities import Instrumentation
    from pydantic_ai.messages import ModelMessage
    from pydantic_ai.models.instrumented import InstrumentationSettings
    from pydantic_ai.usage import UsageLimits
except ImportError as missing:  # pragma: no cover - the extra is installed in CI
    raise missing_extra("the Pydantic AI agent", "pydantic-ai", missing) from None

__all__ = ["PydanticAIFactory", "environment_tool"]

_LIMITS = UsageLimits(request_limit=50)  # model calls per user turn; the brains end turns sooner


def environment_tool(fn: Callable[..., Any], policy: ErrorPolicy) -> Tool[None]:
    """An environment's tool (a function or bound method, sync or async) as a Pydantic AI
    ``Tool`` (see the module docstring)."""
    tool = as_tool(fn)

    async def invoke(**arguments: Any) -> str:
        try:
            return result_text(await tool.run(arguments))
        except Exception as error:
            description = recoverable_description(policy, error)
            if description is None:
                raise  # a bug: it ends the run
            raise ToolFailed(description) from error

    return Tool.from_schema(invoke, tool.name, tool.description, tool.parameters)


class PydanticAIFactory:
    """An :data:`~trailcheck.run.OtelAgentFactory` building a Pydantic AI agent per trial."""

    def __init__(
        self,
        model: Callable[[], ChatModel],
        *,
        instructions: str,
        error_policy: ErrorPolicy | None = None,
        name: str = "pydantic-ai-agent",
    ) -> None:
        self._model = model
        self._instructions = instructions
        self._error_policy = error_policy or ErrorPolicy()
        self._name = name

    def describe(self) -> dict[str, Any]:
        """What the manifest pins: the framework, the model, and the instructions' hash."""
        return {
            "agent": self._name,
            "framework": "pydantic-ai",
            "model": self._model().name,
            "instructions_sha256": hashlib.sha256(self._instructions.encode()).hexdigest()[:16],
        }

    def __call__(self, context: TelemetryContext) -> FrameworkAgent:
        settings = InstrumentationSettings(tracer_provider=context.tracer_provider)
        agent = Agent(
            chat_function_model(self._model(), rate_limiter=context.rate_limiter),
            name=self._name,
            instructions=self._instructions,
            tools=[environment_tool(tool, self._error_policy) for tool in context.tools],
            capabilities=[Instrumentation(settings=settings)],
        )
        history: list[ModelMessage] = []

        async def respond(message: str) -> str:
            result = await agent.run(message, message_history=list(history), usage_limits=_LIMITS)
            history[:] = result.all_messages()
            return result.output

        return respond
