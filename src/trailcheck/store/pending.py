"""Spans received by the OTLP endpoint, held until their trace is complete.

The endpoint (:mod:`trailcheck.serve`) answers a request only once its spans are committed here,
so nothing accepted is lost on a restart. A trace is ready to assemble when one of its spans is
a root that has ended, or when its newest span arrived more than the idle timeout ago; the
endpoint then assembles the payloads (opaque bytes to the store) and hands back the trace, or
the reason it could not be made, and both outcomes remove the trace's pending rows in the same
transaction that records them.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import Connection, case, delete, func, insert, select

from trailcheck.errors import UsageError
from trailcheck.store import schema
from trailcheck.store.backends import insert_or_ignore
from trailcheck.store.ingest import ingest_rows
from trailcheck.store.rows import trace_rows
from trailcheck.trace import Trace

__all__ = [
    "PendingSpan",
    "RejectedTrace",
    "add_pending_spans",
    "finish_pending",
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
class RejectedTrace:
    """A trace assembled from received spans that could not be stored, and why."""

    trace_id: str
    reason: str
    span_count: int
    rejected_ns: int


def add_pending_spans(connection: Connection, spans: Sequence[PendingSpan]) -> None:
    """Hold ``spans``; a (trace id, span id) already held is ignored."""
    rows = {
        (span.trace_id, span.span_id): {
            "trace_id": span.trace_id,
            "span_id": span.span_id,
            "payload": span.payload,
            "root_ended": span.root_ended,
            "received_ns": span.received_ns,
        }
        for span in reversed(spans)  # within one call, the first copy wins too
    }
    insert_or_ignore(connection, schema.pending_spans, list(reversed(rows.values())))


def ready_pending(connection: Connection, now_ns: int, idle_timeout_ns: int) -> list[str]:
    """Ids of held traces with an ended root span, or idle for more than ``idle_timeout_ns``."""
    table = schema.pending_spans
    ended = func.max(case((table.c.root_ended, 1), else_=0))
    newest = func.max(table.c.received_ns)
    query = (
        select(table.c.trace_id)
        .group_by(table.c.trace_id)
        .having((ended == 1) | (newest < now_ns - idle_timeout_ns))
        .order_by(func.min(table.c.received_ns), table.c.trace_id)
    )
    return list(connection.scalars(query))


def pending_payloads(connection: Connection, trace_id: str) -> list[bytes]:
    """The payloads held for ``trace_id``, in the order they were received."""
    table = schema.pending_spans
    query = (
        select(table.c.payload)
        .where(table.c.trace_id == trace_id)
        .order_by(table.c.received_ns, table.c.span_id)
    )
    return [bytes(payload) for payload in connection.scalars(query)]


def finish_pending(
    connection: Connection, trace_id: str, trace: Trace | None, rejection: str | None
) -> None:
    """Ingest ``trace`` (or record ``rejection``) and drop the held spans of ``trace_id``.

    A trace that conflicts with a stored one of the same id is recorded as rejected, with the
    conflict as the reason; an identical one is a no-op."""
    if (trace is None) == (rejection is None):
        raise UsageError("completing a pending trace takes either the trace or a rejection")
    if trace is not None and trace.trace_id != trace_id:
        raise UsageError(f"pending trace {trace_id!r} completed with trace {trace.trace_id!r}")
    table = schema.pending_spans
    held = connection.scalar(select(func.count()).where(table.c.trace_id == trace_id)) or 0
    reason = rejection
    if trace is not None:
        summary = ingest_rows(connection, [trace_rows(trace, time.time_ns())])
        reason = summary.conflicts[0].message if summary.conflicts else None
    if reason is not None:
        connection.execute(
            insert(schema.rejected_traces),
            {
                "trace_id": trace_id,
                "reason": reason,
                "span_count": held,
                "rejected_ns": time.time_ns(),
            },
        )
    connection.execute(delete(table).where(table.c.trace_id == trace_id))


def read_rejected(connection: Connection) -> list[RejectedTrace]:
    """The traces rejected on completion, oldest first."""
    table = schema.rejected_traces
    query = select(table).order_by(table.c.rejected_ns, table.c.id)
    return [
        RejectedTrace(row.trace_id, row.reason, row.span_count, row.rejected_ns)
        for row in connection.execute(query)
    ]
