"""A trial's environment as an OpenAI Agents SDK agent, traced by OpenInference's OpenAI Agents
instrumentation: the otel-agent factory for OpenAI Agents demos.

::

    factory = OpenAIAgentsFactory(lambda: ScriptedModel(v2_brain), instructions=PROMPT)
    run(dataset, OtelAgent(factory), prompt_only_shop)

For each trial the factory builds the SDK's ``Agent`` over the trial's tools, with the model
bridged by :class:`~.openai_agents_model.AgentsChatModel`; each user turn is one
``Runner.run`` whose input is the conversation so far (``result.to_input_list()``) and the
user's message, and the turn's answer is the run's final output. A tool is a ``FunctionTool``
declared with the JSON schema trailcheck derives from its signature
(:func:`trailcheck.guard.as_tool`), whose arguments are validated by the same contract before
it runs, and whose result goes back as the native loop renders it. An error the
``error_policy`` calls recoverable goes back to the model as ``{"error": "Type: message"}``
and is recorded on the tool's span as the SDK records a handled tool error (``Error running
tool (non-fatal)``, with the tool's name and the error); any other exception ends the run.

The SDK's own tracing exports to OpenAI's servers by default. Here it never does: the first
factory call empties the SDK's list of trace processors and installs OpenInference's
instrumentation exclusively, on the trial's tracer provider, so OpenInference's processor is
the only one (and an uninstall, when a later run moves it to another provider, restores no
exporter). No client is made and no key is read. An instrumentation installed by the
application itself, before trailcheck's, is left as it is: it must then be on the provider the
run uses. The runs trace data (arguments, results, messages) whatever
``OPENAI_AGENTS_TRACE_INCLUDE_SENSITIVE_DATA`` says, since the dataset grades them.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson
from opentelemetry.sdk.trace import TracerProvider

from trailcheck.demo.frameworks.openai_agents_model import AgentsChatModel
from trailcheck.demo.frameworks.tool_results import recoverable_description, result_text
from trailcheck.extras import missing_extra
from trailcheck.guard import RAW_ARGUMENTS_KEY, ErrorPolicy, as_tool
from trailcheck.guard.error_policy import error_content
from trailcheck.models import ChatModel
from trailcheck.run.otel_agent import FrameworkAgent, TelemetryContext

try:
    from agents import Agent, FunctionTool, RunConfig, Runner, set_trace_processors
    from agents.items import TResponseInputItem
    from agents.tool_context import ToolContext
    from agents.tracing import SpanError, get_current_span
    from openinference.instrumentation.openai_agents import OpenAIAgentsInstrumentor
except ImportError as missing:  # pragma: no cover - the extra is installed in CI
    raise missing_extra("the OpenAI Agents agent", "openai-agents", missing) from None

__all__ = ["OpenAIAgentsFactory", "environment_tool", "instrument_openai_agents"]

_MAX_TURNS = 50  # model calls per user turn; the error policy and the brains end turns sooner


@dataclass(slots=True)
class _Installed:
    """Where trailcheck installed the instrumentation (None: it did not)."""

    provider: TracerProvider | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)


_INSTALLED = _Installed()


def instrument_openai_agents(provider: TracerProvider) -> None:
    """Install OpenInference's OpenAI Agents instrumentation on ``provider``, as the SDK's only
    trace processor (see the module)."""
    with _INSTALLED.lock:
        instrumentor = OpenAIAgentsInstrumentor()
        current = _INSTALLED.provider
        if current is provider:
            return
        if instrumentor.is_instrumented_by_opentelemetry:
            if current is None:
                return  # the application's own: left as it is
            instrumentor.uninstrument()
        else:
            set_trace_processors([])  # the SDK's exporter to OpenAI, never to be restored
        instrumentor.instrument(tracer_provider=provider, exclusive_processor=True)
        _INSTALLED.provider = provider


def _arguments(text: str) -> dict[str, Any]:
    try:
        value = orjson.loads(text or "{}")
    except orjson.JSONDecodeError:
        value = None
    return value if isinstance(value, dict) else {RAW_ARGUMENTS_KEY: text}


def environment_tool(fn: Callable[..., Any], policy: ErrorPolicy) -> FunctionTool:
    """An environment's tool (a function or bound method, sync or async) as a ``FunctionTool``
    (see the module docstring)."""
    tool = as_tool(fn)

    async def invoke(context: ToolContext[Any], arguments: str) -> str:
        try:
            return result_text(await tool.run(_arguments(arguments)))
        except Exception as error:
            description = recoverable_description(policy, error)
            if description is None:
                raise  # a bug: the SDK ends the run with it
            span = get_current_span()
            if span is not None:
                span.set_error(
                    SpanError(
                        message="Error running tool (non-fatal)",
                        data={"tool_name": tool.name, "error": description},
                    )
                )
            return error_content(description)

    return FunctionTool(
        name=tool.name,
        description=tool.description,
        params_json_schema=tool.parameters,
        on_invoke_tool=invoke,
        strict_json_schema=False,
    )


class OpenAIAgentsFactory:
    """An :data:`~trailcheck.run.OtelAgentFactory` building an OpenAI Agents SDK agent per
    trial."""

    def __init__(
        self,
        model: Callable[[], ChatModel],
        *,
        instructions: str,
        error_policy: ErrorPolicy | None = None,
        name: str = "openai-agents-agent",
    ) -> None:
        self._model = model
        self._instructions = instructions
        self._error_policy = error_policy or ErrorPolicy()
        self._name = name

    def describe(self) -> dict[str, Any]:
        """What the manifest pins: the framework, the model, and the instructions' hash."""
        return {
            "agent": self._name,
            "framework": "openai-agents",
            "model": self._model().name,
            "instructions_sha256": hashlib.sha256(self._instructions.encode()).hexdigest()[:16],
        }

    def __call__(self, context: TelemetryContext) -> FrameworkAgent:
        instrument_openai_agents(context.tracer_provider)
        agent: Agent[Any] = Agent(
            name=self._name,
            instructions=self._instructions,
            model=AgentsChatModel(self._model(), rate_limiter=context.rate_limiter),
            tools=_tools(context.tools, self._error_policy),
        )
        config = RunConfig(tracing_disabled=False, trace_include_sensitive_data=True)
        history: list[TResponseInputItem] = []

        async def respond(message: str) -> str:
            turn: list[TResponseInputItem] = [*history, {"role": "user", "content": message}]
            result = await Runner.run(agent, turn, max_turns=_MAX_TURNS, run_config=config)
            history[:] = result.to_input_list()
            return str(result.final_output)

        return respond


def _tools(tools: Sequence[Callable[..., Any]], policy: ErrorPolicy) -> list[Any]:
    return [environment_tool(tool, policy) for tool in tools]
