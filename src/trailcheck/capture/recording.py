"""The spans of one recorded run, and which span is current in each asyncio task or thread.

A :class:`Recording` is the mutable, lock-protected side of a run; the :class:`Recorder` and the
tool wrappers add spans to it, and closing it yields the spans of the Trace. Which recording and
span are current lives in a :class:`~contextvars.ContextVar`, so each asyncio task (and each
thread started with a copied context, as ``asyncio.to_thread`` does) sees its own: two runs
recorded at once never mix, and a span started inside another gets it as parent.
"""

from __future__ import annotations

import threading
import time
import traceback
import warnings
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from trailcheck.capture.ids import IdFactory, checked_span_id
from trailcheck.trace import (
    ModelInvocation,
    Span,
    SpanEvent,
    SpanKind,
    Status,
    ToolInvocation,
    Usage,
    summed_usage,
)

# Attribute naming the fields whose recorded value is a repr() (see trailcheck.capture.jsonable).
REPR_FIELDS_ATTRIBUTE = "trailcheck.capture.repr_fields"


@dataclass(slots=True)
class OpenSpan:
    """A span that has started. Its owner (one call, one ``with`` block) fills it in as it goes;
    the start time is wall-clock, the duration is measured with ``perf_counter_ns``."""

    span_id: str
    parent_id: str | None
    name: str
    kind: SpanKind
    start_ns: int
    start_perf_ns: int
    attributes: dict[str, Any] = field(default_factory=dict)
    events: list[SpanEvent] = field(default_factory=list)
    tool: ToolInvocation | None = None
    llm: ModelInvocation | None = None

    def now_ns(self) -> int:
        """The current time on this span's clock: its start plus the precise elapsed time."""
        return self.start_ns + time.perf_counter_ns() - self.start_perf_ns

    def mark_repr_field(self, field_name: str) -> None:
        """Note that ``field_name`` (``arguments.x``, ``result``) holds a ``repr()`` text."""
        self.attributes.setdefault(REPR_FIELDS_ATTRIBUTE, []).append(field_name)

    def to_span(self, trace_id: str, *, end_ns: int | None, status: Status) -> Span:
        return Span(
            trace_id=trace_id,
            span_id=self.span_id,
            parent_id=self.parent_id,
            name=self.name,
            kind=self.kind,
            start_ns=self.start_ns,
            end_ns=end_ns,
            status=status,
            attributes=self.attributes,
            events=self.events,
            tool=self.tool,
            llm=self.llm,
        )


@dataclass(frozen=True, slots=True)
class Scope:
    """Where new spans go in the current context: this recording, under this span."""

    recording: Recording
    span_id: str


CURRENT_SCOPE: ContextVar[Scope | None] = ContextVar("trailcheck_capture_scope", default=None)


def describe_error(error: BaseException) -> str:
    """``ValueError: bad id``, as OpenTelemetry's SDK words a span's error status."""
    message = str(error)
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


def _qualified_name(error_type: type[BaseException]) -> str:
    module = error_type.__module__
    return (
        error_type.__qualname__ if module == "builtins" else f"{module}.{error_type.__qualname__}"
    )


def exception_event(error: BaseException, time_ns: int, **extra: Any) -> SpanEvent:
    """An ``exception`` event with the OpenTelemetry attributes: type, message, stack trace."""
    return SpanEvent(
        name="exception",
        time_ns=time_ns,
        attributes={
            "exception.type": _qualified_name(type(error)),
            "exception.message": str(error),
            "exception.stacktrace": "".join(traceback.format_exception(error)),
            **extra,
        },
    )


class Recording:
    """The spans of one run. Thread-safe: spans start and end from any task or thread.

    Start times are strictly increasing in start order (a tie with the previous start is moved
    on by 1 ns), so start order is call order even on a coarse clock; tool spans also carry an
    explicit ``sequence``. Closing the recording ends it: spans still open are kept as
    unfinished (``end_ns`` absent), and spans that start or end afterwards are not recorded,
    with a :class:`RuntimeWarning` that names them.
    """

    def __init__(self, trace_id: str, ids: IdFactory) -> None:
        self.trace_id = trace_id
        self._ids = ids
        self._lock = threading.Lock()
        self._open: dict[str, OpenSpan] = {}
        self._finished: list[Span] = []
        self._closed = False
        self._last_start_ns = 0
        self._tool_calls_started = 0

    def start_span(
        self,
        *,
        name: str,
        kind: SpanKind,
        parent_id: str | None,
        attributes: dict[str, Any] | None = None,
        tool: ToolInvocation | None = None,
        llm: ModelInvocation | None = None,
    ) -> OpenSpan | None:
        """A new open span; ``None`` (with a warning) when the recording has already closed."""
        span_id = checked_span_id(self._ids.span_id())
        with self._lock:
            if self._closed:
                closed = True
            else:
                closed = False
                start_ns = max(time.time_ns(), self._last_start_ns + 1)
                self._last_start_ns = start_ns
                if tool is not None:
                    tool = tool.model_copy(update={"sequence": self._tool_calls_started})
                    self._tool_calls_started += 1
                span = OpenSpan(
                    span_id=span_id,
                    parent_id=parent_id,
                    name=name,
                    kind=kind,
                    start_ns=start_ns,
                    start_perf_ns=time.perf_counter_ns(),
                    attributes=dict(attributes or {}),
                    tool=tool,
                    llm=llm,
                )
                self._open[span_id] = span
        if closed:
            warnings.warn(
                f"span {name!r} started after the recording of trace {self.trace_id} closed;"
                " it is not recorded (a task or thread outlived the run)",
                RuntimeWarning,
                stacklevel=3,
            )
            return None
        return span

    def end_span(
        self,
        span: OpenSpan,
        *,
        error: BaseException | None = None,
        add_exception_event: bool = True,
    ) -> None:
        """End ``span``: ok, or error with an ``exception`` event (unless the caller has added
        one) and, on a tool span, the tool's error."""
        end_ns = span.now_ns()
        if error is None:
            status = Status(code="ok")
        else:
            status = Status(code="error", message=describe_error(error))
            if add_exception_event:
                span.events.append(exception_event(error, end_ns))
            if span.tool is not None:
                span.tool = span.tool.model_copy(update={"error": status.message})
        finished = span.to_span(self.trace_id, end_ns=end_ns, status=status)
        with self._lock:
            closed = self._closed
            if not closed:
                del self._open[span.span_id]
                self._finished.append(finished)
        if closed:
            warnings.warn(
                f"span {span.name!r} ended after the recording of trace {self.trace_id} closed;"
                " the trace keeps it as unfinished",
                RuntimeWarning,
                stacklevel=3,
            )

    def close(self) -> list[Span]:
        """End the recording: every span, in start order, open ones as unfinished."""
        with self._lock:
            self._closed = True
            unfinished = [
                span.to_span(self.trace_id, end_ns=None, status=Status())
                for span in self._open.values()
            ]
            spans = self._finished + unfinished
        return sorted(spans, key=lambda span: span.start_ns)


def trace_usage(spans: list[Span], root_id: str) -> Usage:
    """Tokens and cost as every source sums them (:func:`trailcheck.trace.usage.summed_usage`:
    a model call instrumented twice counts once); latency, the duration of the run's root span."""
    root = next(span for span in spans if span.span_id == root_id)
    duration = root.duration_ns
    summed = summed_usage(spans) or Usage()
    return summed.model_copy(update={"latency_ms": None if duration is None else duration / 1e6})
