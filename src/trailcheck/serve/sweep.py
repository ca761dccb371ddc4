"""Completing traces: the pending spans of every ready trace, with its pending GenAI log records
joined to them, become one stored Trace, or one recorded rejection.

A trace is ready when its root span has ended and nothing of it (span or log record) arrived for
the settle time, or when nothing of it arrived for more than the idle timeout (the store answers
which: ``ready_pending``). The settle time is there because an SDK exports log records apart
from spans: the root may arrive before the log records of the last model call. The payloads are
decoded (:mod:`trailcheck.serve.span_codec`, :mod:`trailcheck.serve.log_codec`), each log record
appended to its span's events (:func:`~trailcheck.ingest.log_join.join_log_events`, as
``trailcheck import`` does), and the spans assembled with
:func:`~trailcheck.ingest.assemble.assemble_trace`; a trace that does not assemble (an orphan
span whose parent never arrived, a bad attribute) is completed with the reason instead, so it
leaves the pending rows either way and is not retried forever.

Log records are dropped, and counted in :attr:`SweepResult.dropped_logs` and the server log,
when their span is not in the assembled trace, or when their trace idles with none of its spans
received. The server sweeps at startup, which completes what an earlier process accepted, and
then every second or so; tests call :func:`sweep_pending` directly with the time they choose.
"""

from __future__ import annotations

import logging
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field

from trailcheck.errors import RecordError
from trailcheck.ingest.assemble import assemble_trace
from trailcheck.ingest.log_join import LogTally, join_log_events
from trailcheck.ingest.records import RawSpan
from trailcheck.serve.export import EXPORT_SOURCE
from trailcheck.serve.log_codec import decode_log_event
from trailcheck.serve.pending import PendingSpanStore
from trailcheck.serve.span_codec import decode_span
from trailcheck.trace import Trace

__all__ = ["SweepResult", "sweep_pending"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class SweepResult:
    """What one sweep completed: the stored trace ids, the rejected ones with why, and how
    many GenAI log records of a trace were dropped (their span is not in it, or none of its
    spans arrived)."""

    stored: list[str] = field(default_factory=list)
    rejected: dict[str, str] = field(default_factory=dict)
    dropped_logs: dict[str, int] = field(default_factory=dict)


def sweep_pending(
    store: PendingSpanStore,
    *,
    now_ns: int,
    idle_timeout_ns: int,
    settle_ns: int = 0,
    source: str = EXPORT_SOURCE,
    lock: AbstractContextManager[object] | None = None,
) -> SweepResult:
    """Complete every trace that is ready at ``now_ns``. ``settle_ns`` is how long a trace
    whose root has ended waits for more of it (0: it is ready at once). ``lock`` (reusable,
    such as a ``threading.Lock``) is held while each trace is read and completed, one trace at
    a time, so requests are not held up for a whole sweep."""
    result = SweepResult()
    for trace_id in store.ready_pending(now_ns, idle_timeout_ns, settle_ns):
        with lock or nullcontext():
            _complete(store, trace_id, source, result)
    return result


def _complete(store: PendingSpanStore, trace_id: str, source: str, result: SweepResult) -> None:
    payloads = store.pending_payloads(trace_id)
    if not payloads:
        # Log records alone, idle: their spans never came (or the trace was completed
        # meanwhile by another process sweeping the same store, and nothing is left).
        _dropped(result, trace_id, store.drop_pending_logs(trace_id), "none of its spans arrived")
        return
    try:
        trace, unjoined = _assembled(payloads, store.pending_log_payloads(trace_id), source)
    except RecordError as error:
        reason = f"trace {trace_id!r} not stored: {error}"
        store.complete_pending(trace_id, None, reason)
        result.rejected[trace_id] = reason
        return
    store.complete_pending(trace_id, trace, None)
    result.stored.append(trace_id)
    _dropped(result, trace_id, unjoined, "their span is not in the trace")


def _dropped(result: SweepResult, trace_id: str, count: int, why: str) -> None:
    if not count:
        return
    result.dropped_logs[trace_id] = count
    logger.warning("dropped %d GenAI log record(s) of trace %r: %s", count, trace_id, why)


def _assembled(payloads: list[bytes], log_payloads: list[bytes], source: str) -> tuple[Trace, int]:
    """The trace, and how many of its log records named a span not in it."""
    spans = [decode_span(payload) for payload in payloads]
    logs = [decode_log_event(payload) for payload in log_payloads]
    tally = LogTally()
    joined = join_log_events([*spans, *logs], tally)
    trace = assemble_trace([item for item in joined if isinstance(item, RawSpan)], source)
    return trace, tally.unjoined
