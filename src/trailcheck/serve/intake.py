"""Accepting decoded spans into the store, and the sweep that completes them, for one server.

Spans are written as pending rows (:class:`~trailcheck.serve.pending.PendingSpan`) in one
``add_pending`` call, and the endpoint answers only after it returned. A span of a trace that is
already stored cannot join it (a stored trace is whole): if the stored trace already holds that
span id, the span is a retry of what was accepted before and is taken as accepted; otherwise it
is a late span, not stored, and counted in the response's ``partial_success`` with the reason.
Accepting a request and completing a trace hold one lock, so within a server a trace cannot be
completed between that check and the write.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from trailcheck.ingest.records import RawSpan
from trailcheck.serve.pending import PendingSpanStore
from trailcheck.serve.span_codec import encode_span
from trailcheck.serve.sweep import SweepResult, sweep_pending
from trailcheck.store import PendingSpan, UnknownTraceError
from trailcheck.trace import Trace

__all__ = ["Accepted", "Intake", "pending_span"]


@dataclass(frozen=True)
class Accepted:
    """The outcome of an export: how many spans are stored, and how many were refused (late
    spans of traces already stored), with why."""

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


@dataclass
class Intake:
    """One server's access to the store: accept spans, sweep ready traces."""

    store: PendingSpanStore
    idle_timeout_ns: int
    clock: Callable[[], int]
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def accept(self, spans: Sequence[RawSpan]) -> Accepted:
        """Store the spans as pending, durably, except late spans of stored traces."""
        with self._lock:
            fresh, late = self._split_late(spans)
            received_ns = self.clock()
            rows = [pending_span(span, received_ns) for span in fresh]
            if rows:
                self.store.add_pending(rows)
        if not late:
            return Accepted(stored=len(rows))
        traces = sorted({span.trace_id for span in late})
        shown = ", ".join(repr(trace_id) for trace_id in traces[:3])
        more = f" and {len(traces) - 3} more" if len(traces) > 3 else ""
        message = (
            f"{len(late)} span(s) arrived after their trace was complete and stored"
            f" (trace {shown}{more}); a stored trace is not changed"
        )
        return Accepted(stored=len(rows), rejected=len(late), message=message)

    def sweep(self) -> SweepResult:
        """Complete the traces ready now, holding the lock one trace at a time."""
        return sweep_pending(
            self.store, now_ns=self.clock(), idle_timeout_ns=self.idle_timeout_ns, lock=self._lock
        )

    def _split_late(self, spans: Sequence[RawSpan]) -> tuple[list[RawSpan], list[RawSpan]]:
        """The spans to store, and the late ones; retries of stored spans are in neither."""
        stored_ids: dict[str, set[str] | None] = {}
        fresh: list[RawSpan] = []
        late: list[RawSpan] = []
        for span in spans:
            if span.trace_id not in stored_ids:
                trace = self._stored_trace(span.trace_id)
                stored_ids[span.trace_id] = (
                    None if trace is None else {member.span_id for member in trace.spans}
                )
            known = stored_ids[span.trace_id]
            if known is None:
                fresh.append(span)
            elif span.span_id not in known:
                late.append(span)
        return fresh, late

    def _stored_trace(self, trace_id: str) -> Trace | None:
        try:
            return self.store.get_trace(trace_id)
        except UnknownTraceError:
            return None
