"""Browsing traces newest first, a page at a time, however many are stored (the web UI's list).

Pages are keyed, not offset: the list is ordered by (start, trace id), both descending, and the
next page is the rows after the last one shown (its :class:`Cursor`), so page 5,000 costs what
page 1 does. The start is ``traces.start_key`` (the first span's start, else when ingested,
computed by the database); migration m007 added it with an index on it and the trace id, which
serves the order, the page position and the time range.

Which traces: a :class:`~trailcheck.store.trace_filter.TraceFilter`. Indexes serve its start time
range and ``session``; ``label``, ``tool``, ``status`` and ``text`` are checked row by row. No
index serves a substring on SQLite, and PostgreSQL's trigram index is a server extension a team
store may not have.

A row-by-row filter reads traces newest first until the page is full, so a value on many
traces is quick and a rare one would read the whole table. So that no request does, such a
filter (without a session) searches at most ``window`` traces after the page's position: when
they hold fewer matches than a page, the page is short, :attr:`TracePage.searched_to` says how
far back it searched, and its next cursor goes on from there ("search older"). Figures in
docs/ui.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, Connection, Engine, Row, Select, func, select, true, tuple_

from trailcheck.store import schema
from trailcheck.store.backends import read_only
from trailcheck.store.reading import TraceSummary, summaries_of
from trailcheck.store.trace_filter import TraceFilter

__all__ = [
    "SCAN_WINDOW",
    "Cursor",
    "LabelDay",
    "TracePage",
    "browse_traces",
    "label_days",
]

NS_PER_DAY = 86_400 * 1_000_000_000
SCAN_WINDOW = 50_000
"""The most traces one request reads for a row-by-row filter (about 50 ms on either backend)."""


@dataclass(frozen=True)
class Cursor:
    """Where a page ends: the start and id of its last trace. Its text form goes in a URL."""

    start_ns: int
    trace_id: str

    def text(self) -> str:
        return f"{self.start_ns}:{self.trace_id}"

    @classmethod
    def parse(cls, text: str) -> Cursor | None:
        """The cursor ``text`` names, or None when it is not one."""
        start, _, trace_id = text.partition(":")
        try:
            return cls(int(start), trace_id) if trace_id else None
        except ValueError:
            return None


@dataclass(frozen=True)
class TracePage:
    """One page of summaries, newest first, and the cursor of the next page (None: last).
    ``searched_to`` is set when the page stopped short at the search window: the oldest trace
    searched, where the next page goes on searching."""

    traces: list[TraceSummary]
    next_cursor: Cursor | None
    searched_to: Cursor | None = None


def _order(query: Select[Any]) -> Select[Any]:
    traces = schema.traces
    return query.order_by(traces.c.start_key.desc(), traces.c.trace_id.desc())


def _before(after: Cursor | None) -> ColumnElement[bool]:
    """Rows that come after ``after`` in the list (older, or as old with a smaller id)."""
    if after is None:
        return true()
    traces = schema.traces
    position = tuple_(traces.c.start_key, traces.c.trace_id)
    return position < tuple_(after.start_ns, after.trace_id)


def _window_end(
    connection: Connection, where: TraceFilter, after: Cursor | None, window: int
) -> Cursor | None:
    """The ``window``-th trace after ``after`` in the time range (read off the index alone);
    None when fewer are left."""
    traces = schema.traces
    query = select(traces.c.start_key, traces.c.trace_id).where(
        where.indexed_condition(), _before(after)
    )
    row = connection.execute(_order(query).offset(window - 1).limit(1)).first()
    return None if row is None else Cursor(row.start_key, row.trace_id)


def browse_traces(
    engine: Engine,
    where: TraceFilter,
    *,
    after: Cursor | None = None,
    limit: int = 50,
    window: int = SCAN_WINDOW,
) -> TracePage:
    """The ``limit`` newest traces matching ``where`` that come after ``after``; a row-by-row
    filter searches ``window`` traces at most (see the module's docstring)."""
    if limit < 1 or window < 1:
        raise ValueError(f"limit and window must be at least 1, not {limit} and {window}")
    traces = schema.traces
    query = select(
        traces.c.trace_id,
        traces.c.start_key,
        traces.c.started_ns,
        traces.c.ended_ns,
        traces.c.span_count,
        traces.c.tool_names,
        traces.c.input_text,
        traces.c.final_output,
        traces.c.ingested_ns,
        traces.c.session_id,
    ).where(where.condition(), _before(after))
    with read_only(engine) as connection:
        end = _window_end(connection, where, after, window) if where.checks_rows else None
        if end is not None:
            position = tuple_(traces.c.start_key, traces.c.trace_id)
            query = query.where(position >= tuple_(end.start_ns, end.trace_id))
        rows = connection.execute(_order(query).limit(limit + 1)).all()
    shown = rows[:limit]
    summaries = _summaries(engine, shown)
    if len(rows) > limit:
        return TracePage(summaries, Cursor(shown[-1].start_key, shown[-1].trace_id))
    return TracePage(summaries, end, searched_to=end)


def _summaries(engine: Engine, rows: Sequence[Row[Any]]) -> list[TraceSummary]:
    with read_only(engine) as connection:
        return summaries_of(connection, rows)


@dataclass(frozen=True)
class LabelDay:
    """How many traces that started on one UTC day have a finding with ``label``."""

    label: str
    day_start_ns: int
    traces: int


def label_days(engine: Engine, *, since_ns: int | None = None) -> list[LabelDay]:
    """Traces per label and UTC day of their start (from ``since_ns``), by label then day."""
    traces, findings = schema.traces, schema.findings
    day = (traces.c.start_key // NS_PER_DAY).label("day")
    query = (
        select(findings.c.label, day, func.count(func.distinct(traces.c.trace_id)))
        .join(traces, traces.c.trace_id == findings.c.trace_id)
        .group_by(findings.c.label, day)
        .order_by(findings.c.label, day)
    )
    if since_ns is not None:
        query = query.where(traces.c.start_key >= since_ns)
    with read_only(engine) as connection:
        rows = connection.execute(query).all()
    return [LabelDay(label, int(bucket) * NS_PER_DAY, count) for label, bucket, count in rows]
