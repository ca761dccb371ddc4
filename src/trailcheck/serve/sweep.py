"""Completing traces: the pending spans of every ready trace, with its pending GenAI log records
joined to them, become one stored Trace; a trace that cannot be made or stored is quarantined.

A trace is ready when its root span has ended and nothing of it (span or log record) arrived for
the settle time, or when nothing of it arrived for more than the idle timeout (the store answers
which: ``ready_pending``, in turns per request, so the traces of one big request do not hold up
those that came beside it). The settle time is there because an SDK exports log records apart
from spans: the root may arrive before the log records of the last model call. The ready traces
are taken ``batch_traces`` at a time: their spans and log records read with one query each, each
trace assembled, and all of them stored in one transaction (one commit, not one per trace);
when that fails, each is stored on its own, so one bad trace costs the others nothing. The
payloads are decoded (:mod:`trailcheck.serve.span_codec`, :mod:`trailcheck.serve.log_codec`),
each log record appended to its span's events
(:func:`~trailcheck.importing.log_join.join_log_events`, as ``trailcheck import`` does), and the
spans assembled with :func:`~trailcheck.importing.assemble.assemble_trace`. The redaction counts
its spans and log records carry (``serve --redact``) are added up in the trace's metadata
(:func:`~trailcheck.redaction.with_span_counts`).

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
from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Final

from trailcheck.errors import TrailcheckError
from trailcheck.importing.assemble import assemble_trace
from trailcheck.importing.log_join import LogTally, join_log_events
from trailcheck.importing.records import RawSpan
from trailcheck.redaction import with_span_counts
from trailcheck.serve.claims import TraceClaims
from trailcheck.serve.export import EXPORT_SOURCE
from trailcheck.serve.log_codec import decode_log_event
from trailcheck.serve.pending import PendingSpanStore
from trailcheck.serve.span_codec import decode_span
from trailcheck.store import PendingPayload
from trailcheck.store.pending import chunks
from trailcheck.trace import Trace

__all__ = ["DEFAULT_BATCH_TRACES", "SweepResult", "sweep_pending"]

# Traces completed per transaction.
DEFAULT_BATCH_TRACES: Final = 200

logger = logging.getLogger(__name__)


@dataclass
class SweepResult:
    """What one sweep completed: the stored trace ids, the quarantined ones with why, and how
    many GenAI log records of a trace were dropped (their span is not in it, or none of its
    spans arrived)."""

    stored: list[str] = field(default_factory=list)
    quarantined: dict[str, str] = field(default_factory=dict)
    dropped_logs: dict[str, int] = field(default_factory=dict)
    # True when the sweep took ``limit`` ready traces: more may be ready.
    more: bool = False

    def add(self, other: SweepResult) -> None:
        """Count ``other``'s traces in this one (a sweep of many rounds)."""
        self.stored += other.stored
        self.quarantined.update(other.quarantined)
        self.dropped_logs.update(other.dropped_logs)


def sweep_pending(
    store: PendingSpanStore,
    *,
    now_ns: int,
    idle_timeout_ns: int,
    settle_ns: int = 0,
    source: str = EXPORT_SOURCE,
    claims: TraceClaims | None = None,
    limit: int | None = None,
    batch_traces: int = DEFAULT_BATCH_TRACES,
) -> SweepResult:
    """Complete the traces that are ready at ``now_ns`` (at most ``limit``: then ``more``
    says whether that many were), quarantining each that fails. ``settle_ns`` is how long a
    trace whose root has ended waits for more of it (0: it is ready at once). ``claims`` are
    the server's (:mod:`trailcheck.serve.claims`): each batch's trace ids are claimed while it
    is read and completed, so requests for those traces wait, and no other."""
    result = SweepResult()
    ready = store.ready_pending(now_ns, idle_timeout_ns, settle_ns, limit)
    for batch in chunks(ready, batch_traces):
        with claims.claimed(batch) if claims is not None else nullcontext():
            _complete_batch(store, batch, source, result)
    result.more = limit is not None and len(ready) >= limit
    return result


def _complete_batch(
    store: PendingSpanStore, trace_ids: Sequence[str], source: str, result: SweepResult
) -> None:
    """Assemble each trace of the batch and store them all in one transaction; when that
    fails, each on its own."""
    spans = store.pending_payloads_of(trace_ids)
    logs = store.pending_log_payloads_of(trace_ids)
    assembled: list[tuple[Trace, int]] = []
    for trace_id in trace_ids:
        try:
            made = _assemble(trace_id, spans.get(trace_id), logs.get(trace_id), source)
        except Exception as error:  # noqa: BLE001 - one trace's failure, whatever it is
            _quarantine(store, trace_id, error, result)
            continue
        if made is None:
            _dropped_alone(store, trace_id, result)
        else:
            assembled.append(made)
    if not assembled:
        return
    try:
        store.complete_pending_traces([trace for trace, _ in assembled])
    except Exception:  # noqa: BLE001 - which trace (if any) is at fault is found one by one
        _complete_each(store, assembled, result)
        return
    for trace, unjoined in assembled:
        _stored(result, trace.trace_id, unjoined)


def _complete_each(
    store: PendingSpanStore, assembled: Sequence[tuple[Trace, int]], result: SweepResult
) -> None:
    for trace, unjoined in assembled:
        try:
            store.complete_pending(trace.trace_id, trace)
        except Exception as error:  # noqa: BLE001 - one trace's failure, whatever it is
            _quarantine(store, trace.trace_id, error, result)
        else:
            _stored(result, trace.trace_id, unjoined)


def _stored(result: SweepResult, trace_id: str, unjoined: int) -> None:
    result.stored.append(trace_id)
    _dropped(result, trace_id, unjoined, "their span is not in the trace")


def _assemble(
    trace_id: str,
    spans: list[PendingPayload] | None,
    logs: list[bytes] | None,
    source: str,
) -> tuple[Trace, int] | None:
    """The trace and how many of its log records named a span not in it; None when none of
    its spans is held."""
    if not spans:
        return None
    trace, unjoined = _assembled(spans, logs or [], source)
    if trace.trace_id != trace_id:
        raise ValueError(f"the spans of trace {trace_id!r} made trace {trace.trace_id!r}")
    return trace, unjoined


def _dropped_alone(store: PendingSpanStore, trace_id: str, result: SweepResult) -> None:
    """Log records alone, idle: their spans never came (or the trace was completed meanwhile
    by another process sweeping the same store, and nothing is left)."""
    try:
        count = store.drop_pending_logs(trace_id)
    except Exception as error:  # noqa: BLE001 - one trace's failure, whatever it is
        _quarantine(store, trace_id, error, result)
        return
    _dropped(result, trace_id, count, "none of its spans arrived")


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


def _assembled(
    payloads: list[PendingPayload], log_payloads: list[bytes], source: str
) -> tuple[Trace, int]:
    """The trace, and how many of its log records named a span not in it."""
    spans = [decode_span(payload.span, payload.origin) for payload in payloads]
    logs = [decode_log_event(payload) for payload in log_payloads]
    tally = LogTally()
    joined = join_log_events([*spans, *logs], tally)
    trace = assemble_trace([item for item in joined if isinstance(item, RawSpan)], source)
    return with_span_counts(trace), tally.unjoined
