"""Accepting decoded spans and GenAI log records into the store, and the sweep that completes
them, for one server.

Spans are written as pending rows (:class:`~trailcheck.serve.pending.PendingSpan`) in one
``add_pending`` call, log records in one ``add_pending_logs`` call, and the endpoint answers only
after it returned. Neither can join a trace that is already stored (a stored trace is whole): a
span whose id the stored trace holds, or a log record whose event the stored trace's span holds,
is a retry of what was accepted before and is taken as accepted; anything else is late, not
stored, and counted in the response's ``partial_success`` with the reason. Accepting a request
and completing a trace hold one lock, so within a server a trace cannot be completed between
that check and the write.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from trailcheck.importing.records import LogEvent, RawSpan
from trailcheck.serve.log_codec import encode_log_event, record_keys
from trailcheck.serve.pending import PendingSpanStore
from trailcheck.serve.span_codec import encode_span
from trailcheck.serve.sweep import SweepResult, sweep_pending
from trailcheck.store import PendingLogEvent, PendingSpan, UnknownTraceError
from trailcheck.trace import Trace

__all__ = ["Accepted", "Intake", "pending_log_events", "pending_span"]


@dataclass(frozen=True)
class Accepted:
    """The outcome of an export: how many spans (or log records) are stored, and how many were
    refused (late ones, of traces already stored), with why."""

    stored: int
    rejected: int = 0
    message: str = ""


def pending_span(span: RawSpan, received_ns: int) -> PendingSpan:
    """The pending row of a received span; a parentless span that has ended is a root_ended."""
    return PendingSpan(
        trace_id=span.trace_id,
        span_id=span.span_id,
        payload=encode_span(span),
        root_ended=span.parent_id is None and span.end_ns is not None,
        received_ns=received_ns,
    )


def pending_log_events(logs: Sequence[LogEvent], received_ns: int) -> list[PendingLogEvent]:
    """The pending rows of the GenAI log records of one request, in order, each with its key
    (:func:`~trailcheck.serve.log_codec.record_keys`)."""
    return [
        PendingLogEvent(log.trace_id, log.span_id, key, encode_log_event(log), received_ns)
        for log, key in zip(logs, record_keys(logs), strict=True)
    ]


def _accepted(stored: int, late_traces: Sequence[str], what: str) -> Accepted:
    if not late_traces:
        return Accepted(stored=stored)
    traces = sorted(set(late_traces))
    shown = ", ".join(repr(trace_id) for trace_id in traces[:3])
    more = f" and {len(traces) - 3} more" if len(traces) > 3 else ""
    message = (
        f"{len(late_traces)} {what} arrived after their trace was complete and stored"
        f" (trace {shown}{more}); a stored trace is not changed"
    )
    return Accepted(stored=stored, rejected=len(late_traces), message=message)


@dataclass
class Intake:
    """One server's access to the store: accept spans and log records, sweep ready traces."""

    store: PendingSpanStore
    idle_timeout_ns: int
    clock: Callable[[], int]
    # How long a trace whose root has ended waits for more of it (log records are exported
    # apart from spans); 0 completes it at the next sweep.
    settle_ns: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def accept(self, spans: Sequence[RawSpan]) -> Accepted:
        """Store the spans as pending, durably, except late spans of stored traces."""
        with self._lock:
            fresh, late = self._split_late(spans)
            received_ns = self.clock()
            rows = [pending_span(span, received_ns) for span in fresh]
            if rows:
                self.store.add_pending(rows)
        return _accepted(len(rows), [span.trace_id for span in late], "span(s)")

    def accept_logs(self, logs: Sequence[LogEvent]) -> Accepted:
        """Store the GenAI log records as pending, durably, except late ones of stored traces."""
        with self._lock:
            fresh, late = self._split_late_logs(logs)
            rows = pending_log_events(fresh, self.clock())
            if rows:
                self.store.add_pending_logs(rows)
        return _accepted(len(rows), [log.trace_id for log in late], "GenAI log record(s)")

    def sweep(self) -> SweepResult:
        """Complete the traces ready now, holding the lock one trace at a time."""
        return sweep_pending(
            self.store,
            now_ns=self.clock(),
            idle_timeout_ns=self.idle_timeout_ns,
            settle_ns=self.settle_ns,
            lock=self._lock,
        )

    def _split_late(self, spans: Sequence[RawSpan]) -> tuple[list[RawSpan], list[RawSpan]]:
        """The spans to store, and the late ones; retries of stored spans are in neither."""
        stored = self._stored_traces(span.trace_id for span in spans)
        known = {trace_id: {s.span_id for s in trace.spans} for trace_id, trace in stored.items()}
        fresh: list[RawSpan] = []
        late: list[RawSpan] = []
        for span in spans:
            if span.trace_id not in known:
                fresh.append(span)
            elif span.span_id not in known[span.trace_id]:
                late.append(span)
        return fresh, late

    def _split_late_logs(self, logs: Sequence[LogEvent]) -> tuple[list[LogEvent], list[LogEvent]]:
        """The log records to store, and the late ones; retries of records the stored trace
        holds (the same event on the same span) are in neither."""
        stored = self._stored_traces(log.trace_id for log in logs)
        events = {
            (trace_id, span.span_id): span.events
            for trace_id, trace in stored.items()
            for span in trace.spans
        }
        fresh: list[LogEvent] = []
        late: list[LogEvent] = []
        for log in logs:
            if log.trace_id not in stored:
                fresh.append(log)
            elif log.event not in events.get((log.trace_id, log.span_id), ()):
                late.append(log)
        return fresh, late

    def _stored_traces(self, trace_ids: Iterable[str]) -> dict[str, Trace]:
        """The stored traces among ``trace_ids``, by id."""
        found: dict[str, Trace] = {}
        for trace_id in dict.fromkeys(trace_ids):
            try:
                trace = self.store.get_trace(trace_id)
            except UnknownTraceError:
                continue
            if trace is not None:
                found[trace_id] = trace
        return found
