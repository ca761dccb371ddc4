"""Reading traces back: streamed in pages, one trace by id, or summary rows for listing.

Streaming pages on ``seq`` (ingestion order): each page is one short query for the next
``batch_size`` rows after the last one read (keyset pagination), so memory holds one page
whatever the number of traces, no transaction stays open while the caller works on a trace, and
the same code streams on SQLite and PostgreSQL. Traces ingested while a stream runs are read
when they come after its position.

Which traces: a :class:`~trailcheck.store.trace_filter.TraceFilter`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, Connection, Engine, Row, Select, func, select

from trailcheck.store import schema
from trailcheck.store.backends import read_only
from trailcheck.store.trace_filter import TraceFilter
from trailcheck.trace import Trace

__all__ = [
    "DEFAULT_PAGE_SIZE",
    "TraceSummary",
    "iter_content_pages",
    "iter_stored_traces",
    "list_trace_summaries",
    "read_trace",
    "read_traces",
    "start_ns",
    "summaries_of",
]

DEFAULT_PAGE_SIZE = 200


def start_ns() -> ColumnElement[int]:
    """When a trace started: its first span's start, else (no spans) when it was ingested."""
    traces = schema.traces
    return func.coalesce(traces.c.started_ns, traces.c.ingested_ns)


@dataclass(frozen=True)
class TraceSummary:
    """One line of ``trailcheck traces list``."""

    trace_id: str
    started_ns: int | None
    ended_ns: int | None
    span_count: int
    tool_names: tuple[str, ...]
    input_text: str | None
    final_output: str | None
    labels: tuple[str, ...]
    ingested_ns: int
    session_id: str | None


def iter_stored_traces(
    engine: Engine, where: TraceFilter, *, batch_size: int = DEFAULT_PAGE_SIZE
) -> Iterator[Trace]:
    """The traces matching ``where``, in ingestion order, ``batch_size`` rows per query."""
    for page in iter_content_pages(engine, where, batch_size=batch_size):
        for content in page:
            yield Trace.model_validate_json(content)


def iter_content_pages(
    engine: Engine, where: TraceFilter, *, batch_size: int = DEFAULT_PAGE_SIZE
) -> Iterator[list[str]]:
    """The stored trailcheck JSON of the traces matching ``where``, in ingestion order, a page
    of ``batch_size`` rows (one query) at a time: for readers that decode it themselves, as bulk
    detection does in worker processes (:mod:`trailcheck.bulk.detection`)."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, not {batch_size}")
    traces = schema.traces
    condition = where.condition()
    position: int | None = None
    while True:
        query = select(traces.c.seq, traces.c.content).where(condition)
        if position is not None:
            query = query.where(traces.c.seq > position)
        with read_only(engine) as connection:
            page = connection.execute(query.order_by(traces.c.seq).limit(batch_size)).all()
        if page:
            position = page[-1].seq
            yield [content for _, content in page]
        if len(page) < batch_size:
            return


def read_trace(connection: Connection, trace_id: str) -> Trace | None:
    """The stored trace ``trace_id``, or None."""
    traces = schema.traces
    query = select(traces.c.content).where(traces.c.trace_id == trace_id)
    content = connection.execute(query).scalar_one_or_none()
    return None if content is None else Trace.model_validate_json(content)


def read_traces(connection: Connection, trace_ids: Sequence[str]) -> dict[str, Trace]:
    """The stored traces among ``trace_ids``, by id: one query per 500 ids."""
    traces = schema.traces
    ids = list(dict.fromkeys(trace_ids))
    found: dict[str, Trace] = {}
    for start in range(0, len(ids), 500):
        query = select(traces.c.trace_id, traces.c.content).where(
            traces.c.trace_id.in_(ids[start : start + 500])
        )
        for trace_id, content in connection.execute(query):
            found[trace_id] = Trace.model_validate_json(content)
    return found


def trace_ids_starting_with(connection: Connection, prefix: str, limit: int) -> list[str]:
    """At most ``limit`` stored trace ids that start with ``prefix``, in order (``%`` and ``_``
    in the prefix are themselves, not wildcards)."""
    traces = schema.traces
    query = (
        select(traces.c.trace_id)
        .where(traces.c.trace_id.startswith(prefix, autoescape=True))
        .order_by(traces.c.trace_id)
        .limit(limit)
    )
    return list(connection.execute(query).scalars())


def _summary_query(where: TraceFilter, limit: int | None) -> Select[tuple[object, ...]]:
    traces = schema.traces
    query = select(
        traces.c.trace_id,
        traces.c.started_ns,
        traces.c.ended_ns,
        traces.c.span_count,
        traces.c.tool_names,
        traces.c.input_text,
        traces.c.final_output,
        traces.c.ingested_ns,
        traces.c.session_id,
    ).where(where.condition())
    query = query.order_by(traces.c.seq)
    return query if limit is None else query.limit(limit)


def list_trace_summaries(
    connection: Connection, where: TraceFilter, *, limit: int | None = None
) -> list[TraceSummary]:
    """Summary rows of the traces matching ``where``, in ingestion order, with their labels."""
    return summaries_of(connection, connection.execute(_summary_query(where, limit)).all())


def summaries_of(connection: Connection, rows: Sequence[Row[Any]]) -> list[TraceSummary]:
    """:class:`TraceSummary` of each row of the traces table (its summary columns), with the
    trace's labels, read 500 traces per query."""
    ids = [row.trace_id for row in rows]
    labels: dict[str, set[str]] = {}
    findings = schema.findings
    for start in range(0, len(ids), 500):
        query = select(findings.c.trace_id, findings.c.label).where(
            findings.c.trace_id.in_(ids[start : start + 500])
        )
        for trace_id, label in connection.execute(query):
            labels.setdefault(trace_id, set()).add(label)
    return [
        TraceSummary(
            trace_id=row.trace_id,
            started_ns=row.started_ns,
            ended_ns=row.ended_ns,
            span_count=row.span_count,
            tool_names=tuple(row.tool_names.split()),
            input_text=row.input_text,
            final_output=row.final_output,
            labels=tuple(sorted(labels.get(row.trace_id, ()))),
            ingested_ns=row.ingested_ns,
            session_id=row.session_id,
        )
        for row in rows
    ]
