"""Planning: the traces stored since each evaluator version's cursor made into its jobs.

Each evaluator version has a cursor (``online_cursors.last_seq``): every trace whose ``seq`` is
at most the cursor has been considered, and a job made for it (``online_jobs``) when it is
sampled and admitted by the filter. :func:`plan` reads the traces after the cursor in ``seq``
order, makes their jobs (insert-or-ignore: planning twice makes nothing twice) and moves the
cursor, in one transaction. On PostgreSQL a ``seq`` is taken before its transaction commits, so
a trace may appear below the cursor after it passed: a seq the cursor passes that no trace
holds is kept as a hole (``online_holes``) and looked at again on every pass, until its trace
is planned or the hole is an hour old (a seq left by a rolled back insert is never filled).
Two planners of one evaluator take turns on its cursor row (``FOR UPDATE``; on SQLite every
write transaction takes turns).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Final

import orjson
from sqlalchemy import Connection, Engine, delete, select, update

from trailcheck.online.config import Evaluator
from trailcheck.online.sampling import is_sampled, sampling_key
from trailcheck.store import schema
from trailcheck.store.backends import insert_or_ignore
from trailcheck.trace import Trace

__all__ = ["HOLE_TTL_NS", "MAX_HOLE_GAP", "plan", "register"]

# How long a seq below a cursor may stay empty before no trace is expected there any more.
HOLE_TTL_NS: Final = 3_600 * 10**9
# The widest gap of seqs kept as holes: writers in flight at once take a few seqs each, while
# a wider gap is traces deleted (retention), which no commit will fill.
MAX_HOLE_GAP: Final = 10_000

_jobs = schema.online_jobs
_cursors = schema.online_cursors
_holes = schema.online_holes
_traces = schema.traces


def register(engine: Engine, evaluators: Iterable[Evaluator], now_ns: int) -> None:
    """Record each evaluator version and give it a cursor at the start, if it has none."""
    versions = [
        {
            "name": evaluator.name,
            "version": evaluator.version,
            "kind": evaluator.kind,
            "definition": orjson.dumps(evaluator.definition, option=orjson.OPT_SORT_KEYS).decode(),
            "registered_ns": now_ns,
        }
        for evaluator in evaluators
    ]
    cursors = [
        {"name": row["name"], "version": row["version"], "last_seq": 0, "updated_ns": now_ns}
        for row in versions
    ]
    with engine.begin() as connection:
        insert_or_ignore(connection, schema.online_evaluators, versions)
        insert_or_ignore(connection, _cursors, cursors)


def plan(engine: Engine, evaluator: Evaluator, now_ns: int, *, batch: int = 2_000) -> int:
    """Consider up to ``batch`` traces after the evaluator's cursor (and the traces that filled
    its holes): make the jobs of those sampled and admitted, and move the cursor past them.
    Returns how many traces were considered; 0 when there were none, or when another planner
    holds the cursor."""
    key = (_cursors.c.name == evaluator.name) & (_cursors.c.version == evaluator.version)
    with engine.begin() as connection:
        cursor = connection.execute(
            select(_cursors.c.last_seq).where(key).with_for_update(skip_locked=True)
        ).scalar_one_or_none()
        if cursor is None:  # another planner holds it (or the evaluator is not registered)
            return 0
        filled = _filled_holes(connection, evaluator, now_ns)
        rows = connection.execute(
            _trace_columns(evaluator)
            .where(_traces.c.seq > cursor)
            .order_by(_traces.c.seq)
            .limit(batch)
        ).all()
        considered = [*filled, *rows]
        _make_jobs(connection, evaluator, considered, now_ns)
        if rows:
            last = rows[-1].seq
            _note_holes(connection, evaluator, cursor, rows, now_ns)
            connection.execute(update(_cursors).where(key).values(last_seq=last, updated_ns=now_ns))
        return len(considered)


def _trace_columns(evaluator: Evaluator) -> Any:
    columns = [
        _traces.c.seq,
        _traces.c.trace_id,
        _traces.c.session_id,
        _traces.c.start_key,
        _traces.c.ingested_ns,
    ]
    if _reads_content(evaluator):
        columns.append(_traces.c.content)
    return select(*columns)


def _reads_content(evaluator: Evaluator) -> bool:
    """Whether the filter asks about more than the trace's id and start (its content)."""
    chosen = evaluator.filter
    return bool(
        chosen.service
        or chosen.agent
        or chosen.tool
        or chosen.label
        or chosen.metadata
        or chosen.metadata_keys
    )


def _filled_holes(connection: Connection, evaluator: Evaluator, now_ns: int) -> list[Any]:
    """The traces that appeared in the evaluator's holes (whose holes are then closed), and the
    holes too old to wait for, closed."""
    key = (_holes.c.name == evaluator.name) & (_holes.c.version == evaluator.version)
    holes = select(_holes.c.seq).where(key)
    rows = connection.execute(_trace_columns(evaluator).where(_traces.c.seq.in_(holes))).all()
    done = [row.seq for row in rows]
    stale = _holes.c.noticed_ns < now_ns - HOLE_TTL_NS
    connection.execute(delete(_holes).where(key & (_holes.c.seq.in_(done) | stale)))
    return list(rows)


def _note_holes(
    connection: Connection, evaluator: Evaluator, cursor: int, rows: Sequence[Any], now_ns: int
) -> None:
    """Keep as holes the seqs missing between the cursor and the last of ``rows`` (in seq
    order) that a transaction still in flight could fill: a gap is one when the trace after it
    was stored within the hour and the gap is no wider than :data:`MAX_HOLE_GAP`. Older or
    wider gaps are deleted history (a new cursor, 0, starts below the first trace kept)."""
    holes = []
    previous = cursor or rows[0].seq - 1
    for row in rows:
        gap = range(previous + 1, row.seq)
        recent = row.ingested_ns >= now_ns - HOLE_TTL_NS
        if gap and recent and len(gap) <= MAX_HOLE_GAP:
            holes += [
                {
                    "name": evaluator.name,
                    "version": evaluator.version,
                    "seq": seq,
                    "noticed_ns": now_ns,
                }
                for seq in gap
            ]
        previous = row.seq
    insert_or_ignore(connection, _holes, holes)


def _make_jobs(
    connection: Connection, evaluator: Evaluator, rows: Sequence[Any], now_ns: int
) -> None:
    chosen = [
        row
        for row in rows
        if is_sampled(
            sampling_key(row.trace_id, row.session_id, evaluator.sample_by), evaluator.sampling
        )
    ]
    if _reads_content(evaluator):
        labels = (
            _labels(connection, [row.trace_id for row in chosen]) if evaluator.filter.label else {}
        )
        chosen = [
            row
            for row in chosen
            if evaluator.filter.admits(
                Trace.model_validate_json(row.content),
                labels=labels.get(row.trace_id, ()),
                started_ns=row.start_key,
            )
        ]
    else:
        chosen = [row for row in chosen if _in_window(evaluator, row.start_key)]
    delay_ns = evaluator.delay_seconds * 10**9
    jobs = [
        {
            "name": evaluator.name,
            "version": evaluator.version,
            "trace_id": row.trace_id,
            "trace_ns": row.start_key,
            "due_ns": row.ingested_ns + delay_ns,
            "state": "due",
            "attempts": 0,
            "next_attempt_ns": 0,
            "updated_ns": now_ns,
        }
        for row in chosen
    ]
    insert_or_ignore(connection, _jobs, jobs)


def _in_window(evaluator: Evaluator, started_ns: int) -> bool:
    return evaluator.filter.admits(Trace(trace_id="-"), started_ns=started_ns)


def _labels(connection: Connection, trace_ids: Sequence[str]) -> dict[str, set[str]]:
    findings = schema.findings
    labels: dict[str, set[str]] = {}
    rows = connection.execute(
        select(findings.c.trace_id, findings.c.label).where(findings.c.trace_id.in_(trace_ids))
    )
    for trace_id, label in rows:
        labels.setdefault(trace_id, set()).add(label)
    return labels
