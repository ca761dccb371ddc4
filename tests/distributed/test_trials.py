"""``run_async(..., executor=RayTrialExecutor())``: each trial a Ray task, with the local
runner's results, statuses and order; a cancelled run is a partial report."""

from __future__ import annotations

import asyncio
import pickle
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.distributed import agents
from tests.distributed.agents import Counter, MessageAgent, broken_environment
from tests.distributed.reports import comparable
from tests.waiting import GUARD_S, wait_for_event, wait_until
from trailcheck.cases import Case, Dataset
from trailcheck.demo.support import prompt_only_shop, support_dataset, v1_agent
from trailcheck.distributed import RayRateLimiter, RayTrialExecutor
from trailcheck.distributed import rate_limit as distributed_rate_limit
from trailcheck.distributed.ray_import import ray
from trailcheck.distributed.trials import play_trial
from trailcheck.errors import UsageError
from trailcheck.rate_limit import RateLimiter
from trailcheck.run.plan import RunOptions, TrialPlan
from trailcheck.run.results import TrialResult
from trailcheck.run.runner import RunResult, run, run_async

pytestmark = [pytest.mark.usefixtures("local_ray"), pytest.mark.live]

EXPECTS_LOOKUP = {"expected_tools": ["lookup"]}


def _dataset(*inputs: str) -> Dataset:
    return Dataset(
        name="messages", cases=[Case(id=text, input=text, **EXPECTS_LOOKUP) for text in inputs]
    )


def test_the_support_demo_on_ray_reports_what_the_local_runner_reports() -> None:
    options = RunOptions(k=2, seed=7)
    local = run(support_dataset(), v1_agent, prompt_only_shop, options=options)
    remote = run(
        support_dataset(), v1_agent, prompt_only_shop, options=options, executor=RayTrialExecutor()
    )
    assert comparable(remote) == comparable(local)
    # Not vacuous: the demo's v1 agent fails some cases, and every trial has its trace.
    statuses = {trial.status for trial in remote.report.trials()}
    assert {"passed", "failed"} <= statuses
    assert len(remote.trace_lines) == remote.report.summary.trials.attempted == 34
    assert remote.report.manifest["executor"] == {
        "name": "ray",
        "ray_version": remote.report.manifest["executor"]["ray_version"],  # type: ignore[index,call-overload]
        "num_cpus": 1.0,
        "max_retries": 3,
    }


def test_every_outcome_is_the_same_trial_on_ray_as_in_process() -> None:
    dataset = _dataset("ok", "crash", "infra", "hang")
    # Short, yet only "hang" reaches it: the other agents never await (see MessageAgent).
    options = RunOptions(k=1, timeout_s=0.5)
    local = run(dataset, MessageAgent, Counter, options=options)
    remote = run(dataset, MessageAgent, Counter, options=options, executor=RayTrialExecutor())
    statuses = {t.case_id: t.status for t in remote.report.trials()}
    assert statuses == {
        "ok": "passed",
        "crash": "crashed",
        "infra": "infra_error",
        "hang": "timeout",
    }
    crash = next(t for t in remote.report.trials() if t.case_id == "crash")
    assert crash.error is not None
    assert "raise ValueError" in crash.error.traceback
    # The stack says where it was raised, which differs by process only in nothing we keep.
    assert comparable(remote) == comparable(local)


def test_an_environment_that_cannot_start_in_the_worker_is_an_infra_error() -> None:
    dataset = _dataset("ok")
    result = run(
        dataset,
        MessageAgent,
        broken_environment,
        options=RunOptions(k=2),
        executor=RayTrialExecutor(),
    )
    trials = result.report.trials()
    assert [t.status for t in trials] == ["infra_error", "infra_error"]
    assert trials[0].reason == "environment failed: OSError: the sandbox did not start"


def test_a_worker_that_dies_is_an_infra_error_once_its_retries_are_spent() -> None:
    result = run(
        _dataset("ok", "die"),
        MessageAgent,
        Counter,
        options=RunOptions(k=1),
        executor=RayTrialExecutor(max_retries=0),
    )
    statuses = {t.case_id: t.status for t in result.report.trials()}
    assert statuses == {"ok": "passed", "die": "infra_error"}
    died = next(t for t in result.report.trials() if t.case_id == "die")
    assert died.reason.startswith("Ray lost the trial: ")
    assert died.error is not None


class Finished:
    """Counts the trials that came back (a :class:`~trailcheck.run.runner.RunObserver`)."""

    def __init__(self) -> None:
        self.count = 0

    def started(self, total: int) -> None:
        pass

    def finished(self, trial: TrialResult) -> None:
        self.count += 1


async def _polled(condition: Callable[[], object]) -> None:
    """Return once ``condition()`` holds."""
    while not condition():
        await asyncio.sleep(0.05)  # pacing: nothing here notifies us


def _free_cpus() -> float:
    cpus: float = ray.available_resources().get("CPU", 0)
    return cpus


def _every_cpu_free_again() -> None:
    """Wait for the CPUs of cancelled trials' tasks (their workers were ended; a killed worker
    is reaped in seconds, more on a loaded machine), and leave Ray as the next test expects.

    The wait is for exactly every CPU free, not for "at least", then a second look: Ray's
    resource view moves as workers are reaped and leases returned, and a look after the wait
    once saw 1.5 of 2 (a lease still settling), so only the event itself decides."""
    wait_until(lambda: _free_cpus() == 2, "every CPU to be free again after the cancelled trials")


def test_cancelling_the_run_cancels_its_ray_tasks_and_reports_the_finished_trials() -> None:
    finished = Finished()

    async def interrupted() -> RunResult:
        task = asyncio.ensure_future(
            run_async(
                _dataset("ok", "hang"),
                MessageAgent,
                Counter,
                options=RunOptions(k=2, concurrency=4, timeout_s=None),
                observer=finished,
                executor=RayTrialExecutor(num_cpus=0.5),
            )
        )
        # The fast trials are back; the hanging ones run on until cancelled.
        await wait_for_event(_polled(lambda: finished.count >= 2), "the fast trials to be back")
        task.cancel()
        result: RunResult = await wait_for_event(task, "the cancelled run to return")
        return result

    result = asyncio.run(interrupted())
    assert result.report.partial
    assert [(t.case_id, t.status) for t in result.report.trials()] == [
        ("ok", "passed"),
        ("ok", "passed"),
    ]
    assert result.report.manifest["interrupted_trials"] == 2
    # The hanging trials' tasks were cancelled: their CPUs are free, though they would hang for
    # ever.
    _every_cpu_free_again()


def test_a_plan_that_cannot_travel_to_the_workers_is_refused_in_one_line() -> None:
    lock = threading.Lock()

    def holds_a_lock() -> MessageAgent:
        assert lock is not None
        return MessageAgent()

    with pytest.raises(UsageError, match="cannot be sent to Ray workers"):
        run(_dataset("ok"), holds_a_lock, Counter, executor=RayTrialExecutor())


def test_a_rate_limit_is_one_bucket_for_every_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    # One token, then one every 1000 s: of four trials at once, each taking a token first, one
    # gets it and three wait for the next, which comes long after their (generous) timeout. A
    # bucket per worker process would let each of the four workers through. The waiting three
    # end in one of two ways, and neither lets one through: once the four have asked the run's
    # one bucket (the executor's cluster-wide limiter, kept here) and one is back, the run is
    # cancelled and they are not trials; or, where Ray starts workers so slowly that their
    # timeout comes first, they are timeouts.
    shared: list[RayRateLimiter] = []
    made_like = RayRateLimiter.like

    def like(limiter: RateLimiter) -> RayRateLimiter:
        shared.append(made_like(limiter))
        return shared[-1]

    monkeypatch.setattr(RayRateLimiter, "like", like)
    finished = Finished()

    def four_asked_and_one_back() -> bool:
        return finished.count >= 1 and bool(shared) and shared[0].granted() == 4

    async def limited_run() -> RunResult:
        task = asyncio.ensure_future(
            run_async(
                _dataset("limited a", "limited b"),
                MessageAgent,
                Counter,
                options=RunOptions(k=2, rate_limit_per_s=0.001, timeout_s=GUARD_S, concurrency=4),
                observer=finished,
                executor=RayTrialExecutor(num_cpus=0.5),
            )
        )
        asked = asyncio.ensure_future(_polled(four_asked_and_one_back))
        await asyncio.wait([task, asked], return_when=asyncio.FIRST_COMPLETED)
        if asked.done():
            asked.result()  # raises what asking the bucket raised
        asked.cancel()
        task.cancel()  # nothing to cancel when the run has ended
        result: RunResult = await wait_for_event(task, "the run to return")
        return result

    result = asyncio.run(limited_run())
    trials = result.report.trials()
    statuses = [trial.status for trial in trials]
    assert statuses.count("passed") == 1
    assert set(statuses) <= {"passed", "timeout"}
    assert len(trials) + result.report.manifest["interrupted_trials"] == 4  # type: ignore[operator]
    assert len(shared) == 1
    assert result.report.manifest["harness"]["rate_limit_per_s"] == 0.001  # type: ignore[index,call-overload]
    _every_cpu_free_again()


def test_a_cluster_limiter_travels_as_its_actor() -> None:
    limiter = RayRateLimiter(rate=1000, burst=5)
    copy = pickle.loads(ray.cloudpickle.dumps(limiter))
    assert copy is not limiter
    assert (copy.rate, copy.burst) == (1000.0, 5)
    asyncio.run(copy.acquire())
    asyncio.run(limiter.acquire())
    assert (copy.acquisitions, limiter.acquisitions) == (1, 1)  # each process counts its own
    assert limiter.granted() == copy.granted() == 2  # the actor counts them all


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"num_cpus": 0}, "num_cpus must be at least 0.0001 and finite, not 0"),
        ({"num_cpus": 0.00001}, "num_cpus must be at least 0.0001 and finite, not 1e-05"),
        ({"num_cpus": float("inf")}, "num_cpus must be at least 0.0001 and finite, not inf"),
        ({"max_retries": -1}, "max_retries must be at least 0, not -1"),
    ],
)
def test_bad_settings_are_refused(settings: dict[str, Any], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        RayTrialExecutor(**settings)


def test_a_trial_leaves_nothing_running_into_the_next_trial_of_its_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The worker's function, called here as Ray calls it in a worker: the loop it keeps across
    # trials must not carry one trial's leftovers into the next.
    record = tmp_path / "left-running.txt"
    monkeypatch.setenv(agents.LEFT_RUNNING_ENV, str(record))
    plan = TrialPlan(MessageAgent, Counter, RunOptions(), "messages@0", None)
    boxed = (ray.put(plan),)
    first, _ = play_trial(Case(id="bg", input="background", **EXPECTS_LOOKUP), 1, boxed)
    second, _ = play_trial(Case(id="pause", input="pause", **EXPECTS_LOOKUP), 1, boxed)
    assert (first.status, second.status) == ("passed", "passed")
    assert not record.exists()


class _NoBucket:
    """An actor that cannot start (its methods are never reached)."""

    def __init__(self, rate: float, burst: int) -> None:
        raise OSError("the actor's node ran out of memory")

    def granted(self) -> int:
        return 0


def test_a_rate_limit_whose_actor_cannot_start_makes_infra_errors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(distributed_rate_limit, "_Actor", ray.remote(num_cpus=0)(_NoBucket))
    options = RunOptions(k=2, rate_limit_per_s=5)
    result = run(
        _dataset("ok"), MessageAgent, Counter, options=options, executor=RayTrialExecutor()
    )
    trials = result.report.trials()
    assert [trial.status for trial in trials] == ["infra_error", "infra_error"]
    assert all(trial.reason.startswith("Ray lost the trial: ") for trial in trials)
    assert "ran out of memory" in trials[0].reason
