"""An agent the runner did not write: any callable, traced by its framework's OpenTelemetry.

::

    def make(context: TelemetryContext) -> Callable[[str], Any]:
        LangChainInstrumentor().instrument(tracer_provider=context.tracer_provider)
        graph = create_agent(model, tools=[StructuredTool.from_function(t) for t in context.tools])
        history: list[Any] = []

        async def answer(message: str) -> Any:
            history.append({"role": "user", "content": message})
            state = await graph.ainvoke({"messages": history})
            history[:] = state["messages"]

        return answer

    run(dataset, OtelAgent(make), shop_factory)   # trailcheck run ... --agent-kind otel

The factory is called once per trial with a :class:`TelemetryContext`: the environment's tools
(the case's faults applied; not wrapped by a recorder, since the framework's own telemetry
records the calls), the environment, the run's rate limiter, and the tracer provider the
trial's spans must reach. It returns the agent: a callable, sync or async, taking one user
message; the runner calls it once per user turn of the case, in order, so it keeps its own
history. What it returns is not graded: the trace, the answer included, is what the framework's
instrumentation recorded (:mod:`trailcheck.run.otel_trial` says how a trial's spans are told
apart). A sync callable runs in a thread of its own, so a timeout can end the trial without
waiting for it.

The tracer provider is ``tracer_provider`` when given, else OpenTelemetry's global one (an SDK
``TracerProvider``; when none is set yet, the runner sets one, which OpenTelemetry allows once
per process): instrumentations that take no provider (ADK's) use the global one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from opentelemetry.sdk.trace import TracerProvider

from trailcheck.capture.jsonable import to_json_value
from trailcheck.environment import Environment
from trailcheck.errors import UsageError
from trailcheck.rate_limit import RateLimiter

__all__ = ["FrameworkAgent", "OtelAgent", "OtelAgentFactory", "TelemetryContext"]

FrameworkAgent = Callable[[str], Any]
"""One user message in; the answer, an awaitable of it, or anything (it is not graded)."""


@dataclass(frozen=True, slots=True)
class TelemetryContext:
    """What a framework agent's factory gets for one trial (see the module docstring)."""

    tools: Sequence[Callable[..., Any]]
    tracer_provider: TracerProvider
    environment: Environment | None = None
    rate_limiter: RateLimiter | None = None


OtelAgentFactory = Callable[[TelemetryContext], FrameworkAgent]


@dataclass(frozen=True, slots=True)
class OtelAgent:
    """Marks ``factory`` as an agent whose trace comes from OpenTelemetry; give it to
    :func:`~trailcheck.run.run` where a native agent factory would go.

    ``settle_s`` is how long the runner waits, after the agent returned, for the spans still
    running (a framework may end some in another thread) before the trial's telemetry counts as
    incomplete.
    """

    factory: OtelAgentFactory
    tracer_provider: TracerProvider | None = None
    settle_s: float = 5.0

    def __post_init__(self) -> None:
        if not callable(self.factory):
            raise UsageError(f"an otel agent factory is callable, not {self.factory!r}")
        if self.settle_s < 0:
            raise UsageError(f"settle_s must not be negative, not {self.settle_s}")

    def describe(self) -> dict[str, Any]:
        """What the manifest pins: the kind, the factory, and the factory's own ``describe()``."""
        described: dict[str, Any] = {
            "kind": "otel",
            "factory": getattr(self.factory, "__qualname__", type(self.factory).__qualname__),
            "tracer_provider": "global" if self.tracer_provider is None else "given",
        }
        own = getattr(self.factory, "describe", None)
        if callable(own):
            value = to_json_value(own()).value
            if isinstance(value, dict):
                described.update(value)
        return described
