"""Which stored traces to read: one :class:`TraceFilter`, built by ``traces list`` and ``score``
(their ``--label``, ``--tool``, ``--session``, ``--since`` and ``--until``), by the web UI's trace
list (those and ``status`` and ``text``), and taken by every reader of the store
(:mod:`trailcheck.store.reading`, :mod:`trailcheck.store.browse`).

The criteria (all optional, combined with *and*): ``label``, the trace has a finding with that
label (from any source); ``tool``, the trace called that tool; ``session``, the trace belongs to
that session (:mod:`trailcheck.trace.session`); ``status``, ``error`` when a span's status is
error and ``ok`` when none is; ``since`` (inclusive) and ``until`` (exclusive), when the trace
started: its first span's start, or when it was ingested if it has no spans (``traces.start_key``,
indexed); ``text``, a case-insensitive substring of the input or final output, or the trace id.
A naive ``datetime`` is UTC.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from sqlalchemy import ColumnElement, and_, exists, not_, or_, true

from trailcheck.store import schema

__all__ = ["TraceFilter", "TraceStatus", "to_ns"]

TraceStatus = Literal["error", "ok"]
_MAX_NS = 2**63 - 1
_MIN_NS = -(2**63)


def to_ns(moment: datetime) -> int:
    """Nanoseconds since the epoch; a naive ``datetime`` is taken as UTC. Clamped to the
    64-bit range the columns hold (years 1677 to 2262), which keeps comparisons right."""
    aware = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    delta = aware - datetime(1970, 1, 1, tzinfo=UTC)
    ns = (delta.days * 86_400 + delta.seconds) * 1_000_000_000 + delta.microseconds * 1_000
    return max(_MIN_NS, min(_MAX_NS, ns))


@dataclass(frozen=True)
class TraceFilter:
    """Which traces to read; ``None`` does not filter (the criteria: the module's docstring).
    :meth:`condition` is the filter as a ``WHERE`` clause over ``traces``."""

    label: str | None = None
    tool: str | None = None
    session: str | None = None
    status: TraceStatus | None = None
    since: datetime | None = None
    until: datetime | None = None
    text: str | None = None

    @property
    def narrows(self) -> bool:
        """Whether any criterion is set."""
        return self != TraceFilter()

    @property
    def checks_rows(self) -> bool:
        """Whether a criterion is checked row by row (and no session narrows the rows first)."""
        row_criteria = (self.label, self.tool, self.status, self.text)
        return self.session is None and any(value is not None for value in row_criteria)

    def condition(self) -> ColumnElement[bool]:
        """Every criterion."""
        return and_(self.indexed_condition(), self.row_condition())

    def indexed_condition(self) -> ColumnElement[bool]:
        """The criteria an index serves: the session and the start time range."""
        traces = schema.traces
        conditions: list[ColumnElement[bool]] = []
        if self.session is not None:
            conditions.append(traces.c.session_id == self.session)
        if self.since is not None:
            conditions.append(traces.c.start_key >= to_ns(self.since))
        if self.until is not None:
            conditions.append(traces.c.start_key < to_ns(self.until))
        return and_(true(), *conditions)

    def row_condition(self) -> ColumnElement[bool]:
        """The criteria checked row by row (an indexed lookup per row, or a substring)."""
        traces, spans, findings = schema.traces, schema.spans, schema.findings
        conditions: list[ColumnElement[bool]] = []
        if self.label is not None:
            conditions.append(
                exists().where(
                    findings.c.trace_id == traces.c.trace_id, findings.c.label == self.label
                )
            )
        if self.tool is not None:
            conditions.append(
                exists().where(
                    spans.c.trace_id == traces.c.trace_id, spans.c.tool_name == self.tool
                )
            )
        if self.status is not None:
            failed = exists().where(
                spans.c.trace_id == traces.c.trace_id, spans.c.status == "error"
            )
            conditions.append(failed if self.status == "error" else not_(failed))
        if self.text:
            pattern = "%" + _escape_like(self.text) + "%"
            conditions.append(
                or_(
                    traces.c.trace_id == self.text,
                    traces.c.input_text.ilike(pattern, escape="\\"),
                    traces.c.final_output.ilike(pattern, escape="\\"),
                )
            )
        return and_(true(), *conditions)


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
