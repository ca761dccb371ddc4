"""The online worker's queue, in the store: lease what is due, close it exactly once. The jobs
are made by planning (:mod:`.planning`).

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

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from sqlalchemy import (
    Connection,
    Engine,
    bindparam,
    func,
    insert,
    or_,
    select,
    update,
)

from trailcheck.store import schema
from trailcheck.store.backends import read_only
from trailcheck.store.observations import write_findings
from trailcheck.trace import Finding

__all__ = [
    "FINAL_STATES",
    "HOUR_NS",
    "Closing",
    "Job",
    "JobState",
    "claim",
    "close_jobs",
    "judge_spend",
    "oldest_in_hour",
]

JobState = Literal["due", "leased", "scored", "skipped", "failed", "quarantined"]
FINAL_STATES: Final[tuple[JobState, ...]] = ("scored", "skipped", "failed", "quarantined")


# The span a judges' budget is counted over.
HOUR_NS: Final = 3_600 * 10**9

_jobs = schema.online_jobs


@dataclass(frozen=True, slots=True)
class Job:
    """A leased job: which evaluator version scores which trace, and which attempt this is."""

    id: int
    name: str
    version: str
    trace_id: str
    trace_ns: int
    attempts: int


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


def oldest_in_hour(engine: Engine, now_ns: int) -> int:
    """When the oldest judge call of the last hour started (``now_ns`` when there is none)."""
    table = schema.online_executions
    with read_only(engine) as connection:
        oldest = connection.execute(
            select(table.c.started_ns)
            .where((table.c.kind == "judge") & (table.c.started_ns >= now_ns - HOUR_NS))
            .order_by(table.c.started_ns)
            .limit(1)
        ).scalar_one_or_none()
    return now_ns if oldest is None else int(oldest)
