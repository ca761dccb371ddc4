"""Traces from any OpenTelemetry-instrumented agent, collected in-process.

::

    provider = TracerProvider()
    collector = TraceCollector()
    provider.add_span_processor(collector)
    ...  # run an agent instrumented with OpenTelemetry (ADK, LangGraph, OpenAI Agents SDK)
    [trace] = collector.traces

Each ended span is read as a :class:`~trailcheck.ingest.records.RawSpan` and buffered with the
other spans of its trace; when the trace's root span (no parent in this process) ends, the trace
is assembled with :func:`trailcheck.ingest.assemble.assemble_traces`, through the same
conventions as the OTLP importers. Nothing raises into the instrumented application, and nothing
is dropped silently: every span ends up in a Trace or in a Rejection.

- A trace that cannot be assembled (a bad span, an orphan, a span over ``max_spans_per_trace``)
  becomes a Rejection; so does each span that cannot be read, and then its trace as a whole.
- Spans of traces whose root never ends are held in at most ``max_open_traces`` buffers; opening
  one more evicts the oldest, which becomes a Rejection and is counted in ``evicted_traces``.
  Spans of an evicted trace that end later (its root included) are rejected too, so a trace
  never comes out with part of it missing; the ids of the last ``max_open_traces`` evicted
  traces are remembered for that.
- A span that ends after its trace's root has ended starts a new buffer, so it comes out as a
  Rejection when that buffer is evicted or the collector shuts down. (A second subtree of a
  distributed trace, under another remote parent, comes out as a second Trace with the same id.)
- ``force_flush`` has nothing to do: completed traces are delivered as their root ends, in the
  thread that ended it, and open traces stay open since their roots may still end.
- ``shutdown`` turns every open trace into a Rejection (its root never ended: without the root a
  trace cannot be assembled faithfully) and clears the buffers; spans that end later are
  rejected.

Results go to ``on_trace`` / ``on_rejection`` when given, and are kept in ``traces`` /
``rejections`` unless ``keep=False``; ``drain()`` takes the kept ones out, so a long-running
process does not hold them forever. A callback that raises is logged (with its traceback) and
the result is still kept.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor
from opentelemetry.sdk.trace import Span as SdkSpan

from trailcheck.capture.otel_spans import is_local_root, raw_span_from_otel
from trailcheck.errors import RecordError, UsageError
from trailcheck.ingest.assemble import assemble_traces
from trailcheck.ingest.records import RawSpan, Rejection
from trailcheck.trace import Trace

logger = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass(slots=True)
class _OpenTrace:
    spans: list[RawSpan] = field(default_factory=list)
    over_limit: int = 0  # spans past max_spans_per_trace, counted, not kept
    unreadable: int = 0  # spans that could not be read, each already a Rejection


class TraceCollector(SpanProcessor):
    """An OpenTelemetry SDK span processor that assembles Traces as their root spans end.

    Thread-safe: the SDK calls ``on_end`` from whichever thread ends a span. See the module
    docstring for what happens to unfinished, late and bad traces.
    """

    def __init__(
        self,
        *,
        on_trace: Callable[[Trace], None] | None = None,
        on_rejection: Callable[[Rejection], None] | None = None,
        keep: bool = True,
        max_open_traces: int = 1_000,
        max_spans_per_trace: int = 10_000,
        source: str = "otel",
    ) -> None:
        if max_open_traces < 1 or max_spans_per_trace < 1:
            raise UsageError("max_open_traces and max_spans_per_trace must be at least 1")
        self.source = source
        self._on_trace = on_trace
        self._on_rejection = on_rejection
        self._keep = keep
        self._max_open_traces = max_open_traces
        self._max_spans_per_trace = max_spans_per_trace
        self._lock = threading.Lock()
        self._open: OrderedDict[str, _OpenTrace] = OrderedDict()  # oldest first
        self._traces: list[Trace] = []
        self._rejections: list[Rejection] = []
        self._evicted_traces = 0
        self._recently_evicted: OrderedDict[str, None] = OrderedDict()  # bounded like _open
        self._shut_down = False

    # -- what was collected ----------------------------------------------------------------

    @property
    def traces(self) -> list[Trace]:
        """The traces assembled so far (a copy), in the order their roots ended."""
        with self._lock:
            return list(self._traces)

    @property
    def rejections(self) -> list[Rejection]:
        """Everything that did not become a trace (a copy), in the order it was found."""
        with self._lock:
            return list(self._rejections)

    @property
    def evicted_traces(self) -> int:
        """How many unfinished traces were evicted to stay within ``max_open_traces``."""
        with self._lock:
            return self._evicted_traces

    @property
    def open_traces(self) -> int:
        """How many traces have spans buffered and a root that has not ended."""
        with self._lock:
            return len(self._open)

    def drain(self) -> tuple[list[Trace], list[Rejection]]:
        """Take out the kept traces and rejections, leaving both lists empty."""
        with self._lock:
            traces, self._traces = self._traces, []
            rejections, self._rejections = self._rejections, []
        return traces, rejections

    # -- the SpanProcessor interface -------------------------------------------------------

    def on_start(self, span: SdkSpan, parent_context: Context | None = None) -> None:
        """Nothing to do: a span is read once it has ended."""

    def on_end(self, span: ReadableSpan) -> None:
        trace_id = _trace_id_of(span)
        try:
            raw: RawSpan | None = raw_span_from_otel(span, self.source)
            rejections: list[Rejection] = []
        except RecordError as error:
            raw, rejections = None, [Rejection.from_error(error, trace_id=trace_id)]
        complete: _OpenTrace | None = None
        if trace_id is not None:
            with self._lock:
                complete = self._take(trace_id, raw, is_local_root(span), rejections)
        traces: list[Trace] = []
        if complete is not None and trace_id is not None:
            traces = self._assemble(trace_id, complete, rejections)
        self._deliver(traces, rejections)

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        """Always True at once: completed traces are delivered when their root ends."""
        return True

    def shutdown(self) -> None:
        """Reject every open trace (its root never ended) and clear the buffers."""
        with self._lock:
            self._shut_down = True
            unfinished, self._open = self._open, OrderedDict()
        self._deliver(
            [],
            [
                self._unfinished(tid, buffered, "at shutdown")
                for tid, buffered in unfinished.items()
            ],
        )

    # -- internals -------------------------------------------------------------------------

    def _take(
        self, trace_id: str, raw: RawSpan | None, is_root: bool, rejections: list[Rejection]
    ) -> _OpenTrace | None:
        """Buffer one ended span (lock held; ``raw`` is None when it could not be read); the
        trace's buffer when this span was its root. Rejections found go to ``rejections``."""
        refusal = None
        if self._shut_down:
            refusal = "it ended after the collector shut down"
        elif trace_id in self._recently_evicted:
            refusal = "its trace was evicted before it ended"
        if refusal is not None:
            if raw is not None:
                message = f"span {raw.name!r} not collected: {refusal}"
                rejections.append(
                    Rejection(
                        source=self.source, message=message, span_id=raw.span_id, trace_id=trace_id
                    )
                )
            return None
        buffered = self._open.get(trace_id)
        if buffered is None:
            buffered = self._open[trace_id] = _OpenTrace()
            self._evict_over_limit(rejections)
        if raw is None:
            buffered.unreadable += 1
        elif len(buffered.spans) < self._max_spans_per_trace:
            buffered.spans.append(raw)
        else:
            buffered.over_limit += 1
        return self._open.pop(trace_id) if is_root else None

    def _evict_over_limit(self, rejections: list[Rejection]) -> None:
        while len(self._open) > self._max_open_traces:
            evicted_id, evicted = self._open.popitem(last=False)
            self._evicted_traces += 1
            self._recently_evicted[evicted_id] = None
            if len(self._recently_evicted) > self._max_open_traces:
                self._recently_evicted.popitem(last=False)
            reason = f"evicted to keep at most {self._max_open_traces} open traces"
            rejections.append(self._unfinished(evicted_id, evicted, reason))

    def _assemble(
        self, trace_id: str, buffered: _OpenTrace, rejections: list[Rejection]
    ) -> list[Trace]:
        """The trace of a complete buffer, or nothing and its rejection in ``rejections``."""
        problem = None
        if buffered.unreadable:
            problem = f"{buffered.unreadable} of its spans could not be read (rejected above)"
        elif buffered.over_limit:
            problem = (
                f"{buffered.over_limit} spans over the limit of {self._max_spans_per_trace}"
                " per trace were not kept"
            )
        if problem is not None:
            message = f"trace {trace_id!r} not assembled: {problem}"
            rejections.append(Rejection(source=self.source, message=message, trace_id=trace_id))
            return []
        traces: list[Trace] = []
        try:
            for item in assemble_traces(buffered.spans, self.source):
                if isinstance(item, Trace):
                    traces.append(item)
                else:
                    rejections.append(item)
        except Exception as error:  # a bug in assembly must not break the instrumented app
            logger.exception("assembling trace %s failed", trace_id)
            message = f"trace {trace_id!r} not assembled: {type(error).__name__}: {error}"
            rejections.append(Rejection(source=self.source, message=message, trace_id=trace_id))
        return traces

    def _unfinished(self, trace_id: str, buffered: _OpenTrace, when: str) -> Rejection:
        count = len(buffered.spans) + buffered.over_limit + buffered.unreadable
        message = (
            f"trace {trace_id!r} not assembled: its root span had not ended ({when});"
            f" {count} span{'s' if count != 1 else ''} discarded"
        )
        return Rejection(source=self.source, message=message, trace_id=trace_id)

    def _deliver(self, traces: list[Trace], rejections: list[Rejection]) -> None:
        if not traces and not rejections:
            return
        if self._keep:
            with self._lock:
                self._traces.extend(traces)
                self._rejections.extend(rejections)
        # Callbacks run outside the lock, so one that creates spans cannot deadlock the collector.
        for trace in traces:
            if self._on_trace is not None:
                _call_reporting_errors(self._on_trace, trace, "on_trace")
        for rejection in rejections:
            if self._on_rejection is not None:
                _call_reporting_errors(self._on_rejection, rejection, "on_rejection")


def _call_reporting_errors(callback: Callable[[T], None], value: T, name: str) -> None:
    try:
        callback(value)
    except Exception:  # the app that ended the span must not see the callback's error
        logger.exception("TraceCollector %s callback raised", name)


def _trace_id_of(span: ReadableSpan) -> str | None:
    return None if span.context is None else f"{span.context.trace_id:032x}"
