"""One trial of an :class:`~trailcheck.run.otel_agent.OtelAgent`: its turns played inside a
span of the runner's, and its trace taken from what the framework's telemetry recorded.

The runner opens a ``trailcheck.trial`` span for the trial, with the trial's trace id (from the
seed, the case and the attempt, as native trials have) and a remote parent carrying it, sampled:
the trial is a request from outside the agent, as a server span's caller is. The framework's
spans start while it is the current span, so they nest under it and share its trace id, and
the provider's :class:`~trailcheck.run.trial_spans.TrialSpanRouter` hands them to this trial's
own :class:`~trailcheck.capture.TraceCollector`. When the trial span has ended and every span
of the trial has too, the collector assembles the trace, through the same conventions as the
OTLP importers; the runner waits up to ``settle_s`` for the spans still running.

The assembled trace is the framework's account: its tool calls, model calls, usage and answer
(the last model answer, when no root records one). The runner adds what it knows better:
``input`` (the user turns it played), ``state_before`` and ``state_after`` (the environment's
snapshots before the first turn and after the last) and the trial's ``metadata``. A trial
whose telemetry gave no trace, or nothing under the trial span, has no trace: its reason says
why, and the runner counts it an infrastructure error.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
import threading
from collections.abc import Callable, Sequence
from typing import Any, Final

from opentelemetry import trace as otel_trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags

from trailcheck.capture import IdFactory, TraceCollector
from trailcheck.capture.otel_spans import REMOTE_PARENT_ATTRIBUTE
from trailcheck.capture.runs import snapshot_of
from trailcheck.environment import Environment
from trailcheck.rate_limit import RateLimiter
from trailcheck.run.conversation import USER_TURN_SPAN, Conversation
from trailcheck.run.otel_agent import FrameworkAgent, OtelAgent, TelemetryContext
from trailcheck.run.trial_spans import sdk_tracer_provider, trial_router
from trailcheck.trace import Message, Trace

__all__ = ["TRIAL_SPAN_NAME", "OtelTrial"]

TRIAL_SPAN_NAME: Final = "trailcheck.trial"
_SCOPE: Final = "trailcheck.run"


class OtelTrial:
    """Plays one trial (:meth:`play`, under the trial's deadline) and then gives its trace or
    why there is none (:meth:`collect`, outside it); :meth:`close` ends the collecting."""

    def __init__(
        self,
        agent: OtelAgent,
        *,
        conversation: Conversation,
        case_input: str | list[Message] | None,
        tools: Sequence[Callable[..., Any]],
        environment: Environment | None,
        rate_limiter: RateLimiter | None,
        metadata: dict[str, Any],
        ids: IdFactory,
    ) -> None:
        self._agent = agent
        self.conversation = conversation
        self._input = case_input
        self._tools = list(tools)
        self._environment = environment
        self._rate_limiter = rate_limiter
        self._metadata = metadata
        self._trace_id = ids.trace_id()
        self._parent_id = ids.span_id()
        self._provider: TracerProvider | None = None
        self._collector: TraceCollector | None = None
        self._arrived: asyncio.Event | None = None
        self._state_before: dict[str, Any] | None = None
        self._state_after: dict[str, Any] | None = None

    async def play(self) -> None:
        """Make the agent, then play the conversation with it inside the trial span; each
        simulated user turn is a span of its own there."""
        provider = self._provider = sdk_tracer_provider(self._agent.tracer_provider)
        context = TelemetryContext(
            tools=self._tools,
            tracer_provider=provider,
            environment=self._environment,
            rate_limiter=self._rate_limiter,
        )
        agent = self._agent.factory(context)
        loop = asyncio.get_running_loop()
        arrived = self._arrived = asyncio.Event()

        def wake(_: object) -> None:
            with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits any more
                loop.call_soon_threadsafe(arrived.set)

        self._collector = TraceCollector(on_trace=wake, on_rejection=wake)
        trial_router(provider).register(int(self._trace_id, 16), self._collector)
        tracer = provider.get_tracer(_SCOPE)
        attributes = {
            f"trailcheck.{key}": value
            for key, value in self._metadata.items()
            if isinstance(value, str | int)
        }
        if self._environment is not None:
            self._state_before = snapshot_of(self._environment)
        try:

            def record(turn_attributes: dict[str, Any]) -> None:
                with tracer.start_as_current_span(USER_TURN_SPAN, attributes=turn_attributes):
                    pass  # a turn takes no time of the agent's: the span marks when it was said

            async def respond(message: str) -> Any:
                return await _call(agent, message)

            with tracer.start_as_current_span(
                TRIAL_SPAN_NAME, context=self._parent_context(), attributes=attributes
            ):
                await self.conversation.play(respond, record)
        finally:
            if self._environment is not None:
                self._state_after = snapshot_of(self._environment)

    async def collect(self) -> Trace | str:
        """The trial's trace, or the reason there is none (see the module docstring)."""
        collector, arrived = self._collector, self._arrived
        if collector is None or arrived is None:
            return "the agent's factory did not return an agent, so nothing was traced"
        try:
            async with asyncio.timeout(self._agent.settle_s):
                while True:
                    arrived.clear()  # before looking: a span that ends after the look wakes us
                    if collector.traces or not collector.open_traces:
                        break
                    await arrived.wait()
        except TimeoutError:
            pass
        finally:
            self.close()  # a trace still open becomes a rejection, saying what ran on
        traces, rejections = collector.drain()
        if not traces:
            why = "; ".join(rejection.message for rejection in rejections)
            return (
                f"the agent's telemetry produced no trace: {why or 'no span reached trailcheck'}"
                f" (waited {self._agent.settle_s:g} s for the spans to end)"
            )
        return self._completed(traces[0])

    def close(self) -> None:
        """Stop collecting: the trial's trace id is released and its collector shut down.
        Called by :meth:`collect`, and by the runner when the trial is cancelled."""
        if self._provider is not None and self._collector is not None:
            trial_router(self._provider).release(int(self._trace_id, 16), self._collector)
            self._collector.shutdown()

    def _parent_context(self) -> Any:
        parent = SpanContext(
            trace_id=int(self._trace_id, 16),
            span_id=int(self._parent_id, 16),
            is_remote=True,
            trace_flags=TraceFlags(TraceFlags.SAMPLED),
        )
        return otel_trace.set_span_in_context(NonRecordingSpan(parent))

    def _completed(self, trace: Trace) -> Trace | str:
        root = trace.tree.root
        if root is None or len(trace.spans) == 1:
            return (
                "the agent's telemetry recorded nothing under the trial span: its"
                " instrumentation is not installed, or not on the trial's tracer provider"
                " (instrument the framework with context.tracer_provider, or on the global one)"
            )
        # The remote parent only carried the trial's trace id: it is no span of anyone's.
        attributes = {k: v for k, v in root.attributes.items() if k != REMOTE_PARENT_ATTRIBUTE}
        spans = [
            span.model_copy(update={"attributes": attributes}) if span is root else span
            for span in trace.spans
        ]
        described = self.conversation.describe()
        metadata = {**trace.metadata, **self._metadata}
        if described is not None:
            metadata["simulated_user"] = described
        return trace.model_copy(
            update={
                "spans": spans,
                "input": self._input if described is None else self.conversation.input_messages(),
                "state_before": self._state_before,
                "state_after": self._state_after,
                "metadata": metadata,
            }
        )


async def _call(agent: FrameworkAgent, turn: str) -> Any:
    """``agent(turn)``, awaited when async; a sync agent runs in a daemon thread of its own."""
    if _is_async(agent):
        return await agent(turn)
    answer = await _in_thread(agent, turn)
    return await answer if inspect.isawaitable(answer) else answer


def _is_async(agent: FrameworkAgent) -> bool:
    call = getattr(agent, "__call__", None)  # noqa: B004 - a callable object's own method
    return inspect.iscoroutinefunction(agent) or inspect.iscoroutinefunction(call)


async def _in_thread(agent: FrameworkAgent, turn: str) -> Any:
    """Run ``agent(turn)`` in a new daemon thread, in a copy of this context (the trial span is
    current there). Unlike ``asyncio.to_thread`` it does not hold up the end of the event loop
    when a trial timed out and the call runs on."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[Any] = loop.create_future()
    context = contextvars.copy_context()

    def settle(outcome: Any, error: BaseException | None) -> None:
        if done.cancelled():
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(outcome)

    def work() -> None:
        try:
            outcome, error = context.run(agent, turn), None
        except BaseException as raised:  # noqa: BLE001 - handed to the awaiting trial
            outcome, error = None, raised
        with contextlib.suppress(RuntimeError):  # a closed loop: the trial ended long ago
            loop.call_soon_threadsafe(settle, outcome, error)

    threading.Thread(target=work, name="trailcheck-otel-agent", daemon=True).start()
    return await done
