"""A trial's environment as a LangGraph agent, traced by OpenInference's LangChain
instrumentation: the otel-agent factory the framework demos share.

::

    factory = LangGraphAgentFactory(lambda: ScriptedModel(v2_brain), system_prompt=PROMPT)
    run(dataset, OtelAgent(factory), prompt_only_shop)

For each trial the factory builds the agent LangGraph 1.x users build:
``langchain.agents.create_agent`` (a compiled ``StateGraph`` with a model node and a
``ToolNode``) over the trial's tools as LangChain ``StructuredTool``\\ s, with the model
bridged by :class:`~.langchain_chat.LangChainChatModel`. Each tool returns its result as the
native tool loop renders it (a text as it is, anything else as JSON); an error the
``error_policy`` calls recoverable goes back to the model as ``{"error": "Type: message"}``
through LangChain's ``ToolErrorMiddleware`` (the tool's span still records the error), and any
other exception ends the run, as in the native loop. The agent keeps the conversation across
turns (each ``ainvoke`` gets the whole history).

The LangChain instrumentation is installed once per process, on the trial's tracer provider;
when a later run uses another provider it is moved there. One installed by the application
itself, before trailcheck's, is left as it is: it must then be on the provider the run uses.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from opentelemetry.sdk.trace import TracerProvider

from trailcheck.demo.frameworks.langchain_chat import LangChainChatModel
from trailcheck.demo.frameworks.tool_results import result_text
from trailcheck.extras import missing_extra
from trailcheck.guard import ErrorPolicy
from trailcheck.guard.error_policy import leaf_errors
from trailcheck.models import ChatModel
from trailcheck.run.otel_agent import FrameworkAgent, TelemetryContext

try:
    from langchain.agents import create_agent
    from langchain.agents.middleware import ToolErrorMiddleware
    from langchain_core.messages import AnyMessage, HumanMessage
    from langchain_core.tools import BaseTool, StructuredTool
    from openinference.instrumentation.langchain import LangChainInstrumentor
except ImportError as missing:  # pragma: no cover - the extra is installed in CI
    raise missing_extra("the LangGraph agent", "langgraph", missing) from None

__all__ = ["LangGraphAgentFactory", "instrument_langchain", "langchain_tools"]

_RECURSION_LIMIT = 100  # graph steps per turn; the error policy and the brains end turns sooner


@dataclass(slots=True)
class _Installed:
    """Where trailcheck installed the instrumentation (None: it did not)."""

    provider: TracerProvider | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)


_INSTALLED = _Installed()


def instrument_langchain(provider: TracerProvider) -> None:
    """Install OpenInference's LangChain instrumentation on ``provider`` (see the module)."""
    with _INSTALLED.lock:
        instrumentor = LangChainInstrumentor()
        current = _INSTALLED.provider
        if current is provider:
            return
        if instrumentor.is_instrumented_by_opentelemetry:
            if current is None:
                return  # the application's own: left as it is
            instrumentor.uninstrument()
        instrumentor.instrument(tracer_provider=provider)
        _INSTALLED.provider = provider


def langchain_tools(tools: Sequence[Callable[..., Any]]) -> list[BaseTool]:
    """The environment's tools as ``StructuredTool``\\ s: same name, signature and docstring."""
    converted: list[BaseTool] = []
    for tool in tools:
        if inspect.iscoroutinefunction(tool):

            @functools.wraps(tool)
            async def call_async(*args: Any, _tool: Any = tool, **kwargs: Any) -> str:
                return result_text(await _tool(*args, **kwargs))

            converted.append(StructuredTool.from_function(coroutine=_without(call_async)))
        else:

            @functools.wraps(tool)
            def call(*args: Any, _tool: Any = tool, **kwargs: Any) -> str:
                return result_text(_tool(*args, **kwargs))

            converted.append(StructuredTool.from_function(func=_without(call)))
    return converted


def _without(wrapper: Callable[..., Any]) -> Callable[..., Any]:
    """The wrapper, showing the tool's own signature (not the ``_tool`` default it closes over)."""
    wrapped = getattr(wrapper, "__wrapped__", None)
    if wrapped is not None:
        wrapper.__signature__ = inspect.signature(wrapped)  # type: ignore[attr-defined]
    return wrapper


def _error_handler(policy: ErrorPolicy) -> Callable[[Exception, Any], str | None]:
    def on_error(error: Exception, request: Any) -> str | None:
        if all(policy.is_recoverable(leaf) for leaf in leaf_errors(error)):
            return policy.tool_result(error)
        return None  # a bug: it propagates and ends the run

    return on_error


class LangGraphAgentFactory:
    """An :data:`~trailcheck.run.OtelAgentFactory` building a LangGraph agent per trial."""

    def __init__(
        self,
        model: Callable[[], ChatModel],
        *,
        system_prompt: str,
        error_policy: ErrorPolicy | None = None,
        name: str = "langgraph-agent",
    ) -> None:
        self._model = model
        self._system_prompt = system_prompt
        self._error_policy = error_policy or ErrorPolicy()
        self._name = name

    def describe(self) -> dict[str, Any]:
        """What the manifest pins: the framework, the model, and the prompt's hash."""
        return {
            "agent": self._name,
            "framework": "langgraph",
            "model": self._model().name,
            "system_prompt_sha256": hashlib.sha256(self._system_prompt.encode()).hexdigest()[:16],
        }

    def __call__(self, context: TelemetryContext) -> FrameworkAgent:
        instrument_langchain(context.tracer_provider)
        model = LangChainChatModel(chat=self._model(), rate_limiter=context.rate_limiter)
        graph = create_agent(
            model,
            tools=langchain_tools(context.tools),
            system_prompt=self._system_prompt,
            middleware=[ToolErrorMiddleware(_error_handler(self._error_policy))],
        )
        history: list[AnyMessage] = []

        async def respond(message: str) -> str:
            history.append(HumanMessage(content=message))
            state = await graph.ainvoke(
                {"messages": list(history)}, config={"recursion_limit": _RECURSION_LIMIT}
            )
            history[:] = state["messages"]
            last = history[-1]
            return last.content if isinstance(last.content, str) else last.text

        return respond
