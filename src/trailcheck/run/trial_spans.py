"""One tracer provider, many concurrent trials: each trial's spans routed to its own collector.

OpenTelemetry's global tracer provider is set once per process, and an instrumentation is
installed once per process too (on the provider given to it, or the global one): a per-trial
provider cannot reach a framework instrumented for the whole process. So every trial shares the
provider, and a trial is told apart by its **trace id**: the runner opens the trial's span with
a trace id of its own (:mod:`trailcheck.run.otel_trial`), the framework's spans nest under it
through the OpenTelemetry context, and so carry that trace id too.

A :class:`TrialSpanRouter` is added to a provider once (:func:`trial_router`); it hands each
span whose trace id a trial registered to that trial's span processor (a
:class:`~trailcheck.capture.TraceCollector`), and ignores every other span of the process.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Mapping

from opentelemetry import trace as otel_trace
from opentelemetry.context import Context
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace import Span as SdkSpan

from trailcheck.errors import UsageError

__all__ = ["TrialSpanRouter", "sdk_tracer_provider", "trial_router"]

_ROUTERS: weakref.WeakKeyDictionary[TracerProvider, TrialSpanRouter] = weakref.WeakKeyDictionary()
_ROUTERS_LOCK = threading.Lock()


class TrialSpanRouter(SpanProcessor):
    """Hands the spans of registered trace ids to their trial's processor; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._trials: dict[int, SpanProcessor] = {}

    @property
    def routes(self) -> Mapping[int, SpanProcessor]:
        """The trace ids registered now (a copy)."""
        with self._lock:
            return dict(self._trials)

    def register(self, trace_id: int, processor: SpanProcessor) -> None:
        """Send the spans of ``trace_id`` to ``processor`` from now on; a UsageError when
        another trial holds that trace id (two runs with the same seed at once)."""
        with self._lock:
            if trace_id in self._trials:
                raise UsageError(
                    f"trace id {trace_id:032x} is already a running trial's: two runs with the"
                    " same seed share a tracer provider at once; give them different seeds"
                )
            self._trials[trace_id] = processor

    def release(self, trace_id: int, processor: SpanProcessor) -> None:
        """Stop routing ``trace_id`` to ``processor``: its spans that end later are ignored. A
        trace id another processor holds is left to it."""
        with self._lock:
            if self._trials.get(trace_id) is processor:
                del self._trials[trace_id]

    def _target(self, span: ReadableSpan) -> SpanProcessor | None:
        if span.context is None:
            return None
        with self._lock:
            return self._trials.get(span.context.trace_id)

    def on_start(self, span: SdkSpan, parent_context: Context | None = None) -> None:
        target = self._target(span)
        if target is not None:
            target.on_start(span, parent_context)

    def on_end(self, span: ReadableSpan) -> None:
        target = self._target(span)
        if target is not None:
            target.on_end(span)

    def shutdown(self) -> None:
        """Nothing of its own to close: each trial shuts its processor down."""

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return True


def trial_router(provider: TracerProvider) -> TrialSpanRouter:
    """The router of ``provider``, added to it the first time it is asked for."""
    with _ROUTERS_LOCK:
        router = _ROUTERS.get(provider)
        if router is None:
            router = _ROUTERS[provider] = TrialSpanRouter()
            provider.add_span_processor(router)
        return router


def sdk_tracer_provider(given: TracerProvider | None) -> TracerProvider:
    """``given``, else the global tracer provider, set to a new SDK one when none is set yet.

    A UsageError when the global provider is not the OpenTelemetry SDK's (a no-op one, or
    another vendor's): its spans cannot be collected in-process.
    """
    if given is not None:
        return given
    current = otel_trace.get_tracer_provider()
    if isinstance(current, otel_trace.ProxyTracerProvider):
        resource = Resource.create({"service.name": "trailcheck-run"})
        otel_trace.set_tracer_provider(TracerProvider(resource=resource))
        current = otel_trace.get_tracer_provider()  # whoever set it first, this call or another
    if not isinstance(current, TracerProvider):
        raise UsageError(
            f"the global tracer provider is a {type(current).__qualname__}, not the"
            " OpenTelemetry SDK's TracerProvider, so trailcheck cannot collect its spans: set an"
            " SDK TracerProvider globally, or pass one as OtelAgent(tracer_provider=...)"
        )
    return current
