"""Sessions: the stored traces grouped by the session they belong to, for multi-turn grading and
``trailcheck traces sessions``.

A trace's session is :func:`trailcheck.trace.session.session_id`, kept in
``traces.session_id`` when the trace is stored; a trace without one is in no session. Times are
start times as the readers define them (:func:`trailcheck.store.reading.start_ns`: a trace
without spans counts from when it was ingested).

A session's traces stream in start order (ties in ingestion order) by keyset pagination on
(start, ``seq``), like :func:`trailcheck.store.reading.iter_stored_traces`: one short query per
page, no transaction held between pages.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from sqlalchemy import Connection, Engine, and_, func, or_, select

from trailcheck.store import schema
from trailcheck.store.backends import read_only
from trailcheck.store.reading import DEFAULT_PAGE_SIZE, start_ns
from trailcheck.trace import Trace

__all__ = ["SessionSummary", "iter_session_traces", "list_session_summaries"]


@dataclass(frozen=True)
class SessionSummary:
    """One line of ``trailcheck traces sessions``: a session, how many traces it holds, and
    when its first and last trace started."""

    session_id: str
    trace_count: int
    first_started_ns: int
    last_started_ns: int


def list_session_summaries(
    connection: Connection, *, limit: int | None = None
) -> list[SessionSummary]:
    """Every session with its trace count and first and last start, in order of first start
    (ties by session id)."""
    traces = schema.traces
    started = start_ns()
    first = func.min(started).label("first_started_ns")
    query = (
        select(
            traces.c.session_id,
            func.count().label("trace_count"),
            first,
            func.max(started).label("last_started_ns"),
        )
        .where(traces.c.session_id.is_not(None))
        .group_by(traces.c.session_id)
        .order_by(first, traces.c.session_id)
    )
    if limit is not None:
        query = query.limit(limit)
    return [
        SessionSummary(
            session_id=row.session_id,
            trace_count=row.trace_count,
            first_started_ns=row.first_started_ns,
            last_started_ns=row.last_started_ns,
        )
        for row in connection.execute(query)
    ]


def iter_session_traces(
    engine: Engine, session_id: str, *, batch_size: int = DEFAULT_PAGE_SIZE
) -> Iterator[Trace]:
    """The traces of session ``session_id`` in start order, ``batch_size`` rows per query; none
    when no stored trace belongs to it."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, not {batch_size}")
    traces = schema.traces
    started = start_ns().label("started")
    query = (
        select(started, traces.c.seq, traces.c.content)
        .where(traces.c.session_id == session_id)
        .order_by(started, traces.c.seq)
        .limit(batch_size)
    )
    after = query
    while True:
        with read_only(engine) as connection:
            page = connection.execute(after).all()
        for row in page:
            yield Trace.model_validate_json(row.content)
        if len(page) < batch_size:
            return
        last = page[-1]
        after = query.where(
            or_(
                start_ns() > last.started,
                and_(start_ns() == last.started, traces.c.seq > last.seq),
            )
        )
