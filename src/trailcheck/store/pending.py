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

The resource and scope a span was recorded under (its *origin*, opaque bytes too) are held once
(:mod:`trailcheck.store.pending_origins`) and come back beside each span's payload
(:class:`PendingPayload`).

Everything the endpoint does for many spans or traces at once is one statement per chunk of
``CHUNK`` ids (an ``IN`` list), never one per trace: a request of 100,000 one-span traces is
looked up in a few hundred queries, and a sweep completes many traces per transaction.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final, NamedTuple, TypeVar

from sqlalchemy import (
    Connection,
    TextClause,
    case,
    delete,
    exists,
    func,
    literal_column,
    select,
    text,
    union_all,
)

from trailcheck.errors import InputError, UsageError
from trailcheck.store import schema
from trailcheck.store.backends import insert_or_ignore
from trailcheck.store.ingest import ingest_rows
from trailcheck.store.pending_origins import PendingOrigin, hold_origins
from trailcheck.store.rows import trace_rows
from trailcheck.trace import Trace

__all__ = [
    "CHUNK",
    "PendingLogEvent",
    "PendingPayload",
    "PendingSpan",
    "RejectedTrace",
    "add_pending_logs",
    "add_pending_spans",
    "chunks",
    "drop_pending_logs",
    "finish_pending",
    "finish_pending_traces",
    "held_span_payloads",
    "pending_log_payloads",
    "pending_log_payloads_of",
    "pending_payloads",
    "pending_payloads_of",
    "read_rejected",
    "ready_pending",
]

# Ids in one IN list: a pair of ids is two parameters, well within SQLite's 32,766 and
# PostgreSQL's 65,535.
CHUNK: Final = 500
T = TypeVar("T")


def chunks(items: Sequence[T], size: int = CHUNK) -> Iterator[Sequence[T]]:
    """``items`` in slices of at most ``size``."""
    for start in range(0, len(items), size):
        yield items[start : start + size]


@dataclass(frozen=True, slots=True)
class PendingSpan:
    """One received span: ``payload`` is the endpoint's own encoding of it, and ``origin`` its
    resource and scope (None: the payload holds them, or there are none)."""

    trace_id: str
    span_id: str
    payload: bytes
    root_ended: bool
    received_ns: int
    origin: PendingOrigin | None = None


class PendingPayload(NamedTuple):
    """A held span as it comes back: its payload, and its origin's (None: it names none)."""

    span: bytes
    origin: bytes | None = None


@dataclass(frozen=True, slots=True)
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
    """Hold ``spans`` in the given order, and their origins; a (trace id, span id) already held
    is ignored."""
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
                "origin_key": None if span.origin is None else span.origin.key,
            },
        )
    hold_origins(connection, [(s.origin, s.received_ns) for s in spans if s.origin is not None])
    insert_or_ignore(connection, schema.pending_spans, list(rows.values()))


def held_span_payloads(
    connection: Connection, keys: Sequence[tuple[str, str]]
) -> dict[tuple[str, str], PendingPayload]:
    """The held spans among ``keys`` (trace id, span id), by key: one query per ``CHUNK``, each
    key looked up in the unique index."""
    found: dict[tuple[str, str], PendingPayload] = {}
    for chunk in chunks(list(dict.fromkeys(keys))):
        names = {f"t{n}": trace_id for n, (trace_id, _) in enumerate(chunk)}
        names |= {f"s{n}": span_id for n, (_, span_id) in enumerate(chunk)}
        for trace_id, span_id, payload, origin in connection.execute(
            _held_query(len(chunk)), names
        ):
            found[trace_id, span_id] = _payload(payload, origin)
    return found


@functools.lru_cache(maxsize=4)
def _held_query(count: int) -> TextClause:
    """The query of :func:`held_span_payloads` for ``count`` keys: the keys as ``VALUES``
    joined to the unique index (SQLite scans the table for a row-value ``IN`` list). Written
    out once per count: SQLAlchemy's ``values()`` of 500 rows takes longer to build and
    compile than the query takes to run."""
    rows = ", ".join(f"(:t{n}, :s{n})" for n in range(count))
    return text(
        f"WITH wanted (trace_id, span_id) AS (VALUES {rows})"
        " SELECT s.trace_id, s.span_id, s.payload, o.payload FROM wanted"
        " JOIN pending_spans s ON s.trace_id = wanted.trace_id AND s.span_id = wanted.span_id"
        " LEFT JOIN pending_origins o ON o.origin_key = s.origin_key"
    )


def _payload(span: bytes, origin: bytes | None) -> PendingPayload:
    return PendingPayload(bytes(span), None if origin is None else bytes(origin))


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
    connection: Connection,
    now_ns: int,
    idle_timeout_ns: int,
    settle_ns: int = 0,
    limit: int | None = None,
) -> list[str]:
    """Ids of held traces with an ended root span and nothing received for at least
    ``settle_ns``, or with nothing received for more than ``idle_timeout_ns``; at most
    ``limit`` of them. A quarantined trace is never ready.

    They come in turns: each arrival (the traces whose first span or log record came in one
    request, which share its received time) gives its oldest ready trace by id in the first
    turn, its next in the second, and so on, arrivals by age within a turn. Traces that came
    in many requests come oldest first, as before; a request of 100,000 traces does not hold
    up one that came beside it."""
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
    ready = (
        select(arrivals.c.trace_id, func.min(arrivals.c.received_ns).label("first"))
        .where(arrivals.c.trace_id.not_in(quarantined))
        .group_by(arrivals.c.trace_id)
        .having(settled | (newest < now_ns - idle_timeout_ns))
        .subquery()
    )
    turn = func.row_number().over(partition_by=ready.c.first, order_by=ready.c.trace_id)
    query = select(ready.c.trace_id).order_by(turn, ready.c.first, ready.c.trace_id)
    if limit is not None:
        query = query.limit(limit)
    return list(connection.scalars(query))


def pending_payloads(connection: Connection, trace_id: str) -> list[PendingPayload]:
    """The spans held for ``trace_id``, in the order they were received."""
    return pending_payloads_of(connection, [trace_id]).get(trace_id, [])


def pending_payloads_of(
    connection: Connection, trace_ids: Sequence[str]
) -> dict[str, list[PendingPayload]]:
    """The spans held for each of ``trace_ids`` that has any, in the order they were received:
    one query per ``CHUNK`` ids."""
    spans, origins = schema.pending_spans, schema.pending_origins
    found: dict[str, list[PendingPayload]] = {}
    for chunk in chunks(list(dict.fromkeys(trace_ids))):
        query = (
            select(spans.c.trace_id, spans.c.payload, origins.c.payload)
            .select_from(spans.outerjoin(origins, spans.c.origin_key == origins.c.origin_key))
            .where(spans.c.trace_id.in_(chunk))
            .order_by(spans.c.seq)
        )
        for trace_id, payload, origin in connection.execute(query):
            found.setdefault(trace_id, []).append(_payload(payload, origin))
    return found


def pending_log_payloads(connection: Connection, trace_id: str) -> list[bytes]:
    """The log record payloads held for ``trace_id``, in the order they were received."""
    return pending_log_payloads_of(connection, [trace_id]).get(trace_id, [])


def pending_log_payloads_of(
    connection: Connection, trace_ids: Sequence[str]
) -> dict[str, list[bytes]]:
    """The log record payloads held for each of ``trace_ids`` that has any, in the order they
    were received: one query per ``CHUNK`` ids."""
    table = schema.pending_log_events
    found: dict[str, list[bytes]] = {}
    for chunk in chunks(list(dict.fromkeys(trace_ids))):
        query = (
            select(table.c.trace_id, table.c.payload)
            .where(table.c.trace_id.in_(chunk))
            .order_by(table.c.seq)
        )
        for trace_id, payload in connection.execute(query):
            found.setdefault(trace_id, []).append(bytes(payload))
    return found


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
    finish_pending_traces(connection, [trace])


def finish_pending_traces(connection: Connection, traces: Sequence[Trace]) -> None:
    """Ingest ``traces`` and drop the held spans and log records of each, as
    :func:`finish_pending` does for one: a conflict with a stored trace (InputError, the first
    one named) or an integer the store cannot hold (StoreLimitError) in any of them raises, and
    the caller's transaction rolled back, nothing changes."""
    now = time.time_ns()
    summary = ingest_rows(connection, [trace_rows(trace, now) for trace in traces])
    if summary.conflicts:
        raise InputError(summary.conflicts[0].message)
    spans, logs = schema.pending_spans, schema.pending_log_events
    for chunk in chunks([trace.trace_id for trace in traces]):
        connection.execute(delete(spans).where(spans.c.trace_id.in_(chunk)))
        connection.execute(delete(logs).where(logs.c.trace_id.in_(chunk)))


def read_rejected(connection: Connection) -> list[RejectedTrace]:
    """The traces rejected on completion by a store before m006 (since then, such a trace is
    quarantined with its spans kept), oldest first."""
    table = schema.rejected_traces
    query = select(table).order_by(table.c.rejected_ns, table.c.id)
    return [
        RejectedTrace(row.trace_id, row.reason, row.span_count, row.rejected_ns)
        for row in connection.execute(query)
    ]
