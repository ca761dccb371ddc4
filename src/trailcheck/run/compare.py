"""A candidate run against a baseline on the same tasks: per-task deltas, an exact McNemar test
and a paired bootstrap interval, with a plain statement of what they show.

Pairing: only tasks present in both runs with at least one scored trial on each side are
compared. Tasks present on one side only, or unscored on a side, are listed and excluded, never
counted as a pass or a failure.

Per task, the number compared is pass@1, the task's share of scored trials that passed; its
delta is candidate − baseline. The interval is a percentile bootstrap over the paired tasks of
the mean delta (tasks resampled with replacement, both sides together; seeded).

McNemar needs one verdict per task and side: a task **passed** on a side when at least half of
its scored trials passed there (pass@1 >= 0.5). With one trial per task this is simply whether
that trial passed. The test is exact: under no change, each discordant task (passed on exactly
one side) is as likely to be an improvement as a regression, so the two-sided p-value is twice
the binomial tail of the smaller count: ``min(1, 2 * sum_{i <= min(b, c)} C(b + c, i) / 2^(b + c))``
where b tasks regressed and c improved.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

from pydantic import BaseModel, ConfigDict, Field

from trailcheck.intervals import DEFAULT_LEVEL, DEFAULT_RESAMPLES, Interval, bootstrap_interval
from trailcheck.run.stats import TaskOutcomes, task_order, task_stats
from trailcheck.run.tool_success import ToolDelta
from trailcheck.significance import mcnemar_exact_p

__all__ = [
    "TASK_PASS_THRESHOLD",
    "Comparison",
    "McNemarTest",
    "TaskDelta",
    "compare_outcomes",
    "mcnemar_exact_p",
]

# A task passes on a side when this share of its scored trials passed there.
TASK_PASS_THRESHOLD: Final = 0.5
_TASK_PASS_DEFINITION: Final = "a task passes on a side when pass@1 >= 0.5 there"


class TaskDelta(BaseModel):
    """One paired task: its pass@1 on each side and the difference."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task_id: str
    baseline: float
    candidate: float
    delta: float


class McNemarTest(BaseModel):
    """The exact McNemar test on the paired tasks' verdicts (see ``definition``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    method: str = "exact-binomial"
    definition: str = _TASK_PASS_DEFINITION
    both_passed: int
    both_failed: int
    regressed: int  # passed on the baseline, failed on the candidate
    improved: int  # failed on the baseline, passed on the candidate
    p_value: float


class Comparison(BaseModel):
    """A candidate against its baseline. Means and the interval are ``None`` with no paired
    task."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    paired_tasks: int
    baseline_pass_at_1: float | None
    candidate_pass_at_1: float | None
    mean_delta: float | None
    interval: Interval
    mcnemar: McNemarTest
    deltas: list[TaskDelta]
    only_in_baseline: list[str]
    only_in_candidate: list[str]
    unscored: list[str]
    statement: str
    tools: list[ToolDelta] = Field(default_factory=list)
    """Each tool's success in both runs (:mod:`trailcheck.run.tool_success`), when the
    comparison had both runs' calls (:meth:`~trailcheck.run.RunReport.against`)."""


def _paired(baseline: TaskOutcomes, candidate: TaskOutcomes) -> tuple[list[TaskDelta], list[str]]:
    deltas: list[TaskDelta] = []
    unscored: list[str] = []
    for task in sorted(baseline.keys() & candidate.keys(), key=task_order):
        before = task_stats(task, baseline[task]).pass_at_1
        after = task_stats(task, candidate[task]).pass_at_1
        if before is None or after is None:
            unscored.append(task)
            continue
        deltas.append(
            TaskDelta(task_id=task, baseline=before, candidate=after, delta=after - before)
        )
    return deltas, unscored


def _mcnemar(deltas: Sequence[TaskDelta]) -> McNemarTest:
    verdicts = [
        (d.baseline >= TASK_PASS_THRESHOLD, d.candidate >= TASK_PASS_THRESHOLD) for d in deltas
    ]
    regressed = verdicts.count((True, False))
    improved = verdicts.count((False, True))
    return McNemarTest(
        both_passed=verdicts.count((True, True)),
        both_failed=verdicts.count((False, False)),
        regressed=regressed,
        improved=improved,
        p_value=mcnemar_exact_p(regressed, improved),
    )


def _mean(values: Sequence[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


def _statement(mean_delta: float | None, interval: Interval, mcnemar: McNemarTest) -> str:
    if mean_delta is None or not interval.defined:
        return "no task was scored in both runs: nothing to compare"
    level = f"{interval.level * 100:g}%"
    bounds = f"[{interval.low:+.3f}, {interval.high:+.3f}]"
    tasks = f"McNemar p = {mcnemar.p_value:.3g} on {mcnemar.regressed + mcnemar.improved} changed"
    if interval.includes(0.0):
        return (
            f"the {level} interval of the difference in pass@1, {bounds}, includes zero:"
            f" no evidence of a change (mean {mean_delta:+.3f}; {tasks} task(s))"
        )
    direction = "an improvement" if mean_delta > 0 else "a regression"
    return (
        f"pass@1 changed by {mean_delta:+.3f} ({level} interval {bounds}, excludes zero):"
        f" evidence of {direction} ({tasks} task(s))"
    )


def compare_outcomes(
    candidate: TaskOutcomes,
    baseline: TaskOutcomes,
    *,
    level: float = DEFAULT_LEVEL,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> Comparison:
    """Compare ``candidate`` with ``baseline`` on the tasks both scored."""
    deltas, unscored = _paired(baseline, candidate)
    interval = bootstrap_interval(
        [d.delta for d in deltas],
        method="bootstrap-paired-task",
        level=level,
        resamples=resamples,
        seed=seed,
    )
    mcnemar = _mcnemar(deltas)
    mean_delta = _mean([d.delta for d in deltas])
    return Comparison(
        paired_tasks=len(deltas),
        baseline_pass_at_1=_mean([d.baseline for d in deltas]),
        candidate_pass_at_1=_mean([d.candidate for d in deltas]),
        mean_delta=mean_delta,
        interval=interval,
        mcnemar=mcnemar,
        deltas=deltas,
        only_in_baseline=sorted(baseline.keys() - candidate.keys(), key=task_order),
        only_in_candidate=sorted(candidate.keys() - baseline.keys(), key=task_order),
        unscored=unscored,
        statement=_statement(mean_delta, interval, mcnemar),
    )
