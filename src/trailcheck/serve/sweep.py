"""Completing traces: the pending spans of every ready trace, with its pending GenAI log records
joined to them, become one stored Trace; a trace that cannot be made or stored is quarantined.

A trace is ready when its root span has ended and nothing of it (span or log record) arrived for
the settle time, or when nothing of it arrived for more than the idle timeout (the store answers
which: ``ready_pending``). The settle time is there because an SDK exports log records apart
from spans: the root may arrive before the log records of the last model call. The payloads are
decoded (:mod:`trailcheck.serve.span_codec`, :mod:`trailcheck.serve.log_codec`), each log record
appended to its span's events (:func:`~trailcheck.importing.log_join.join_log_events`, as
``trailcheck import`` does), and the spans assembled with
:func:`~trailcheck.importing.assemble.assemble_trace`.

**Poison isolation.** Whatever goes wrong with one trace (an orphan span whose parent never
arrived, a bad attribute, a value the store cannot hold, a conflicting stored trace, a damaged
payload, a bug) is that trace's failure, not the sweep's: the trace is quarantined with the
reason (:meth:`PendingSpanStore.quarantine_pending`; its spans and log records are kept, so
nothing acknowledged is lost), the server log says so, and the sweep goes on with the others. A
quarantined trace is not ready again until an operator retries it (``trailcheck pending retry``),
so the sweep never spins on one trace. Only a store that cannot record the quarantine either
leaves the trace pending, for the next sweep, logged.

Log records are dropped, and counted in :attr:`SweepResult.dropped_logs` and the server log,
when their span is not in the assembled trace, or when their trace idles with none of its spans
received. The server sweeps at startup, which completes what an earlier process accepted, and
then every second or so; tests call :func:`sweep_pending` directly with the time they choose.
"""

from __future__ import annotations

import logging
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field

from trailcheck.errors import TrailcheckError
from trailcheck.importing.assemble import assemble_trace
from trailcheck.importing.log_join import LogTally, join_log_events
from trailcheck.importing.records import RawSpan
from trailcheck.serve.export import EXPORT_SOURCE
from trailcheck.serve.log_codec import decode_log_event
from trailcheck.serve.pending import PendingSpanStore
from trailcheck.serve.span_codec import decode_span
from trailcheck.trace import Trace

__all__ = ["SweepResult", "sweep_pending"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class SweepResult:
    """What one sweep completed: the stored trace ids, the quarantined ones with why, and how
    many GenAI log records of a trace were dropped (their span is not in it, or none of its
    spans arrived)."""

    stored: list[str] = field(default_factory=list)
    quarantined: dict[str, str] = field(default_factory=dict)
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
    """Complete every trace that is ready at ``now_ns``, quarantining each that fails.
    ``settle_ns`` is how long a trace whose root has ended waits for more of it (0: it is ready
    at once). ``lock`` (reusable, such as a ``threading.Lock``) is held while each trace is
    read and completed, one trace at a time, so requests are not held up for a whole sweep."""
    result = SweepResult()
    for trace_id in store.ready_pending(now_ns, idle_timeout_ns, settle_ns):
        with lock or nullcontext():
            try:
                _complete(store, trace_id, source, result)
            except Exception as error:  # noqa: BLE001 - one trace's failure, whatever it is
                _quarantine(store, trace_id, error, result)
    return result


def _complete(store: PendingSpanStore, trace_id: str, source: str, result: SweepResult) -> None:
    payloads = store.pending_payloads(trace_id)
    if not payloads:
        # Log records alone, idle: their spans never came (or the trace was completed
        # meanwhile by another process sweeping the same store, and nothing is left).
        _dropped(result, trace_id, store.drop_pending_logs(trace_id), "none of its spans arrived")
        return
    trace, unjoined = _assembled(payloads, store.pending_log_payloads(trace_id), source)
    store.complete_pending(trace_id, trace)
    result.stored.append(trace_id)
    _dropped(result, trace_id, unjoined, "their span is not in the trace")


def _reason(error: Exception) -> str:
    """Why a trace was quarantined: a trailcheck error's own message (it names the span and
    field), or any other exception's type and message."""
    if isinstance(error, TrailcheckError):
        return str(error)
    return f"{type(error).__name__}: {error}"


def _quarantine(
    store: PendingSpanStore, trace_id: str, error: Exception, result: SweepResult
) -> None:
    reason = _reason(error)
    try:
        store.quarantine_pending(trace_id, reason)
    # Whatever the store raised, the sweep goes on with the other traces (issue 22): this one
    # is logged with its traceback and stays pending, so nothing is lost and it is retried.
    except Exception:
        logger.exception(
            "trace %r could not be completed (%s), nor quarantined: it stays pending and is"
            " tried again at the next sweep",
            trace_id,
            reason,
        )
        return
    result.quarantined[trace_id] = reason
    logger.warning(
        "trace %r quarantined: %s; its spans and log records are kept (trailcheck pending show %s)",
        trace_id,
        reason,
        trace_id,
        # A trailcheck error explains itself; anything else is a bug worth its traceback.
        exc_info=None if isinstance(error, TrailcheckError) else error,
    )


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
