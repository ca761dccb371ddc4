"""Pending traces the endpoint could not complete, set aside with the reason: the quarantine.

When assembling or storing a ready trace fails, for any reason (a span whose parent never came,
a value the store cannot hold, a conflicting stored trace, a bug), the endpoint's sweep
quarantines it (:func:`quarantine_trace`): one ``quarantined_traces`` row with the trace id, the
reason and when. Its spans and log records stay where they are, in ``pending_spans`` and
``pending_log_events``, so nothing acknowledged to an exporter is lost, and spans of it that
arrive later join them. ``ready_pending`` never names a quarantined trace, so the sweep goes on
with the others and never tries the same trace again on its own.

An operator lists what is held (:func:`list_pending_traces`: with the conflicting versions of
spans kept for each trace, :mod:`trailcheck.store.span_conflicts`), sends a quarantined trace
back to be tried again by the next sweep (:func:`release_quarantined`: the row goes, the spans
were never moved), or drops it, spans, log records, conflicting versions and all
(:func:`drop_pending_trace`); ``trailcheck pending`` is the command.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, case, delete, func, literal_column, select, union_all

from trailcheck.errors import UsageError
from trailcheck.store import schema
from trailcheck.store.backends import insert_or_ignore

__all__ = [
    "DroppedTrace",
    "PendingTrace",
    "drop_pending_trace",
    "held_trace",
    "list_pending_traces",
    "quarantine_trace",
    "release_quarantined",
]

# A reason is an error message; one with a huge value in it is cut, not stored whole.
MAX_REASON_CHARS = 4000


@dataclass(frozen=True)
class PendingTrace:
    """A trace held by the endpoint: its spans and log records waiting for the trace to be
    complete, or quarantined (``reason`` and ``quarantined_ns`` set); and the conflicting
    versions of its spans kept (``conflict_count``; a trace already stored holds only those)."""

    trace_id: str
    span_count: int
    log_count: int
    first_received_ns: int | None
    last_received_ns: int | None
    root_ended: bool
    reason: str | None = None
    quarantined_ns: int | None = None
    conflict_count: int = 0

    @property
    def quarantined(self) -> bool:
        return self.reason is not None

    @property
    def state(self) -> str:
        """``quarantined``, ``pending``, or ``conflicts`` (only conflicting versions held)."""
        if self.quarantined:
            return "quarantined"
        return "pending" if self.span_count or self.log_count else "conflicts"


@dataclass(frozen=True)
class DroppedTrace:
    """What :func:`drop_pending_trace` deleted: the held spans, log records and conflicting
    versions of a trace, and why it was quarantined (None: it was not)."""

    trace_id: str
    span_count: int
    log_count: int
    reason: str | None
    conflict_count: int = 0


def quarantine_trace(connection: Connection, trace_id: str, reason: str, now_ns: int) -> None:
    """Set ``trace_id`` aside with ``reason`` (NUL shown as U+FFFD, cut to
    ``MAX_REASON_CHARS``); a trace already quarantined keeps its first reason."""
    text = reason.replace("\x00", "\ufffd")
    if len(text) > MAX_REASON_CHARS:
        text = text[: MAX_REASON_CHARS - 1] + "…"
    row = {"trace_id": trace_id, "reason": text, "quarantined_ns": now_ns}
    insert_or_ignore(connection, schema.quarantined_traces, [row])


def list_pending_traces(connection: Connection, trace_id: str | None = None) -> list[PendingTrace]:
    """Every held trace (or only ``trace_id``), pending, quarantined or holding conflicting
    versions alone, by first arrival (one with no span or log record held last), ties by id."""
    spans, logs, aside, versions = (
        schema.pending_spans,
        schema.pending_log_events,
        schema.quarantined_traces,
        schema.span_conflicts,
    )
    span_rows = select(
        spans.c.trace_id,
        literal_column("1").label("is_span"),
        case((spans.c.root_ended, 1), else_=0).label("ended"),
        spans.c.received_ns,
    )
    log_rows = select(
        logs.c.trace_id,
        literal_column("0").label("is_span"),
        literal_column("0").label("ended"),
        logs.c.received_ns,
    )
    aside_rows = select(aside.c.trace_id, aside.c.reason, aside.c.quarantined_ns)
    version_rows = select(versions.c.trace_id, func.count()).group_by(versions.c.trace_id)
    if trace_id is not None:
        span_rows = span_rows.where(spans.c.trace_id == trace_id)
        log_rows = log_rows.where(logs.c.trace_id == trace_id)
        aside_rows = aside_rows.where(aside.c.trace_id == trace_id)
        version_rows = version_rows.where(versions.c.trace_id == trace_id)
    arrivals = union_all(span_rows, log_rows).subquery()
    counts = select(
        arrivals.c.trace_id,
        func.sum(arrivals.c.is_span),
        func.count(),
        func.min(arrivals.c.received_ns),
        func.max(arrivals.c.received_ns),
        func.max(arrivals.c.ended),
    ).group_by(arrivals.c.trace_id)
    held = {row[0]: row for row in connection.execute(counts)}
    reasons = {row.trace_id: row for row in connection.execute(aside_rows)}
    conflicts: dict[str, int] = {row[0]: int(row[1]) for row in connection.execute(version_rows)}
    found: list[PendingTrace] = []
    for held_id in held.keys() | reasons.keys() | conflicts.keys():
        row = held.get(held_id)
        quarantined = reasons.get(held_id)
        span_count = int(row[1]) if row is not None else 0
        found.append(
            PendingTrace(
                trace_id=held_id,
                span_count=span_count,
                log_count=int(row[2]) - span_count if row is not None else 0,
                first_received_ns=row[3] if row is not None else None,
                last_received_ns=row[4] if row is not None else None,
                root_ended=bool(row[5]) if row is not None else False,
                reason=quarantined.reason if quarantined is not None else None,
                quarantined_ns=quarantined.quarantined_ns if quarantined is not None else None,
                conflict_count=conflicts.get(held_id, 0),
            )
        )
    return sorted(found, key=_arrival_order)


def _arrival_order(trace: PendingTrace) -> tuple[bool, int, str]:
    first = trace.first_received_ns
    return first is None, first or 0, trace.trace_id


def held_trace(connection: Connection, trace_id: str) -> PendingTrace:
    """The held trace ``trace_id``; UsageError when the store holds none of that id."""
    found = list_pending_traces(connection, trace_id)
    if not found:
        raise UsageError(f"no pending or quarantined trace {trace_id!r} in the store")
    return found[0]


def release_quarantined(connection: Connection, trace_id: str) -> PendingTrace:
    """Send a quarantined trace back to pending: the next sweep tries it again. What it holds;
    UsageError when it is not quarantined."""
    trace = held_trace(connection, trace_id)
    if not trace.quarantined:
        raise UsageError(f"trace {trace_id!r} is pending, not quarantined: nothing to retry")
    aside = schema.quarantined_traces
    connection.execute(delete(aside).where(aside.c.trace_id == trace_id))
    return trace


def drop_pending_trace(connection: Connection, trace_id: str) -> DroppedTrace:
    """Delete a held trace, quarantined or pending: its spans, log records, conflicting
    versions and quarantine row. UsageError when the store holds none of that id."""
    reason = held_trace(connection, trace_id).reason
    tables = (
        schema.pending_spans,
        schema.pending_log_events,
        schema.span_conflicts,
        schema.quarantined_traces,
    )
    deleted = [
        connection.execute(delete(table).where(table.c.trace_id == trace_id)).rowcount
        for table in tables
    ]
    return DroppedTrace(trace_id, deleted[0], deleted[1], reason, deleted[2])
