"""Spans and GenAI log records received by the OTLP endpoint, held until their trace is complete.

The endpoint (:mod:`trailcheck.serve`) answers a request only once its spans (or log records) are
committed here, so nothing accepted is lost on a restart. A trace is ready to assemble when one
of its spans is a root that has ended and nothing of the trace (span or log record) arrived for
the settle time, or when its newest span or log record arrived more than the idle timeout ago,
and it is not quarantined (:mod:`trailcheck.store.quarantine`). The endpoint then assembles the
payloads (opaque bytes to the store) and hands back the trace, which is stored in the same
transaction that removes the trace's pending spans and log records; a trace that cannot be made
or stored is quarantined instead, its pending rows kept. Log records of a trace none of whose
spans ever arrived are dropped when it idles (:func:`drop_pending_logs`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import (
    Connection,
    case,
    delete,
    exists,
    func,
    literal_column,
    select,
    union_all,
)

from trailcheck.errors import InputError, UsageError
from trailcheck.store import schema
from trailcheck.store.backends import insert_or_ignore
from trailcheck.store.ingest import ingest_rows
from trailcheck.store.rows import trace_rows
from trailcheck.trace import Trace

__all__ = [
    "PendingLogEvent",
    "PendingSpan",
    "RejectedTrace",
    "add_pending_logs",
    "add_pending_spans",
    "drop_pending_logs",
    "finish_pending",
    "pending_log_payloads",
    "pending_payloads",
    "read_rejected",
    "ready_pending",
]


@dataclass(frozen=True)
class PendingSpan:
    """One received span: ``payload`` is the endpoint's own encoding of it."""

    trace_id: str
    span_id: str
    payload: bytes
    root_ended: bool
    received_ns: int


@dataclass(frozen=True)
class PendingLogEvent:
    """One received GenAI log record of span ``span_id``: ``payload`` is the endpoint's own
    encoding of it, and ``record_key`` tells a repeat of it (a retried export) from another
    record of the same span."""

    trace_id: str
    span_id: str
    record_key: str
    payload: bytes
    received_ns: int


@dataclass(frozen=True)
class RejectedTrace:
    """A trace assembled from received spans that could not be stored, and why, as a store
    recorded it before m006 (its spans were not kept)."""

    trace_id: str
    reason: str
    span_count: int
    rejected_ns: int


def add_pending_spans(connection: Connection, spans: Sequence[PendingSpan]) -> None:
    """Hold ``spans`` in the given order; a (trace id, span id) already held is ignored."""
    rows: dict[tuple[str, str], dict[str, object]] = {}
    for span in spans:  # within one call, the first copy wins too
        rows.setdefault(
            (span.trace_id, span.span_id),
            {
                "trace_id": span.trace_id,
                "span_id": span.span_id,
                "payload": span.payload,
                "root_ended": span.root_ended,
                "received_ns": span.received_ns,
            },
        )
    insert_or_ignore(connection, schema.pending_spans, list(rows.values()))


def add_pending_logs(connection: Connection, events: Sequence[PendingLogEvent]) -> None:
    """Hold ``events`` in the given order; a (trace id, span id, record key) already held is
    ignored."""
    rows = [
        {
            "trace_id": event.trace_id,
            "span_id": event.span_id,
            "record_key": event.record_key,
            "payload": event.payload,
            "received_ns": event.received_ns,
        }
        for event in events
    ]
    insert_or_ignore(connection, schema.pending_log_events, rows)


def ready_pending(
    connection: Connection, now_ns: int, idle_timeout_ns: int, settle_ns: int = 0
) -> list[str]:
    """Ids of held traces with an ended root span and nothing received for at least
    ``settle_ns``, or with nothing received for more than ``idle_timeout_ns``; oldest first.
    A quarantined trace is never ready."""
    spans, logs = schema.pending_spans, schema.pending_log_events
    quarantined = select(schema.quarantined_traces.c.trace_id)
    arrivals = union_all(
        select(
            spans.c.trace_id,
            case((spans.c.root_ended, 1), else_=0).label("ended"),
            spans.c.received_ns,
        ),
        select(logs.c.trace_id, literal_column("0").label("ended"), logs.c.received_ns),
    ).subquery()
    newest = func.max(arrivals.c.received_ns)
    settled = (func.max(arrivals.c.ended) == 1) & (newest <= now_ns - settle_ns)
    query = (
        select(arrivals.c.trace_id)
        .where(arrivals.c.trace_id.not_in(quarantined))
        .group_by(arrivals.c.trace_id)
        .having(settled | (newest < now_ns - idle_timeout_ns))
        .order_by(func.min(arrivals.c.received_ns), arrivals.c.trace_id)
    )
    return list(connection.scalars(query))


def pending_payloads(connection: Connection, trace_id: str) -> list[bytes]:
    """The payloads held for ``trace_id``, in the order they were received."""
    table = schema.pending_spans
    query = select(table.c.payload).where(table.c.trace_id == trace_id).order_by(table.c.seq)
    return [bytes(payload) for payload in connection.scalars(query)]


def pending_log_payloads(connection: Connection, trace_id: str) -> list[bytes]:
    """The log record payloads held for ``trace_id``, in the order they were received."""
    table = schema.pending_log_events
    query = select(table.c.payload).where(table.c.trace_id == trace_id).order_by(table.c.seq)
    return [bytes(payload) for payload in connection.scalars(query)]


def drop_pending_logs(connection: Connection, trace_id: str) -> int:
    """Delete the log records held for ``trace_id`` if none of its spans is held (there is
    nothing to join them to); how many were deleted."""
    logs, spans = schema.pending_log_events, schema.pending_spans
    no_spans = ~exists().where(spans.c.trace_id == trace_id)
    result = connection.execute(delete(logs).where(logs.c.trace_id == trace_id, no_spans))
    return result.rowcount


def finish_pending(connection: Connection, trace_id: str, trace: Trace) -> None:
    """Ingest ``trace`` and drop the held spans and log records of ``trace_id``.

    An identical stored trace makes this a no-op that still drops them; a trace that conflicts
    with a stored one of the same id is an InputError with the conflict, and (the caller's
    transaction rolled back) nothing changes. StoreLimitError when the store cannot hold one of
    its integers."""
    if trace.trace_id != trace_id:
        raise UsageError(f"pending trace {trace_id!r} completed with trace {trace.trace_id!r}")
    summary = ingest_rows(connection, [trace_rows(trace, time.time_ns())])
    if summary.conflicts:
        raise InputError(summary.conflicts[0].message)
    spans, logs = schema.pending_spans, schema.pending_log_events
    connection.execute(delete(spans).where(spans.c.trace_id == trace_id))
    connection.execute(delete(logs).where(logs.c.trace_id == trace_id))


def read_rejected(connection: Connection) -> list[RejectedTrace]:
    """The traces rejected on completion by a store before m006 (since then, such a trace is
    quarantined with its spans kept), oldest first."""
    table = schema.rejected_traces
    query = select(table).order_by(table.c.rejected_ns, table.c.id)
    return [
        RejectedTrace(row.trace_id, row.reason, row.span_count, row.rejected_ns)
        for row in connection.execute(query)
    ]
