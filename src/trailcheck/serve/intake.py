"""Accepting decoded spans and GenAI log records into the store, and the sweep that completes
them, for one server.

A request is taken in two steps. First every span is encoded, as it is decoded, into its
compact pending row (:class:`~trailcheck.store.PendingSpan`: its own fields, and its resource
and scope once for all the spans that share them), so a bad span refuses the request before
anything is stored and the request's spans are held in memory at about the size they will take
in the store. Then the rows are written in batches of ``batch_spans``: each batch's trace ids
are claimed (:mod:`trailcheck.serve.claims`), the stored traces among them and the held spans
among its keys looked up with one query each, the batch sorted (:mod:`trailcheck.serve.arrivals`:
new, a retry, late, or a conflicting version), and the new spans and conflicting versions
written in one ``add_pending`` call. The endpoint answers only after the last batch returned.

A claim holds only its batch's trace ids, so a request of 100,000 traces holds up neither
another request nor the sweep of another trace. Within a server a trace cannot be completed
between a batch's look-up and its write. A store that fails mid-request leaves the batches
before it held; the exporter retries the request (a 503), and those spans come back as retries.

With a redactor (``serve --redact``), each span and log record is redacted as it is decoded,
before its pending row is made (:mod:`trailcheck.redaction.spans`): what the store holds, the
pending rows, the conflicting versions kept aside and the traces made of them, never held the
content redacted away. Redaction is deterministic, so a retry is still known as a retry.

Log records go the same way, in batches, against the stored traces: a record whose event the
stored trace's span holds is a retry, anything else of a stored trace is late. Late spans, late
log records and conflicting versions are counted in the response's ``partial_success`` with
the reason, in the server's counters (:mod:`trailcheck.serve.metrics`), and in the server log.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Final

from trailcheck.importing.records import LogEvent, RawSpan
from trailcheck.redaction import Redactor, SpanRedaction, redact_log
from trailcheck.serve.arrivals import Arrivals, sort_arrivals
from trailcheck.serve.claims import TraceClaims
from trailcheck.serve.export import EXPORT_SOURCE
from trailcheck.serve.log_codec import encode_log_event, record_keys
from trailcheck.serve.metrics import ServeCounts
from trailcheck.serve.pending import PendingSpanStore
from trailcheck.serve.span_codec import SpanParts
from trailcheck.serve.sweep import SweepResult, sweep_pending
from trailcheck.store import PendingLogEvent, PendingOrigin, PendingSpan, SpanConflict
from trailcheck.store.pending import chunks

__all__ = [
    "DEFAULT_BATCH_SPANS",
    "DEFAULT_SWEEP_ROUND",
    "Accepted",
    "Intake",
    "pending_log_events",
    "pending_span",
]

# Spans (log records) written per batch: one look-up of each kind and one write each.
DEFAULT_BATCH_SPANS: Final = 1000
# Traces the sweep takes from the ready ones before it asks again which are ready, so a trace
# that became ready meanwhile is not behind every trace ready before it.
DEFAULT_SWEEP_ROUND: Final = 2000
# Ids shown in a response's message before "and N more".
_SHOWN: Final = 3

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Accepted:
    """The outcome of an export: how many spans (or log records) were held, and how many were
    refused (late ones, of traces already stored, and conflicting versions), with why."""

    stored: int
    rejected: int = 0
    message: str = ""


class _Origins:
    """The origins of one request's spans, one :class:`PendingOrigin` per distinct content."""

    def __init__(self) -> None:
        self._parts = SpanParts()
        self._known: dict[bytes, PendingOrigin] = {}

    def pending_span(self, span: RawSpan, received_ns: int) -> PendingSpan:
        payload, origin = self._parts.encode(span)
        return PendingSpan(
            trace_id=span.trace_id,
            span_id=span.span_id,
            payload=payload,
            root_ended=span.parent_id is None and span.end_ns is not None,
            received_ns=received_ns,
            origin=None if origin is None else self._origin(origin),
        )

    def _origin(self, payload: bytes) -> PendingOrigin:
        known = self._known.get(payload)
        if known is None:
            key = hashlib.blake2b(payload, digest_size=16).hexdigest()
            known = self._known[payload] = PendingOrigin(key, payload)
        return known


def pending_span(span: RawSpan, received_ns: int) -> PendingSpan:
    """The pending row of a received span; a parentless span that has ended is a root_ended."""
    return _Origins().pending_span(span, received_ns)


def pending_log_events(logs: Sequence[LogEvent], received_ns: int) -> list[PendingLogEvent]:
    """The pending rows of the GenAI log records of one request, in order, each with its key
    (:func:`~trailcheck.serve.log_codec.record_keys`)."""
    return [
        PendingLogEvent(log.trace_id, log.span_id, key, encode_log_event(log), received_ns)
        for log, key in zip(logs, record_keys(logs), strict=True)
    ]


def _shown(items: Sequence[str]) -> str:
    """The first few of ``items``, and how many more."""
    more = f" and {len(items) - _SHOWN} more" if len(items) > _SHOWN else ""
    return ", ".join(items[:_SHOWN]) + more


def _late_message(late_traces: Sequence[str], what: str) -> str:
    traces = [repr(trace_id) for trace_id in sorted(set(late_traces))]
    return (
        f"{len(late_traces)} {what} arrived after their trace was complete and stored"
        f" (trace {_shown(traces)}); a stored trace is not changed"
    )


def _conflict_message(conflicts: Sequence[SpanConflict]) -> str:
    spans = [f"trace {c.trace_id!r} span {c.span_id!r}" for c in conflicts]
    first = conflicts[0].trace_id
    return (
        f"{len(conflicts)} span(s) conflict with the span of the same trace and span id"
        f" received before, with other content ({_shown(spans)}); the first version is kept,"
        f" and this one is set aside beside it (trailcheck pending show {first})"
    )


def _accepted(
    stored: int, late_traces: Sequence[str], conflicts: Sequence[SpanConflict], what: str
) -> Accepted:
    parts = []
    if conflicts:
        parts.append(_conflict_message(conflicts))
    if late_traces:
        parts.append(_late_message(late_traces, what))
    rejected = len(late_traces) + len(conflicts)
    return Accepted(stored=stored, rejected=rejected, message="; ".join(parts))


@dataclass
class Intake:
    """One server's access to the store: accept spans and log records, sweep ready traces."""

    store: PendingSpanStore
    idle_timeout_ns: int
    clock: Callable[[], int]
    # How long a trace whose root has ended waits for more of it (log records are exported
    # apart from spans); 0 completes it at the next sweep.
    settle_ns: int = 0
    batch_spans: int = DEFAULT_BATCH_SPANS
    sweep_round: int = DEFAULT_SWEEP_ROUND
    claims: TraceClaims = field(default_factory=TraceClaims)
    counts: ServeCounts = field(default_factory=ServeCounts)
    # Applied to every span and log record before it is held (None: kept as received).
    redactor: Redactor | None = None

    def __post_init__(self) -> None:
        for name in ("batch_spans", "sweep_round"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")

    def accept(self, spans: Iterable[RawSpan]) -> Accepted:
        """Hold the spans as pending, durably, but for late spans of stored traces and
        conflicting versions of spans received before (kept aside); retries add nothing.
        ``spans`` is read whole before anything is stored: what it raises stores nothing."""
        received_ns = self.clock()
        origins = _Origins()
        if self.redactor is not None:
            spans = map(SpanRedaction(self.redactor).span, spans)
        rows = [origins.pending_span(span, received_ns) for span in spans]
        del origins
        held = 0
        late: list[str] = []
        conflicts: list[SpanConflict] = []
        for batch in chunks(rows, self.batch_spans):
            arrivals = self._hold_batch(batch)
            held += len(arrivals.fresh)
            late += [span.trace_id for span in arrivals.late]
            conflicts += arrivals.conflicts
        if conflicts:
            logger.warning(
                "%d conflicting span version(s) refused and kept aside: %s",
                len(conflicts),
                _shown([f"trace {c.trace_id!r} span {c.span_id!r}" for c in conflicts]),
            )
        return _accepted(held, late, conflicts, "span(s)")

    def _hold_batch(self, batch: Sequence[PendingSpan]) -> Arrivals:
        trace_ids = list(dict.fromkeys(span.trace_id for span in batch))
        with self.claims.claimed(trace_ids):
            stored = self.store.stored_traces(trace_ids)
            keys = [(s.trace_id, s.span_id) for s in batch if s.trace_id not in stored]
            held = self.store.held_spans(keys) if keys else {}
            arrivals = sort_arrivals(batch, stored, held, EXPORT_SOURCE)
            if arrivals.fresh or arrivals.conflicts:
                self.store.add_pending(arrivals.fresh, arrivals.conflicts)
        self.counts.add("spans", "held", len(arrivals.fresh))
        self.counts.add("spans", "retried", arrivals.retried)
        self.counts.add("spans", "late", len(arrivals.late))
        self.counts.add("spans", "conflicting", len(arrivals.conflicts))
        return arrivals

    def accept_logs(self, logs: Sequence[LogEvent]) -> Accepted:
        """Hold the GenAI log records as pending, durably, but for late ones of stored
        traces; retries of records a stored trace holds add nothing."""
        if self.redactor is not None:
            redactor = self.redactor
            logs = [redact_log(log, redactor) for log in logs]
        rows = pending_log_events(logs, self.clock())
        held = 0
        late: list[str] = []
        for start in range(0, len(rows), self.batch_spans):
            batch = list(
                zip(
                    logs[start : start + self.batch_spans],
                    rows[start : start + self.batch_spans],
                    strict=True,
                )
            )
            fresh, late_here = self._hold_log_batch(batch)
            held += fresh
            late += late_here
        return _accepted(held, late, [], "GenAI log record(s)")

    def _hold_log_batch(
        self, batch: Sequence[tuple[LogEvent, PendingLogEvent]]
    ) -> tuple[int, list[str]]:
        """Hold a batch of log records (each with its row): how many, and the late ones'
        trace ids."""
        trace_ids = list(dict.fromkeys(log.trace_id for log, _ in batch))
        with self.claims.claimed(trace_ids):
            stored = self.store.stored_traces(trace_ids)
            events = {
                (trace_id, span.span_id): span.events
                for trace_id, trace in stored.items()
                for span in trace.spans
            }
            fresh: list[PendingLogEvent] = []
            late: list[str] = []
            for log, row in batch:
                if log.trace_id not in stored:
                    fresh.append(row)
                elif log.event not in events.get((log.trace_id, log.span_id), ()):
                    late.append(log.trace_id)
            if fresh:
                self.store.add_pending_logs(fresh)
        self.counts.add("log_records", "held", len(fresh))
        self.counts.add("log_records", "late", len(late))
        return len(fresh), late

    def sweep(self) -> SweepResult:
        """Complete the traces ready now, a round of ``sweep_round`` at a time, asking again
        after each which are ready (with the time then); then forget the origins no span
        names any more."""
        total = SweepResult()
        while True:
            result = sweep_pending(
                self.store,
                now_ns=self.clock(),
                idle_timeout_ns=self.idle_timeout_ns,
                settle_ns=self.settle_ns,
                claims=self.claims,
                limit=self.sweep_round,
            )
            total.add(result)
            if not result.more or not (result.stored or result.quarantined or result.dropped_logs):
                break
        self.store.drop_unused_origins(self.clock())
        self.counts.add("traces", "stored", len(total.stored))
        self.counts.add("traces", "quarantined", len(total.quarantined))
        return total
