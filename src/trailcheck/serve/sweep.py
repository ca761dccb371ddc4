"""Completing traces: the pending spans of every ready trace become one stored Trace, or one
recorded rejection.

A trace is ready when its root span has ended, or when its newest span arrived more than the
idle timeout ago (the store answers which: ``ready_pending``). Its payloads are decoded
(:mod:`trailcheck.serve.span_codec`) and assembled with
:func:`~trailcheck.ingest.assemble.assemble_trace`; a trace that does not assemble (an orphan
span whose parent never arrived, a bad attribute) is completed with the reason instead, so it
leaves the pending rows either way and is not retried forever. The server sweeps at startup,
which completes what an earlier process accepted, and then every few seconds; tests call
:func:`sweep_pending` directly with the time they choose.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field

from trailcheck.errors import RecordError
from trailcheck.ingest.assemble import assemble_trace
from trailcheck.serve.export import EXPORT_SOURCE
from trailcheck.serve.pending import PendingSpanStore
from trailcheck.serve.span_codec import decode_span
from trailcheck.trace import Trace

__all__ = ["SweepResult", "sweep_pending"]


@dataclass(frozen=True)
class SweepResult:
    """What one sweep completed: the stored trace ids, and the rejected ones with why."""

    stored: list[str] = field(default_factory=list)
    rejected: dict[str, str] = field(default_factory=dict)


def sweep_pending(
    store: PendingSpanStore,
    *,
    now_ns: int,
    idle_timeout_ns: int,
    source: str = EXPORT_SOURCE,
    lock: AbstractContextManager[object] | None = None,
) -> SweepResult:
    """Complete every trace that is ready at ``now_ns``. ``lock`` (reusable, such as a
    ``threading.Lock``) is held while each trace is read and completed, one trace at a time, so
    requests are not held up for a whole sweep."""
    result = SweepResult()
    for trace_id in store.ready_pending(now_ns, idle_timeout_ns):
        with lock or nullcontext():
            _complete(store, trace_id, source, result)
    return result


def _complete(store: PendingSpanStore, trace_id: str, source: str, result: SweepResult) -> None:
    payloads = store.pending_payloads(trace_id)
    if not payloads:
        return  # completed meanwhile (another process sweeping the same store)
    try:
        trace = _assembled(payloads, source)
    except RecordError as error:
        reason = f"trace {trace_id!r} not stored: {error}"
        store.complete_pending(trace_id, None, reason)
        result.rejected[trace_id] = reason
        return
    store.complete_pending(trace_id, trace, None)
    result.stored.append(trace_id)


def _assembled(payloads: list[bytes], source: str) -> Trace:
    return assemble_trace([decode_span(payload) for payload in payloads], source)
