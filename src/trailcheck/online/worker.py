"""The online worker: plan what arrived, score what is due, record every execution.

A pass (:meth:`OnlineWorker.run_once`) registers the file's evaluator versions, plans every
trace stored since each evaluator's cursor (:func:`~trailcheck.online.planning.plan`), then claims
due jobs in batches and runs them until none is due, and finally fires the file's alerts whose
windows settled (:mod:`~trailcheck.online.alerting`), once per window. Everything
it knows lives in the store, so a worker killed at any point resumes where the store says, and
several workers share one store (:mod:`trailcheck.online.queue` says how none overlaps).

What becomes of a job:

- the evaluator passed or failed: **scored** (the score, and a finding for a failure, which
  ``detect``'s clusters and ``promote`` then read like any other);
- it does not apply to the trace: **skipped**, with the reason;
- a deterministic evaluator raised, or the trace cannot be read: **quarantined** for that
  evaluator at once (running it again would raise again); the queue goes on;
- a judge gave no verdict or raised: tried again after a backoff, and when ``max_attempts``
  attempts gave none, **failed**, counted in the status, never dropped;
- a judge over its budget (calls or tokens an hour, counted over every worker's executions in
  the store): put back untried until the hour's oldest call ages out.

Every attempt is an execution row: what it read (the trace's content hash), the model and
tokens, how long it took, its outcome and error, and the execution itself as a trailcheck trace
(``record``), so an evaluator run can be opened like any trace.
"""

from __future__ import annotations

import asyncio
import logging
import random
import threading
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import SQLAlchemyError

from trailcheck.errors import UsageError
from trailcheck.loop import Rule, builtin_rules
from trailcheck.online.alerting import Notifier, check_alerts
from trailcheck.online.config import Evaluator, OnlineConfig, online_scorer
from trailcheck.online.evaluate import (
    EvaluatorOutcome,
    JudgeRunner,
    Unjudged,
    evaluate_deterministic,
    evaluate_judge,
)
from trailcheck.online.executions import execution_trace, failure_label
from trailcheck.online.notices import AlertNotice
from trailcheck.online.planning import plan, register
from trailcheck.online.queue import (
    HOUR_NS,
    Closing,
    Job,
    claim,
    close_jobs,
    judge_spend,
    oldest_in_hour,
)
from trailcheck.online.settings import (
    JudgeBudget,
    PassSummary,
    WorkerSettings,
    default_worker_id,
)
from trailcheck.scorers.score import Scorer
from trailcheck.store import Store, schema
from trailcheck.store.backends import read_only
from trailcheck.trace import Finding, Trace

__all__ = ["JudgeBudget", "OnlineWorker", "PassSummary", "WorkerSettings", "default_worker_id"]

_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class _Stored:
    content: str
    content_hash: str


@dataclass(frozen=True, slots=True)
class _Closed:
    """A job run, and what it counts as in the pass once its closing is kept."""

    closing: Closing
    counted: str


@dataclass(slots=True)
class _Spend:
    """Judge calls and tokens of the batch running, not yet recorded in the store."""

    calls: int = 0
    tokens: int = 0


@dataclass(slots=True)
class _Attempt:
    """One execution being recorded."""

    job: Job
    evaluator: Evaluator
    input_digest: str
    started_ns: int
    began: int = field(default_factory=time.perf_counter_ns)


class OnlineWorker:
    """Scores a store's traces by the evaluators of ``config`` (see the module).

    ``rules``: the detection rules ``rule:`` evaluators name (the built-ins by default).
    ``judge``: runs ``judge:`` evaluators; a file with a judge and no runner is refused.
    ``clock``: nanoseconds since the epoch, what due times, leases and backoffs are read
    against (tests pass their own). ``notifier``: where the file's alerts are delivered when
    they fire (without one they are recorded in the store only)."""

    def __init__(
        self,
        store: Store,
        config: OnlineConfig,
        *,
        rules: Sequence[Rule] | None = None,
        judge: JudgeRunner | None = None,
        settings: WorkerSettings | None = None,
        clock: Callable[[], int] = time.time_ns,
        random_fraction: Callable[[], float] = random.random,
        notifier: Notifier | None = None,
    ) -> None:
        self.store = store
        self.config = config
        self.settings = settings or WorkerSettings()
        self._rules: Mapping[str, Rule] = {
            rule.name: rule for rule in (builtin_rules() if rules is None else rules)
        }
        judged = [e.name for e in config.evaluators if e.judge is not None]
        if judged and judge is None:
            raise UsageError(
                f"evaluators {', '.join(judged)} run a judge, and no judge model was given"
            )
        self._judge = judge
        self._notifier = notifier
        self._clock = clock
        self._fraction = random_fraction
        self._evaluators = {(e.name, e.version): e for e in config.evaluators if e.sampling > 0}
        # Each scorer built once, not once a trace.
        self._reserved = _Spend()
        self._scorers: dict[tuple[str, str], Scorer] = {
            key: online_scorer(e.scorer) for key, e in self._evaluators.items() if e.scorer
        }

    # --- a pass ---------------------------------------------------------------------------

    def run_once(self) -> PassSummary:
        """Plan everything stored so far, then score every job due now."""
        return asyncio.run(self._pass())

    async def _pass(self) -> PassSummary:
        # One event loop a pass: the judges' model clients are made in it and closed with it.
        summary = PassSummary(planned=self.plan())
        try:
            while jobs := self._claim():
                summary.add(await self._run_jobs(jobs))
        finally:
            close = getattr(self._judge, "aclose", None)
            if close is not None:
                await close()
        summary.alerts = len(self.check_alerts())
        return summary

    def check_alerts(self) -> list[AlertNotice]:
        """Fire the file's alerts whose windows settled (:mod:`~trailcheck.online.alerting`)."""
        if not self.config.alerts:
            return []
        return check_alerts(self.store.engine, self.config, self._clock(), self._notifier)

    def run(self, stop: threading.Event, *, poll_s: float = 1.0) -> PassSummary:
        """Passes until ``stop`` is set, waiting ``poll_s`` after a pass that found nothing. A
        pass the store failed (unreachable, a lock held too long) is logged and tried again
        after the wait: the work is in the store, so nothing of it is lost."""
        total = PassSummary()
        while not stop.is_set():
            try:
                done = self.run_once()
            except SQLAlchemyError as error:
                _log.warning("online pass failed, trying again in %ss: %s", poll_s, error)
                stop.wait(poll_s)
                continue
            total.add(done)
            if not done.planned and not done.executed:
                stop.wait(poll_s)
        return total

    def plan(self) -> int:
        """Register the evaluator versions and plan every trace after their cursors."""
        engine = self.store.engine
        register(engine, self._evaluators.values(), self._clock())
        planned = 0
        for evaluator in self._evaluators.values():
            while considered := plan(engine, evaluator, self._clock()):
                planned += considered
        return planned

    def _claim(self) -> list[Job]:
        return claim(
            self.store.engine,
            self.settings.worker_id,
            list(self._evaluators),
            self._clock(),
            lease_ns=int(self.settings.lease_s * 1e9),
            limit=self.settings.batch,
        )

    async def _run_jobs(self, jobs: Sequence[Job]) -> PassSummary:
        """Run a batch of jobs, then close them all in one transaction. The deterministic ones
        run in turn (no task each: they never wait); judgings run ``concurrency`` at once."""
        stored = self._stored([job.trace_id for job in jobs])
        gate = asyncio.Semaphore(self.settings.concurrency)
        self._reserved = _Spend()

        async def judged(job: Job) -> _Closed:
            async with gate:
                return await self._run_job(job, stored.get(job.trace_id))

        judging = [job for job in jobs if self._evaluators[(job.name, job.version)].judge]
        closed = [
            self._run_deterministic(job, stored.get(job.trace_id))
            for job in jobs
            if not self._evaluators[(job.name, job.version)].judge
        ]
        closed += await asyncio.gather(*(judged(job) for job in judging))
        held = close_jobs(
            self.store.engine,
            self.settings.worker_id,
            self._clock(),
            [done.closing for done in closed],
        )
        summary = PassSummary()
        for done in closed:
            if done.closing.job.id in held:
                summary.add(PassSummary(**{done.counted: 1}))
            else:
                summary.add(PassSummary(lost_lease=1))
        return summary

    def _stored(self, trace_ids: Sequence[str]) -> dict[str, _Stored]:
        traces = schema.traces
        query = select(traces.c.trace_id, traces.c.content, traces.c.content_hash).where(
            traces.c.trace_id.in_(trace_ids)
        )
        with read_only(self.store.engine) as connection:
            return {
                row.trace_id: _Stored(row.content, row.content_hash)
                for row in connection.execute(query)
            }

    # --- one job --------------------------------------------------------------------------

    def _read(self, job: Job, stored: _Stored | None) -> tuple[_Attempt, Trace | _Closed]:
        """The job's attempt, and its trace, or how the job closes when there is none."""
        evaluator = self._evaluators[(job.name, job.version)]
        attempt = _Attempt(job, evaluator, stored.content_hash if stored else "", self._clock())
        if stored is None:
            outcome = EvaluatorOutcome("skipped", "the trace is no longer stored")
            return attempt, self._verdict(attempt, outcome)
        try:
            return attempt, Trace.model_validate_json(stored.content)
        except ValueError as error:
            return attempt, self._quarantine(attempt, error)

    def _run_deterministic(self, job: Job, stored: _Stored | None) -> _Closed:
        attempt, trace = self._read(job, stored)
        if isinstance(trace, _Closed):
            return trace
        try:
            scorer = self._scorers.get((job.name, job.version))
            outcome = evaluate_deterministic(attempt.evaluator, trace, self._rules, scorer)
        # An evaluator that raises is data: the trace is quarantined for it, with the error and
        # its stack kept, and the queue goes on.
        except Exception as error:  # noqa: BLE001
            return self._quarantine(attempt, error)
        return self._verdict(attempt, outcome)

    async def _run_job(self, job: Job, stored: _Stored | None) -> _Closed:
        if self._evaluators[(job.name, job.version)].judge is None:
            return self._run_deterministic(job, stored)
        attempt, trace = self._read(job, stored)
        if isinstance(trace, _Closed):
            return trace
        return await self._judge_job(attempt, trace)

    async def _judge_job(self, attempt: _Attempt, trace: Trace) -> _Closed:
        over_until = self._over_budget()
        if over_until is not None:
            closing = Closing(attempt.job, "due", next_attempt_ns=over_until, untried=True)
            return _Closed(closing, "deferred")
        self._reserved.calls += 1  # before the call: judgings in flight count against it
        assert self._judge is not None  # refused at construction otherwise
        try:
            result = await evaluate_judge(attempt.evaluator, trace, self._judge)
        # A judge that raises (its model unreachable, its client broken) is tried again, as one
        # that answered nothing usable is; the error is recorded with each attempt.
        except Exception as error:  # noqa: BLE001
            result = Unjudged(f"{type(error).__name__}: {error}")
        self._reserved.tokens += (result.input_tokens or 0) + (result.output_tokens or 0)
        if isinstance(result, EvaluatorOutcome):
            return self._verdict(attempt, result)
        return self._retry_or_give_up(attempt, result)

    def _over_budget(self) -> int | None:
        """When the judges may call again, if a budget is spent now; else None. Spent: the
        store's judge executions of the last hour, and this batch's calls not yet recorded."""
        budget = self.settings.budget
        if budget.calls is None and budget.tokens is None:
            return None
        now = self._clock()
        calls, tokens = judge_spend(self.store.engine, now - HOUR_NS)
        calls, tokens = calls + self._reserved.calls, tokens + self._reserved.tokens
        spent = (budget.calls is not None and calls >= budget.calls) or (
            budget.tokens is not None and tokens >= budget.tokens
        )
        return oldest_in_hour(self.store.engine, now) + HOUR_NS if spent else None

    def _verdict(self, attempt: _Attempt, outcome: EvaluatorOutcome) -> _Closed:
        job, evaluator, now = attempt.job, attempt.evaluator, self._clock()
        score = finding = None
        if outcome.kind != "skipped":
            score = {
                "name": job.name,
                "version": job.version,
                "trace_id": job.trace_id,
                "passed": outcome.passed,
                "value": outcome.value,
                "label": outcome.label,
                "reason": outcome.reason,
                "trace_ns": job.trace_ns,
                "scored_ns": now,
                "attribution": (
                    None if outcome.attribution is None else outcome.attribution.model_dump_json()
                ),
            }
        if outcome.kind == "failed":
            finding = Finding(
                trace_id=job.trace_id,
                label=failure_label(outcome.label or evaluator.name),
                severity=outcome.severity,
                reason=outcome.reason or "failed",
                evidence=outcome.evidence,
                source=f"online:{evaluator.name}@{evaluator.version}",
            )
        closing = Closing(
            job,
            "skipped" if outcome.kind == "skipped" else "scored",
            execution=self._execution(attempt, outcome.kind, outcome=outcome),
            score=score,
            finding=finding,
        )
        return _Closed(closing, outcome.kind)

    def _quarantine(self, attempt: _Attempt, error: BaseException) -> _Closed:
        text = "".join(traceback.format_exception(error))
        closing = Closing(
            attempt.job,
            "quarantined",
            execution=self._execution(attempt, "crashed", error=text),
            error=f"{type(error).__name__}: {error}",
        )
        return _Closed(closing, "quarantined")

    def _retry_or_give_up(self, attempt: _Attempt, unjudged: Unjudged) -> _Closed:
        job, now = attempt.job, self._clock()
        if job.attempts >= self.settings.max_attempts:
            closing = Closing(
                job,
                "failed",
                execution=self._execution(
                    attempt, "gave_up", error=unjudged.reason, spent=unjudged
                ),
                error=f"no verdict after {job.attempts} attempts: {unjudged.reason}",
            )
            return _Closed(closing, "gave_up")
        wait_s = self.settings.backoff.delay(job.attempts, self._fraction())
        closing = Closing(
            job,
            "due",
            execution=self._execution(attempt, "retry", error=unjudged.reason, spent=unjudged),
            error=unjudged.reason,
            next_attempt_ns=now + int(wait_s * 1e9),
        )
        return _Closed(closing, "retried")

    def _execution(
        self,
        attempt: _Attempt,
        outcome_name: str,
        *,
        outcome: EvaluatorOutcome | None = None,
        error: str | None = None,
        spent: Unjudged | None = None,
    ) -> dict[str, Any]:
        source = outcome or spent
        model = source.model if source else None
        input_tokens = source.input_tokens if source else None
        output_tokens = source.output_tokens if source else None
        duration = time.perf_counter_ns() - attempt.began
        row = {
            "name": attempt.job.name,
            "version": attempt.job.version,
            "trace_id": attempt.job.trace_id,
            "attempt": attempt.job.attempts,
            "worker": self.settings.worker_id,
            "kind": attempt.evaluator.kind,
            "outcome": outcome_name,
            "started_ns": attempt.started_ns,
            "duration_ns": duration,
            "input_digest": attempt.input_digest,
            "model": model,
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            "cost": None,
            "error": error,
        }
        reason = outcome.reason if outcome else error
        return {**row, "record": execution_trace(row, reason).model_dump_json()}
