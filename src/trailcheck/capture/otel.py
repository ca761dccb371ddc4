"""Traces from any OpenTelemetry-instrumented agent, collected in-process.

::

    provider = TracerProvider()
    collector = TraceCollector()
    provider.add_span_processor(collector)
    ...  # run an agent instrumented with OpenTelemetry (ADK, LangGraph, OpenAI Agents SDK)
    [trace] = collector.traces

The collector notes each span as it starts and reads it as a
:class:`~trailcheck.importing.records.RawSpan` when it ends, buffering it with the other spans of
its trace. A trace is complete when a local root (a span with no parent in this process) has ended
and every span that started in the trace has ended too; it is then assembled with
:func:`trailcheck.importing.assemble.assemble_traces`, through the same conventions as the OTLP
importers. Nothing raises into the instrumented application, and nothing is dropped silently:
every span ends up in a Trace or in a Rejection, and a trace never comes out with spans missing.

- A span that never ends keeps its trace from completing: the trace stays open until it is
  evicted or the collector shuts down, and is then rejected, since delivering it would leave
  that span out.
- One trace id gives one Trace: spans under two local roots (two requests of a distributed trace
  handled here at once, each with a remote parent) come out together, a Trace with several
  roots (``trace.tree.roots``), once both subtrees have ended. A span of the trace that starts
  after it was delivered starts a new buffer: under a new remote parent it is a new Trace with
  the same id; under an ended local span it is an orphan, rejected.
- A trace that cannot be assembled (a bad span, an orphan, a span over
  ``max_spans_per_trace``) becomes a Rejection; so does each span that cannot be read, and then
  its trace as a whole. So does a trace with a span that ended without the collector having seen
  it start (the collector was added to the provider during the trace, or an earlier part of the
  trace was evicted and forgotten, see below): spans of it may have ended unseen.
- Spans of unfinished traces are held in at most ``max_open_traces`` buffers; opening one more
  evicts the one least recently active, which becomes a Rejection and is counted in
  ``evicted_traces``. An evicted trace is remembered with the spans of it still running, and
  each of them (and each span that starts in it later) is rejected as it ends; it is forgotten
  when none is left running. At most ``max_open_traces`` evicted traces are remembered: when more
  are, the oldest is forgotten, and the spans of it that end later make a buffer whose starts the
  collector did not see, rejected whole as above. Forgetting changes how the rest of a trace is
  rejected, never whether it is.
- ``force_flush`` has nothing to do: completed traces are delivered as their last span ends, in
  the thread that ended it, and open traces stay open since their spans may still end.
- ``shutdown`` turns every open trace into a Rejection and clears the buffers; spans that end
  later are rejected.

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
from opentelemetry.trace import SpanContext

from trailcheck.capture.otel_spans import is_local_root, raw_span_from_otel
from trailcheck.errors import RecordError, UsageError
from trailcheck.importing.assemble import assemble_traces
from trailcheck.importing.records import RawSpan, Rejection
from trailcheck.trace import Trace

logger = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass(slots=True)
class _OpenTrace:
    spans: list[RawSpan] = field(default_factory=list)
    running: set[str] = field(default_factory=set)  # ids of spans started here, not yet ended
    roots_ended: int = 0  # local roots among the ended spans
    unseen_starts: int = 0  # spans that ended without this buffer having seen them start
    over_limit: int = 0  # spans past max_spans_per_trace, counted, not kept
    unreadable: int = 0  # spans that could not be read, each already a Rejection

    @property
    def complete(self) -> bool:
        return self.roots_ended > 0 and not self.running


class TraceCollector(SpanProcessor):
    """An OpenTelemetry SDK span processor that assembles each Trace once all of its spans
    have ended.

    Thread-safe: the SDK calls ``on_start`` and ``on_end`` from whichever thread starts or ends
    a span. See the module docstring for what happens to unfinished, late and bad traces.
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
        self._open: OrderedDict[str, _OpenTrace] = OrderedDict()  # least recently active first
        self._traces: list[Trace] = []
        self._rejections: list[Rejection] = []
        self._evicted_traces = 0
        # Evicted traces with spans still running: trace id -> those spans' ids (oldest first).
        self._evicted: OrderedDict[str, set[str]] = OrderedDict()
        self._shut_down = False

    # -- what was collected ----------------------------------------------------------------

    @property
    def traces(self) -> list[Trace]:
        """The traces assembled so far (a copy), in the order they completed."""
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
        """How many unfinished traces are buffered (spans running, or no local root ended)."""
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
        """Note the span as running in its trace, which is not complete until it ends."""
        if span.context is None:
            return
        trace_id, span_id = _ids_of(span.context)
        rejections: list[Rejection] = []
        with self._lock:
            if self._shut_down:
                return
            evicted_running = self._evicted.get(trace_id)
            if evicted_running is not None:
                evicted_running.add(span_id)  # rejected when it ends, like the rest of its trace
            else:
                self._buffer(trace_id, rejections).running.add(span_id)
        self._deliver([], rejections)

    def on_end(self, span: ReadableSpan) -> None:
        if span.context is None:
            return  # the SDK never ends a span without a context; there is nothing to file it by
        trace_id, span_id = _ids_of(span.context)
        try:
            raw: RawSpan | None = raw_span_from_otel(span, self.source)
            rejections: list[Rejection] = []
        except RecordError as error:
            raw, rejections = None, [Rejection.from_error(error, trace_id=trace_id)]
        with self._lock:
            complete = self._take(trace_id, span_id, raw, is_local_root(span), rejections)
        traces: list[Trace] = []
        if complete is not None:
            traces = self._assemble(trace_id, complete, rejections)
        self._deliver(traces, rejections)

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        """Always True at once: completed traces are delivered when their last span ends."""
        return True

    def shutdown(self) -> None:
        """Reject every open trace (unfinished) and clear the buffers."""
        with self._lock:
            self._shut_down = True
            unfinished, self._open = self._open, OrderedDict()
            self._evicted.clear()  # every span that ends from now on is rejected anyway
        self._deliver(
            [],
            [
                self._unfinished(tid, buffered, "unfinished at shutdown")
                for tid, buffered in unfinished.items()
            ],
        )

    # -- internals -------------------------------------------------------------------------

    def _take(
        self,
        trace_id: str,
        span_id: str,
        raw: RawSpan | None,
        is_root: bool,
        rejections: list[Rejection],
    ) -> _OpenTrace | None:
        """Buffer one ended span (lock held; ``raw`` is None when it could not be read); the
        trace's buffer when this span completed it. Rejections found go to ``rejections``."""
        refusal = None
        if self._shut_down:
            refusal = "it ended after the collector shut down"
        elif trace_id in self._evicted:
            refusal = "its trace was evicted before it ended"
            running = self._evicted[trace_id]
            running.discard(span_id)
            if not running:  # nothing of it left to reject: see the module docstring
                del self._evicted[trace_id]
        if refusal is not None:
            if raw is not None:
                message = f"span {raw.name!r} not collected: {refusal}"
                rejections.append(
                    Rejection(
                        source=self.source, message=message, span_id=span_id, trace_id=trace_id
                    )
                )
            return None
        buffered = self._buffer(trace_id, rejections)
        if span_id in buffered.running:
            buffered.running.remove(span_id)
        else:
            buffered.unseen_starts += 1
        if raw is None:
            buffered.unreadable += 1
        elif len(buffered.spans) < self._max_spans_per_trace:
            buffered.spans.append(raw)
        else:
            buffered.over_limit += 1
        if is_root:
            buffered.roots_ended += 1
        return self._open.pop(trace_id) if buffered.complete else None

    def _buffer(self, trace_id: str, rejections: list[Rejection]) -> _OpenTrace:
        """The open buffer of ``trace_id``, made (evicting over the limit) when there is none,
        and marked as the most recently active (lock held)."""
        buffered = self._open.get(trace_id)
        if buffered is not None:
            self._open.move_to_end(trace_id)
            return buffered
        buffered = self._open[trace_id] = _OpenTrace()
        while len(self._open) > self._max_open_traces:
            evicted_id, evicted = self._open.popitem(last=False)
            self._evicted_traces += 1
            if evicted.running:
                self._evicted[evicted_id] = evicted.running
                if len(self._evicted) > self._max_open_traces:
                    self._evicted.popitem(last=False)
            rejections.append(self._unfinished(evicted_id, evicted, self._eviction_reason()))
        return buffered

    def _eviction_reason(self) -> str:
        limit = self._max_open_traces
        return f"evicted to keep at most {limit} open trace{'s' if limit != 1 else ''}"

    def _assemble(
        self, trace_id: str, buffered: _OpenTrace, rejections: list[Rejection]
    ) -> list[Trace]:
        """The trace of a complete buffer, or nothing and its rejection in ``rejections``."""
        problem = None
        if buffered.unseen_starts:
            problem = (
                f"{buffered.unseen_starts} of its spans started before the collector saw them"
                " start (it was added during the trace, or part of the trace was evicted), so"
                " spans of it may be missing"
            )
        elif buffered.unreadable:
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

    def _unfinished(self, trace_id: str, buffered: _OpenTrace, why: str) -> Rejection:
        ended = len(buffered.spans) + buffered.over_limit + buffered.unreadable
        running = len(buffered.running)
        if running:
            state = f"{running} still running (each rejected as it ends)"
        else:
            state = "no local root span had ended"
        message = (
            f"trace {trace_id!r} not assembled: {why}; {ended} ended"
            f" span{'s' if ended != 1 else ''} discarded, {state}"
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


def _ids_of(context: SpanContext) -> tuple[str, str]:
    return f"{context.trace_id:032x}", f"{context.span_id:016x}"
