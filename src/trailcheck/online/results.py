"""What the online scores say: per evaluator version, the failure rate with its interval, over
everything kept or a period, in windows of the traces' time, and the state of the queue.

Windows are counted by when the trace **started** (a score's ``trace_ns``), not when it was
scored: a backlog scored at once still lands in the hours its traffic came in. They are aligned
to ``since`` when given, else to the epoch (so hourly windows are clock hours in UTC); a window
with nothing scored is left out.

A judge evaluator's calibration is shown when people labelled some of the traces it scored
(``trailcheck label``): the agreement table and Cohen's kappa with its interval.

:func:`failing_scores` pages through the traces an evaluator version failed, newest trace first,
as the trace list pages (:class:`~trailcheck.store.browse.Cursor`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict
from sqlalchemy import Engine, case, func, select, tuple_

from trailcheck.intervals import DEFAULT_LEVEL
from trailcheck.judge.agreement import Confusion, cohen_kappa, confusion
from trailcheck.online.fields import iso
from trailcheck.online.rates import RateMethod, WindowCounts, failure_rate
from trailcheck.scorers import Attribution
from trailcheck.store import schema
from trailcheck.store.backends import read_only
from trailcheck.store.browse import Cursor

__all__ = [
    "Calibration",
    "EvaluatorStatus",
    "FailingPage",
    "FailingScore",
    "OnlineStatus",
    "WindowStatus",
    "failing_scores",
    "online_status",
    "window_counts",
]

_scores = schema.online_scores
_jobs = schema.online_jobs


class WindowStatus(BaseModel):
    """One window of one evaluator version."""

    model_config = ConfigDict(frozen=True)

    start: str
    end: str
    start_ns: int
    end_ns: int
    scored: int
    passed: int
    failure_rate: float | None
    interval: tuple[float | None, float | None]


class Calibration(BaseModel):
    """How a judge's online verdicts agree with people's labels of the same traces."""

    model_config = ConfigDict(frozen=True)

    labelled: int
    confusion: Confusion
    kappa: float | None
    kappa_interval: tuple[float | None, float | None]


class EvaluatorStatus(BaseModel):
    """An evaluator version's scores and queue."""

    model_config = ConfigDict(frozen=True)

    name: str
    version: str
    kind: str
    scored: int
    passed: int
    failed: int
    failure_rate: float | None
    interval: tuple[float | None, float | None]
    level: float
    method: RateMethod
    skipped: int
    waiting: int
    failed_executions: int
    quarantined: int
    lag_s: float | None
    windows: list[WindowStatus]
    calibration: Calibration | None = None


class OnlineStatus(BaseModel):
    """Every evaluator version's status (JSON: ``trailcheck online status --json``)."""

    model_config = ConfigDict(frozen=True)

    since: str | None
    window: str | None
    evaluators: list[EvaluatorStatus]


def window_counts(
    engine: Engine,
    name: str,
    version: str,
    *,
    window_ns: int,
    origin_ns: int = 0,
    since_ns: int | None = None,
    until_ns: int | None = None,
) -> dict[int, WindowCounts]:
    """Scored and passed per window of ``window_ns`` (keyed by the window's start), of traces
    that started in ``[since_ns, until_ns)``."""
    bucket = (_scores.c.trace_ns - origin_ns) // window_ns
    passed = func.sum(case((_scores.c.passed, 1), else_=0))
    where = (_scores.c.name == name) & (_scores.c.version == version)
    if since_ns is not None:
        where &= _scores.c.trace_ns >= since_ns
    if until_ns is not None:
        where &= _scores.c.trace_ns < until_ns
    query = select(bucket, func.count(), passed).where(where).group_by(bucket).order_by(bucket)
    with read_only(engine) as connection:
        rows = connection.execute(query).all()
    return {
        origin_ns + int(index) * window_ns: WindowCounts(scored=int(count), passed=int(ok or 0))
        for index, count, ok in rows
    }


def online_status(
    engine: Engine,
    *,
    now_ns: int,
    since_ns: int | None = None,
    window_ns: int | None = None,
    window_text: str | None = None,
    versions: Sequence[tuple[str, str]] | None = None,
    level: float = DEFAULT_LEVEL,
    method: RateMethod = "wilson",
) -> OnlineStatus:
    """Each evaluator version's status: the ones named by ``versions`` (those of a file), else
    every version the store has met, in name order."""
    with read_only(engine) as connection:
        known = connection.execute(
            select(
                schema.online_evaluators.c.name,
                schema.online_evaluators.c.version,
                schema.online_evaluators.c.kind,
            ).order_by(schema.online_evaluators.c.name, schema.online_evaluators.c.registered_ns)
        ).all()
        totals = _totals(connection, since_ns)
        states = _states(connection)
        lags = _lags(connection, now_ns)
    wanted = None if versions is None else set(versions)
    statuses = []
    for name, version, kind in known:
        if wanted is not None and (name, version) not in wanted:
            continue
        counts = totals.get((name, version), WindowCounts(scored=0, passed=0))
        rate = failure_rate(counts, level=level, method=method)
        state = states.get((name, version), {})
        windows = []
        if window_ns is not None:
            origin = since_ns or 0
            for start, in_window in window_counts(
                engine, name, version, window_ns=window_ns, origin_ns=origin, since_ns=since_ns
            ).items():
                windowed = failure_rate(in_window, level=level, method=method)
                windows.append(
                    WindowStatus(
                        start=iso(start),
                        end=iso(start + window_ns),
                        start_ns=start,
                        end_ns=start + window_ns,
                        scored=in_window.scored,
                        passed=in_window.passed,
                        failure_rate=windowed.value,
                        interval=(windowed.interval.low, windowed.interval.high),
                    )
                )
        lag = lags.get((name, version))
        statuses.append(
            EvaluatorStatus(
                name=name,
                version=version,
                kind=kind,
                scored=counts.scored,
                passed=counts.passed,
                failed=counts.failed,
                failure_rate=rate.value,
                interval=(rate.interval.low, rate.interval.high),
                level=level,
                method=method,
                skipped=state.get("skipped", 0),
                waiting=state.get("due", 0) + state.get("leased", 0),
                failed_executions=state.get("failed", 0),
                quarantined=state.get("quarantined", 0),
                lag_s=None if lag is None else lag / 1e9,
                windows=windows,
                calibration=_calibration(engine, name, version) if kind == "judge" else None,
            )
        )
    return OnlineStatus(
        since=None if since_ns is None else iso(since_ns),
        window=window_text,
        evaluators=statuses,
    )


def _totals(connection: Any, since_ns: int | None) -> dict[tuple[str, str], WindowCounts]:
    passed = func.sum(case((_scores.c.passed, 1), else_=0))
    query = select(_scores.c.name, _scores.c.version, func.count(), passed).group_by(
        _scores.c.name, _scores.c.version
    )
    if since_ns is not None:
        query = query.where(_scores.c.trace_ns >= since_ns)
    return {
        (name, version): WindowCounts(scored=int(count), passed=int(ok or 0))
        for name, version, count, ok in connection.execute(query)
    }


def _states(connection: Any) -> dict[tuple[str, str], dict[str, int]]:
    query = select(_jobs.c.name, _jobs.c.version, _jobs.c.state, func.count()).group_by(
        _jobs.c.name, _jobs.c.version, _jobs.c.state
    )
    states: dict[tuple[str, str], dict[str, int]] = {}
    for name, version, state, count in connection.execute(query):
        states.setdefault((name, version), {})[state] = int(count)
    return states


def _lags(connection: Any, now_ns: int) -> dict[tuple[str, str], int]:
    """How long the oldest job that is due now has waited, per evaluator version."""
    query = (
        select(_jobs.c.name, _jobs.c.version, func.min(_jobs.c.due_ns))
        .where(_jobs.c.state.in_(("due", "leased")) & (_jobs.c.due_ns <= now_ns))
        .group_by(_jobs.c.name, _jobs.c.version)
    )
    return {
        (name, version): max(0, now_ns - int(oldest))
        for name, version, oldest in connection.execute(query)
    }


def _calibration(engine: Engine, name: str, version: str) -> Calibration | None:
    labels = schema.judge_labels
    query = select(labels.c.passed, _scores.c.passed).join(
        _scores, labels.c.trace_id == _scores.c.trace_id
    )
    query = query.where(
        (_scores.c.name == name) & (_scores.c.version == version) & labels.c.case_id.is_(None)
    )
    with read_only(engine) as connection:
        pairs = [(bool(human), bool(judge)) for human, judge in connection.execute(query)]
    if not pairs:
        return None
    kappa = cohen_kappa(pairs)
    return Calibration(
        labelled=len(pairs),
        confusion=confusion(pairs),
        kappa=kappa.value,
        kappa_interval=(kappa.interval.low, kappa.interval.high),
    )


class FailingScore(BaseModel):
    """A trace an evaluator version failed: when it started and was scored, and why."""

    model_config = ConfigDict(frozen=True)

    trace_id: str
    trace_ns: int
    scored_ns: int
    label: str | None
    value: float | None
    reason: str
    attribution: Attribution | None = None


@dataclass(frozen=True)
class FailingPage:
    """One page of failing scores, newest trace first, and where the next begins (None: last)."""

    scores: list[FailingScore]
    next_cursor: Cursor | None


def failing_scores(
    engine: Engine,
    name: str,
    version: str,
    *,
    since_ns: int | None = None,
    after: Cursor | None = None,
    limit: int = 50,
) -> FailingPage:
    """The ``limit`` newest traces (by start) that ``name@version`` failed, after ``after``,
    of traces that started at or after ``since_ns`` when given."""
    if limit < 1:
        raise ValueError(f"limit must be at least 1, not {limit}")
    where = (_scores.c.name == name) & (_scores.c.version == version) & ~_scores.c.passed
    if since_ns is not None:
        where &= _scores.c.trace_ns >= since_ns
    if after is not None:
        where &= tuple_(_scores.c.trace_ns, _scores.c.trace_id) < tuple_(
            after.start_ns, after.trace_id
        )
    query = (
        select(
            _scores.c.trace_id,
            _scores.c.trace_ns,
            _scores.c.scored_ns,
            _scores.c.label,
            _scores.c.value,
            _scores.c.reason,
            _scores.c.attribution,
        )
        .where(where)
        .order_by(_scores.c.trace_ns.desc(), _scores.c.trace_id.desc())
        .limit(limit + 1)  # one more says whether a next page exists
    )
    with read_only(engine) as connection:
        rows = connection.execute(query).mappings().all()
    found = [_failing_score(row) for row in rows[:limit]]
    last = found[-1] if len(rows) > limit else None
    return FailingPage(
        scores=found,
        next_cursor=None if last is None else Cursor(last.trace_ns, last.trace_id),
    )


def _failing_score(row: Any) -> FailingScore:
    attribution = row["attribution"]
    return FailingScore(
        trace_id=row["trace_id"],
        trace_ns=row["trace_ns"],
        scored_ns=row["scored_ns"],
        label=row["label"],
        value=row["value"],
        reason=row["reason"],
        attribution=None if attribution is None else Attribution.model_validate_json(attribution),
    )
