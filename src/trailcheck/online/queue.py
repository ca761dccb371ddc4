"""The online worker's queue, in the store: plan what is due, lease it, finish it exactly once.

**Planning.** Each evaluator version has a cursor (``online_cursors.last_seq``): every trace
whose ``seq`` is at most the cursor has been considered, and a job made for it
(``online_jobs``) when it is sampled and admitted by the filter. :func:`plan` reads the traces
after the cursor in ``seq`` order, makes their jobs (insert-or-ignore: planning twice makes
nothing twice) and moves the cursor, in one transaction. On PostgreSQL a ``seq`` is taken
before its transaction commits, so a trace may appear below the cursor after it passed: a seq
the cursor passes that no trace holds is kept as a hole (``online_holes``) and looked at again
on every pass, until its trace is planned or the hole is an hour old (a seq left by a rolled
back insert is never filled). Two planners of one evaluator take turns on its cursor row
(``FOR UPDATE``; on SQLite every write transaction takes turns).

**Leasing.** :func:`claim` hands out due jobs (``due_ns`` and ``next_attempt_ns`` passed) and
jobs whose lease expired (their worker died), marking each leased to the worker until
``now + lease``, counting the attempt. On PostgreSQL the jobs are chosen ``FOR UPDATE SKIP
LOCKED``, so workers claiming at once take different jobs without waiting on each other; on
SQLite the claim is one write transaction, and those take turns.

**Closing.** :func:`close_jobs` closes a batch of jobs in one transaction: each job's new state
with its execution and, for a verdict, the score (and the finding of a failure), only while
the worker still holds the lease of that attempt: a worker whose lease expired and was taken
over writes its execution (``lost_lease``: it happened, and may have cost a model call) but no
score. A score's key is (evaluator, version, trace), so a trace is scored at most once per
version. One transaction a batch, not one a job: a commit is the cost of a job otherwise.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

import orjson
from sqlalchemy import (
    Connection,
    Engine,
    bindparam,
    delete,
    func,
    insert,
    or_,
    select,
    update,
)

from trailcheck.online.config import Evaluator
from trailcheck.online.sampling import is_sampled, sampling_key
from trailcheck.store import schema
from trailcheck.store.backends import insert_or_ignore, read_only
from trailcheck.store.observations import write_findings
from trailcheck.trace import Finding, Trace

__all__ = [
    "FINAL_STATES",
    "HOLE_TTL_NS",
    "MAX_HOLE_GAP",
    "Closing",
    "Job",
    "JobState",
    "claim",
    "close_jobs",
    "judge_spend",
    "plan",
    "register",
]

JobState = Literal["due", "leased", "scored", "skipped", "failed", "quarantined"]
FINAL_STATES: Final[tuple[JobState, ...]] = ("scored", "skipped", "failed", "quarantined")

# How long a seq below a cursor may stay empty before no trace is expected there any more.
HOLE_TTL_NS: Final = 3_600 * 10**9
# The widest gap of seqs kept as holes: writers in flight at once take a few seqs each, while
# a wider gap is traces deleted (retention), which no commit will fill.
MAX_HOLE_GAP: Final = 10_000

_jobs = schema.online_jobs
_cursors = schema.online_cursors
_holes = schema.online_holes
_traces = schema.traces


@dataclass(frozen=True, slots=True)
class Job:
    """A leased job: which evaluator version scores which trace, and which attempt this is."""

    id: int
    name: str
    version: str
    trace_id: str
    trace_ns: int
    attempts: int


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


def claim(
    engine: Engine,
    worker: str,
    versions: Collection[tuple[str, str]],
    now_ns: int,
    *,
    lease_ns: int,
    limit: int,
) -> list[Job]:
    """Lease up to ``limit`` jobs of the given evaluator versions to ``worker``: those due, and
    those whose lease expired; oldest due first."""
    if not versions or limit <= 0:
        return []
    of_versions = or_(
        *((_jobs.c.name == name) & (_jobs.c.version == version) for name, version in versions)
    )
    # Two selects, not one with an OR: each then walks the (state, due_ns) index to the jobs it
    # wants, where one OR made the database sort every job of the version, finished or not.
    due = (
        select(_jobs.c.id)
        .where(
            (_jobs.c.state == "due")
            & (_jobs.c.due_ns <= now_ns)
            & (_jobs.c.next_attempt_ns <= now_ns)
            & of_versions
        )
        .order_by(_jobs.c.due_ns, _jobs.c.id)
        .limit(limit)
        .with_for_update(skip_locked=True)
    )
    expired = (
        select(_jobs.c.id)
        .where((_jobs.c.state == "leased") & (_jobs.c.lease_expires_ns <= now_ns) & of_versions)
        .order_by(_jobs.c.due_ns, _jobs.c.id)
        .limit(limit)
        .with_for_update(skip_locked=True)
    )
    with engine.begin() as connection:
        taken = list(connection.execute(expired).scalars())
        if len(taken) < limit:
            taken += connection.execute(due.limit(limit - len(taken))).scalars()
        if not taken:
            return []
        rows = connection.execute(
            update(_jobs)
            .where(_jobs.c.id.in_(taken))
            .values(
                state="leased",
                lease_owner=worker,
                lease_expires_ns=now_ns + lease_ns,
                attempts=_jobs.c.attempts + 1,
                updated_ns=now_ns,
            )
            .returning(
                _jobs.c.id,
                _jobs.c.name,
                _jobs.c.version,
                _jobs.c.trace_id,
                _jobs.c.trace_ns,
                _jobs.c.attempts,
            )
        ).all()
    jobs = [Job(*row) for row in rows]
    return sorted(jobs, key=lambda job: job.id)


@dataclass(frozen=True, slots=True)
class Closing:
    """What becomes of one leased job: its new ``state`` (a final one, or ``due`` again at
    ``next_attempt_ns``), the execution to record (none for a job put back untried), and for
    a verdict the score and the finding. ``untried``: the attempt did not happen (a budget was
    spent), so it is not counted."""

    job: Job
    state: JobState
    execution: dict[str, Any] | None = None
    score: dict[str, Any] | None = None
    finding: Finding | None = None
    error: str | None = None
    next_attempt_ns: int | None = None
    untried: bool = False


def close_jobs(engine: Engine, worker: str, now_ns: int, closings: Sequence[Closing]) -> set[int]:
    """Close a batch of jobs in one transaction: each job ``worker`` still holds (the lease of
    that attempt) takes its new state, with its execution, score and finding; each it no
    longer holds keeps its row as the worker that took it over leaves it, and its execution is
    recorded as ``lost_lease`` (it happened, and may have cost a model call). Returns the ids
    of the jobs closed. On PostgreSQL the held rows are locked first, so no other worker can
    take one over between the check and the write."""
    if not closings:
        return set()
    with engine.begin() as connection:
        held = _still_held(connection, worker, closings)
        kept = [c for c in closings if c.job.id in held]
        _update_jobs(connection, kept, now_ns)
        executions = [
            c.execution if c.job.id in held else {**c.execution, "outcome": "lost_lease"}
            for c in closings
            if c.execution is not None
        ]
        ids = dict(
            zip(
                (c.job.id for c in closings if c.execution is not None),
                _record_all(connection, executions),
                strict=True,
            )
        )
        scores = [{**c.score, "execution_id": ids[c.job.id]} for c in kept if c.score is not None]
        if scores:
            connection.execute(insert(schema.online_scores), scores)
        findings = [c.finding for c in kept if c.finding is not None]
        if findings:
            write_findings(connection, findings)
    return held


def _still_held(connection: Connection, worker: str, closings: Sequence[Closing]) -> set[int]:
    attempts = {c.job.id: c.job.attempts for c in closings}
    rows = connection.execute(
        select(_jobs.c.id, _jobs.c.attempts)
        .where(
            _jobs.c.id.in_(list(attempts))
            & (_jobs.c.state == "leased")
            & (_jobs.c.lease_owner == worker)
        )
        .with_for_update()
    )
    return {job_id for job_id, tried in rows if attempts[job_id] == tried}


def _update_jobs(connection: Connection, kept: Sequence[Closing], now_ns: int) -> None:
    """The new states, in one statement a shape: closed for good, tried again later, put back
    untried (its attempt given back)."""
    released = {"lease_owner": None, "lease_expires_ns": None, "updated_ns": now_ns}
    by_id = _jobs.c.id == bindparam("job_id")
    final = [c for c in kept if c.state != "due"]
    retried = [c for c in kept if c.state == "due" and not c.untried]
    untried = [c for c in kept if c.state == "due" and c.untried]
    if final:
        connection.execute(
            update(_jobs)
            .where(by_id)
            .values(state=bindparam("new_state"), last_error=bindparam("new_error"), **released),
            [{"job_id": c.job.id, "new_state": c.state, "new_error": c.error} for c in final],
        )
    if retried:
        connection.execute(
            update(_jobs)
            .where(by_id)
            .values(
                state="due",
                next_attempt_ns=bindparam("new_next"),
                last_error=bindparam("new_error"),
                **released,
            ),
            [
                {"job_id": c.job.id, "new_next": c.next_attempt_ns, "new_error": c.error}
                for c in retried
            ],
        )
    if untried:
        connection.execute(
            update(_jobs)
            .where(by_id)
            .values(
                state="due",
                next_attempt_ns=bindparam("new_next"),
                attempts=_jobs.c.attempts - 1,
                **released,
            ),
            [{"job_id": c.job.id, "new_next": c.next_attempt_ns} for c in untried],
        )


def _record_all(connection: Connection, executions: Sequence[dict[str, Any]]) -> list[int]:
    """Insert the execution rows; their ids, in their order."""
    if not executions:
        return []
    table = schema.online_executions
    rows = connection.execute(
        insert(table).returning(table.c.id, sort_by_parameter_order=True), list(executions)
    )
    return [int(row_id) for (row_id,) in rows]


def judge_spend(engine: Engine, since_ns: int) -> tuple[int, int]:
    """The judge calls made since ``since_ns`` by every worker on this store, and the tokens
    they used: what a budget per hour is checked against."""
    table = schema.online_executions
    tokens = func.coalesce(table.c.input_tokens, 0) + func.coalesce(table.c.output_tokens, 0)
    with read_only(engine) as connection:
        calls, used = connection.execute(
            select(func.count(), func.coalesce(func.sum(tokens), 0)).where(
                (table.c.kind == "judge") & (table.c.started_ns >= since_ns)
            )
        ).one()
    return int(calls), int(used)
