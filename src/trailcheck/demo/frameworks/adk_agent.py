"""A trial's environment as a Google ADK agent, traced by ADK's own OpenTelemetry: the
otel-agent factory for ADK demos.

::

    factory = AdkAgentFactory(lambda: ScriptedModel(pit_wall_brain), instruction=PROMPT)
    run(dataset, OtelAgent(factory), v2_archive)

For each trial the factory builds an ``LlmAgent`` over the trial's tools, with the model
bridged by :class:`~.adk_model.AdkChatModel`, and an ``InMemoryRunner`` with one session: each
user turn is one ``run_async`` in that session (ADK keeps the history), and the turn's answer
is the final response's text. A tool is an ADK ``BaseTool`` declared with the JSON schema
trailcheck derives from its signature (:func:`trailcheck.guard.as_tool`), whose arguments are
validated by the same contract before it runs, and whose result goes back as JSON; an error the
``error_policy`` calls recoverable goes back to the model as ``{"error": "Type: message"}``
through ADK's ``on_tool_error_callback`` (the tool's span still records it), and any other
exception ends the run.

ADK's telemetry uses OpenTelemetry's global tracer provider, so the run must use the global one
(the default of :class:`~trailcheck.run.OtelAgent`). ADK records no message content by
default; each run here asks for it on the spans (``RunConfig.telemetry``, ``SPAN_ONLY``), for
this invocation only, since arguments, results and the answer are what the dataset grades.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from trailcheck.capture.jsonable import to_json_value
from trailcheck.demo.frameworks.adk_model import AdkChatModel
from trailcheck.demo.frameworks.tool_results import recoverable_description
from trailcheck.errors import UsageError
from trailcheck.extras import missing_extra
from trailcheck.guard import ErrorPolicy, as_tool
from trailcheck.models import ChatModel
from trailcheck.run.otel_agent import FrameworkAgent, TelemetryContext

try:
    from google.adk.agents import LlmAgent
    from google.adk.agents.run_config import RunConfig
    from google.adk.runners import InMemoryRunner
    from google.adk.telemetry.context import ContentCapturingMode, TelemetryConfig
    from google.adk.tools.base_tool import BaseTool
    from google.adk.tools.tool_context import ToolContext
    from google.genai import types
except ImportError as missing:  # pragma: no cover - the extra is installed in CI
    raise missing_extra("the ADK agent", "adk", missing) from None

__all__ = ["AdkAgentFactory", "EnvironmentTool"]

_USER = "trailcheck"
_RUN_CONFIG = RunConfig(
    telemetry=TelemetryConfig(capture_message_content=ContentCapturingMode.SPAN_ONLY),
    max_llm_calls=50,
)


class EnvironmentTool(BaseTool):
    """An environment's tool (a function or bound method, sync or async) as an ADK tool: the
    declaration and the contract trailcheck's own loop uses (:func:`~trailcheck.guard.as_tool`),
    so arguments are validated and the tool's rules checked before it runs."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self._tool = as_tool(fn)
        super().__init__(name=self._tool.name, description=self._tool.description)

    def _get_declaration(self) -> types.FunctionDeclaration:
        return types.FunctionDeclaration(
            name=self.name,
            description=self.description,
            parameters_json_schema=self._tool.parameters,
        )

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        return to_json_value(await self._tool.run(args)).value


def _error_callback(
    policy: ErrorPolicy,
) -> Callable[[BaseTool, dict[str, Any], ToolContext, Exception], dict[str, Any] | None]:
    def on_tool_error(
        tool: BaseTool, args: dict[str, Any], tool_context: ToolContext, error: Exception
    ) -> dict[str, Any] | None:
        description = recoverable_description(policy, error)
        if description is None:
            return None  # a bug: it propagates and ends the run
        return {"error": description}

    return on_tool_error


class AdkAgentFactory:
    """An :data:`~trailcheck.run.OtelAgentFactory` building an ADK agent per trial."""

    def __init__(
        self,
        model: Callable[[], ChatModel],
        *,
        instruction: str,
        error_policy: ErrorPolicy | None = None,
        name: str = "adk_agent",
    ) -> None:
        if not name.isidentifier():
            raise UsageError(f"an ADK agent's name is an identifier, not {name!r}")
        self._model = model
        self._instruction = instruction
        self._error_policy = error_policy or ErrorPolicy()
        self._name = name

    def describe(self) -> dict[str, Any]:
        """What the manifest pins: the framework, the model, and the instruction's hash."""
        return {
            "agent": self._name,
            "framework": "google-adk",
            "model": self._model().name,
            "instruction_sha256": hashlib.sha256(self._instruction.encode()).hexdigest()[:16],
        }

    def __call__(self, context: TelemetryContext) -> FrameworkAgent:
        chat = self._model()
        agent = LlmAgent(
            name=self._name,
            model=AdkChatModel(model=chat.name, chat=chat, rate_limiter=context.rate_limiter),
            instruction=self._instruction,
            tools=[EnvironmentTool(tool) for tool in context.tools],
            on_tool_error_callback=_error_callback(self._error_policy),
        )
        runner = InMemoryRunner(agent=agent, app_name=self._name)
        session: list[str] = []

        async def respond(message: str) -> str:
            if not session:
                created = await runner.session_service.create_session(
                    app_name=self._name, user_id=_USER
                )
                session.append(created.id)
            content = types.Content(role="user", parts=[types.Part(text=message)])
            answer = ""
            async for event in runner.run_async(
                user_id=_USER, session_id=session[0], new_message=content, run_config=_RUN_CONFIG
            ):
                if event.is_final_response() and event.content and event.content.parts:
                    answer = "".join(part.text or "" for part in event.content.parts)
            return answer

        return respond
