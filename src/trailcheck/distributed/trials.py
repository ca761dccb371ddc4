"""Trials as Ray tasks: :class:`RayTrialExecutor` plugs into
:func:`~trailcheck.run.runner.run_async` (its ``executor``) and runs each trial in a Ray worker.

The worker runs :func:`~trailcheck.run.runner.run_trial` itself, so a trial there is a trial
here: the environment is made and reset inside the task, ids are seeded from the run's seed,
the case and the attempt, and timeouts, crashes and infrastructure errors come back as the
trial's status. The plan (the factories, the options, a judge) is put in Ray's object store
once per run; factories named ``module:attr`` travel as that reference, so the workers need
trailcheck and the agent's package installed, nothing else.

What Ray itself fails at (a worker or node that died, an object lost) is the harness's failure
and becomes an ``infra_error`` trial; an error raised by trailcheck's own code in the worker is
a bug and propagates, as it would in process. Cancelling a trial (Ctrl-C) cancels its task.
"""

from __future__ import annotations

import asyncio
import math
import pickle
import time
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from pydantic import JsonValue

from trailcheck.cases import Case, TrialResources, trial_num_cpus
from trailcheck.cases.resources import MIN_NUM_CPUS
from trailcheck.distributed.rate_limit import RayRateLimiter
from trailcheck.distributed.ray_import import ray
from trailcheck.errors import UsageError
from trailcheck.run.plan import TrialPlan
from trailcheck.run.results import TrialError, TrialResult
from trailcheck.run.trial import run_trial
from trailcheck.scorers import case_scorers
from trailcheck.trace.jsonl import dump_trace

__all__ = ["RayTrialExecutor"]


# A Ray worker process runs one task at a time. Across a run's trials it keeps one event loop
# and the run's plan as first received, as the local runner shares one plan and one loop: a
# model client one trial makes (and its connections) serves the next, instead of a client per
# trial left open when its loop closed.
_worker_loop: list[asyncio.AbstractEventLoop] = []
_worker_plan: dict[str, TrialPlan] = {}


def play_trial(
    case: Case, attempt: int, plan_box: tuple[Any, ...]
) -> tuple[TrialResult, bytes | None]:
    """One trial, run in this process (a Ray worker) as the local runner runs it. ``plan_box``
    holds the plan's object reference (boxed, so that Ray hands over the reference and this
    worker decodes the plan once per run)."""
    (plan_ref,) = plan_box
    key = plan_ref.hex()
    if key not in _worker_plan:
        _worker_plan.clear()
        _worker_plan[key] = ray.get(plan_ref)
    if not _worker_loop:
        _worker_loop.append(asyncio.new_event_loop())
    plan = _worker_plan[key]
    loop = _worker_loop[0]
    try:
        trial, trace = loop.run_until_complete(run_trial(case, attempt, plan, case_scorers(case)))
    finally:
        _cancel_leftovers(loop)
    return trial, None if trace is None else dump_trace(trace)


def _cancel_leftovers(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel what the trial left running (an agent's background task, say), as closing its
    loop would: nothing of one trial runs on into the next."""
    leftovers = asyncio.all_tasks(loop)
    for task in leftovers:
        task.cancel()
    if leftovers:
        loop.run_until_complete(asyncio.gather(*leftovers, return_exceptions=True))


class RayTrialExecutor:
    """Each trial a Ray task; Ray must be connected (:func:`~trailcheck.distributed.ray_session`).

    A trial asks Ray for its case's ``resources.num_cpus``, else ``num_cpus``, else the
    dataset's, else one CPU (:func:`~trailcheck.cases.trial_num_cpus`); a fraction packs several
    trials on one core. A trial whose worker or node died is run again, up to ``max_retries``
    times (Ray's default for tasks): the same seed gives the rerun the same ids. Then it is an
    ``infra_error``.
    """

    def __init__(self, *, num_cpus: float | None = None, max_retries: int = 3) -> None:
        if num_cpus is not None and not MIN_NUM_CPUS <= num_cpus < math.inf:
            raise UsageError(
                f"num_cpus must be at least {MIN_NUM_CPUS:g} and finite, not {num_cpus:g}"
            )
        if max_retries < 0:
            raise UsageError(f"max_retries must be at least 0, not {max_retries}")
        self.num_cpus = num_cpus
        self.max_retries = max_retries
        self._task = ray.remote(play_trial)
        self._shipped: tuple[TrialPlan, Any] | None = None
        self._asked: dict[str, float] = {}

    def describe(self) -> dict[str, JsonValue]:
        """The executor for the manifest; ``num_cpus`` is what the trials asked for, or, where
        cases asked differently, what each case's trials asked for."""
        asked = set(self._asked.values())
        num_cpus: JsonValue = self.num_cpus
        if len(asked) == 1:
            num_cpus = asked.pop()
        elif asked:
            num_cpus = dict(sorted(self._asked.items()))
        return {
            "name": "ray",
            "ray_version": ray.__version__,
            "num_cpus": num_cpus,
            "max_retries": self.max_retries,
        }

    def refuse_unplaceable(
        self, cases: Iterable[Case], dataset_resources: TrialResources | None
    ) -> None:
        """UsageError naming the first case whose trials ask for more CPUs than any node of the
        connected Ray has: Ray would wait for such a node for ever. (A cluster whose autoscaler
        adds nodes can place them later: this check is for a Ray of fixed size.)"""
        nodes: list[dict[str, Any]] = ray.nodes()  # type: ignore[no-untyped-call]
        largest = max(
            (node["Resources"].get("CPU", 0.0) for node in nodes if node["Alive"]), default=0.0
        )
        for case in cases:
            asked = trial_num_cpus(case.resources, self.num_cpus, dataset_resources)
            if asked > largest:
                raise UsageError(
                    f"case {case.id!r}: each trial asks for {asked:g} CPUs and the largest node"
                    f" of this Ray has {largest:g}; lower its resources.num_cpus or --num-cpus,"
                    " or run on a cluster that has such a node (--address)"
                )

    async def run_trial(
        self, case: Case, attempt: int, plan: TrialPlan
    ) -> tuple[TrialResult, bytes | None]:
        began = time.perf_counter()
        try:
            plan_ref = self._plan_ref(plan)
        except ray.exceptions.RayActorError as lost:  # the rate limit's actor did not start
            return _lost(case, attempt, began, lost), None
        num_cpus = trial_num_cpus(case.resources, self.num_cpus, plan.resources)
        self._asked[case.id] = num_cpus
        placed = self._task.options(num_cpus=num_cpus, max_retries=self.max_retries)
        task = placed.remote(case, attempt, (plan_ref,))
        try:
            return await task
        except asyncio.CancelledError:
            # force: the worker is ended. A polite cancel (KeyboardInterrupt in the task) can
            # miss a task that is just starting, and a trial abandoned here is not a trial.
            ray.cancel(task, force=True)
            raise
        except ray.exceptions.RayTaskError:
            raise  # trailcheck's own code failed in the worker: a bug, as it is in process
        except ray.exceptions.RayError as lost:
            return _lost(case, attempt, began, lost), None

    def _plan_ref(self, plan: TrialPlan) -> Any:
        """``plan`` in Ray's object store, put there once per run; its rate limiter, if any,
        replaced by one that every worker shares."""
        if self._shipped is not None and self._shipped[0] is plan:
            return self._shipped[1]
        shipped = plan
        if plan.rate_limiter is not None and not isinstance(plan.rate_limiter, RayRateLimiter):
            # One bucket for every worker: each process's own would multiply the limit.
            shipped = replace(plan, rate_limiter=RayRateLimiter.like(plan.rate_limiter))
        try:
            ref = ray.put(shipped)
        except (TypeError, ValueError, AttributeError, pickle.PicklingError) as unpicklable:
            raise UsageError(
                "the agent, environment or judge cannot be sent to Ray workers"
                f" ({type(unpicklable).__name__}: {unpicklable}); name them as module:attr"
            ) from None
        self._shipped = (plan, ref)
        return ref


def _lost(case: Case, attempt: int, began: float, lost: BaseException) -> TrialResult:
    """The trial as an ``infra_error``: Ray, not the agent, failed it."""
    failure = TrialError.from_exception(lost)
    return TrialResult(
        case_id=case.id,
        attempt=attempt,
        status="infra_error",
        reason=f"Ray lost the trial: {failure.type}: {lost}",
        duration_ms=(time.perf_counter() - began) * 1e3,
        error=failure,
    )
