"""pass@k and pass^k over the trials of each task, with honest counts and labelled intervals.

For a task with ``n`` scored trials of which ``c`` passed, the unbiased estimators are

- pass@k = 1 - C(n-c, k) / C(n, k): the chance that at least one of k trials drawn without
  replacement passes (can the agent do it at all?);
- pass^k = C(c, k) / C(n, k): the chance that all k pass (can it be relied on?).

Both are computed as exact fractions and rounded once, so 1 - 4/5 is 0.2, not 0.19999999999999996.
Both are **undefined** when ``n < k``: the trials cannot answer the question. Undefined is
``None`` in Python and ``null`` in JSON, never 1.0 or 0.0. A summary averages each over the tasks
where it is defined and says how many those are (``tasks_defined``), so a reader sees when a
high pass^4 rests on few tasks.

Which trials are scored is :mod:`trailcheck.run.status`'s rule: passed, failed, timeout and
crashed are; unscorable and infra_error are not, so they leave ``n`` but are counted in the
summary's trial counts and rates.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction

from pydantic import BaseModel, ConfigDict

from trailcheck.errors import UsageError
from trailcheck.intervals import (
    DEFAULT_LEVEL,
    DEFAULT_RESAMPLES,
    Interval,
    Rate,
    bootstrap_interval,
    rate,
)
from trailcheck.run.status import TrialStatus, is_scored

__all__ = [
    "OutcomeSummary",
    "TaskOutcomes",
    "TaskStats",
    "TrialCounts",
    "count_trials",
    "pass_at_k",
    "pass_hat_k",
    "summarize_outcomes",
    "task_order",
    "task_stats",
]

TaskOutcomes = Mapping[str, Sequence[TrialStatus]]
"""Task id → the statuses of its trials, in the order they ran."""


def _check_counts(n: int, c: int, k: int) -> None:
    if k < 1:
        raise UsageError(f"k must be at least 1, not {k}")
    if not 0 <= c <= n:
        raise UsageError(f"passed trials must lie in 0..n, not {c} of {n}")


def pass_at_k(n: int, c: int, k: int) -> float | None:
    """1 - C(n-c, k) / C(n, k): at least one of k trials passes; ``None`` when ``n < k``."""
    _check_counts(n, c, k)
    if n < k:
        return None
    total = math.comb(n, k)
    return float(Fraction(total - math.comb(n - c, k), total))


def pass_hat_k(n: int, c: int, k: int) -> float | None:
    """C(c, k) / C(n, k): all of k trials pass; ``None`` when ``n < k``."""
    _check_counts(n, c, k)
    if n < k:
        return None
    return float(Fraction(math.comb(c, k), math.comb(n, k)))


class TrialCounts(BaseModel):
    """How many trials ended each way. ``scored`` = passed + failed + timeout + crashed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    attempted: int
    scored: int
    passed: int
    failed: int
    timeout: int
    crashed: int
    unscorable: int
    infra_error: int
    sim_error: int = 0
    """Trials whose simulated user erred: not the agent's failure (docs/simulated_users.md)."""


def count_trials(statuses: Iterable[TrialStatus]) -> TrialCounts:
    """The counts of ``statuses``."""
    counts = Counter(statuses)
    return TrialCounts(
        attempted=counts.total(),
        scored=sum(n for status, n in counts.items() if is_scored(status)),
        passed=counts["passed"],
        failed=counts["failed"],
        timeout=counts["timeout"],
        crashed=counts["crashed"],
        unscorable=counts["unscorable"],
        infra_error=counts["infra_error"],
        sim_error=counts["sim_error"],
    )


class TaskStats(BaseModel):
    """One task's trials: counts and its pass rate (pass@1, ``None`` with no scored trial)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task_id: str
    trials: TrialCounts
    pass_at_1: float | None


def task_stats(task_id: str, statuses: Sequence[TrialStatus]) -> TaskStats:
    """The counts and pass rate of one task."""
    counts = count_trials(statuses)
    return TaskStats(
        task_id=task_id,
        trials=counts,
        pass_at_1=pass_hat_k(counts.scored, counts.passed, 1),
    )


def task_order(task_id: str) -> tuple[int, int, str]:
    """Sort key: decimal ids in numeric order (``2`` before ``10``), then the rest by text."""
    if task_id.isascii() and task_id.isdigit():
        return (0, int(task_id), task_id)
    return (1, 0, task_id)


class OutcomeSummary(BaseModel):
    """The statistics of a run, keyed by k = 1..``k``.

    ``pass_at_k[k]`` and ``pass_hat_k[k]`` are means over the ``tasks_defined[k]`` tasks with at
    least k scored trials (``None`` when there are none); their intervals are task bootstraps.
    ``trial_pass_rate`` is passed / scored trials with a Wilson interval, which treats trials as
    independent and so is narrower than it should be: it is a plain rate, not pass@1's interval.
    ``infra_error_rate``, ``unscorable_rate`` and ``sim_error_rate`` are over attempted trials
    (``sim_error_rate`` is absent from reports older than simulated users).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    tasks: int
    trials: TrialCounts
    k: int
    pass_at_1: float | None
    pass_at_1_interval: Interval
    pass_at_k: dict[int, float | None]
    pass_hat_k: dict[int, float | None]
    tasks_defined: dict[int, int]
    pass_at_k_interval: dict[int, Interval]
    pass_hat_k_interval: dict[int, Interval]
    trial_pass_rate: Rate
    infra_error_rate: Rate
    unscorable_rate: Rate
    sim_error_rate: Rate | None = None
    per_task: list[TaskStats]


Estimator = Callable[[int, int, int], float | None]


def _defined_values(per_task: Sequence[TaskStats], estimator: Estimator, k: int) -> list[float]:
    values = (estimator(t.trials.scored, t.trials.passed, k) for t in per_task)
    return [value for value in values if value is not None]


def _mean(values: Sequence[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


def summarize_outcomes(
    outcomes: TaskOutcomes,
    *,
    k: int | None = None,
    level: float = DEFAULT_LEVEL,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> OutcomeSummary:
    """The statistics of ``outcomes`` for k = 1..``k`` (default: the most scored trials any task
    has, at least 1). Tasks are taken in :func:`task_order`, so the result, bootstrap included,
    depends only on the outcomes and ``seed``, not on the order the tasks came in."""
    per_task = [task_stats(task, outcomes[task]) for task in sorted(outcomes, key=task_order)]
    largest = max((t.trials.scored for t in per_task), default=0)
    top_k = max(largest, 1) if k is None else k
    if top_k < 1:
        raise UsageError(f"k must be at least 1, not {top_k}")
    trials = count_trials(status for task in per_task for status in outcomes[task.task_id])

    def bootstrap(values: Sequence[float]) -> Interval:
        return bootstrap_interval(values, level=level, resamples=resamples, seed=seed)

    at_k: dict[int, list[float]] = {}
    hat_k: dict[int, list[float]] = {}
    for each in range(1, top_k + 1):
        at_k[each] = _defined_values(per_task, pass_at_k, each)
        hat_k[each] = _defined_values(per_task, pass_hat_k, each)
    hat_intervals = {each: bootstrap(values) for each, values in hat_k.items()}
    return OutcomeSummary(
        tasks=len(per_task),
        trials=trials,
        k=top_k,
        pass_at_1=_mean(hat_k[1]),
        pass_at_1_interval=hat_intervals[1],
        pass_at_k={each: _mean(values) for each, values in at_k.items()},
        pass_hat_k={each: _mean(values) for each, values in hat_k.items()},
        tasks_defined={each: len(values) for each, values in hat_k.items()},
        pass_at_k_interval={each: bootstrap(values) for each, values in at_k.items()},
        pass_hat_k_interval=hat_intervals,
        trial_pass_rate=rate(trials.passed, trials.scored, level),
        infra_error_rate=rate(trials.infra_error, trials.attempted, level),
        unscorable_rate=rate(trials.unscorable, trials.attempted, level),
        sim_error_rate=rate(trials.sim_error, trials.attempted, level),
        per_task=per_task,
    )
