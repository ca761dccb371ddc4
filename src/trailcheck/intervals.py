"""Confidence intervals, each labelled with the method that made it.

Two methods, for two kinds of number:

- ``wilson``: the Wilson score interval of a plain proportion of independent events (the share
  of trials that hit an infrastructure error). Applied to pass rates over trials it is too
  narrow, because the trials of one task are correlated; it is labelled so that no one reads it
  as the interval of pass@1.
- ``bootstrap-task`` (and ``bootstrap-paired-task`` for a difference between two runs on the
  same tasks): the percentile bootstrap over tasks, which resamples whole tasks with
  replacement and so keeps each task's trials together. It is seeded: the same values, level,
  resample count and seed give the same interval on every machine (``random.Random`` with an
  integer seed is stable across Python versions).

An interval over nothing (no trials, no tasks) has ``low`` and ``high`` ``None``: undefined, and
serialised as null, never as a made-up ``[0, 1]``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from statistics import NormalDist
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict

from trailcheck.errors import UsageError

__all__ = [
    "DEFAULT_LEVEL",
    "DEFAULT_RESAMPLES",
    "Interval",
    "IntervalMethod",
    "Rate",
    "bootstrap_interval",
    "rate",
    "wilson_interval",
]

IntervalMethod = Literal["bootstrap-task", "bootstrap-paired-task", "wilson"]

DEFAULT_LEVEL: Final = 0.95
DEFAULT_RESAMPLES: Final = 2000


class Interval(BaseModel):
    """A confidence interval: its bounds and how they were made (``resamples`` and ``seed`` are
    set for the bootstrap methods only)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    method: IntervalMethod
    level: float
    low: float | None
    high: float | None
    resamples: int | None = None
    seed: int | None = None

    @property
    def defined(self) -> bool:
        return self.low is not None and self.high is not None

    def includes(self, value: float) -> bool:
        """Whether ``value`` lies in the interval (bounds included); False when undefined."""
        return self.low is not None and self.high is not None and self.low <= value <= self.high

    def label(self) -> str:
        """``bootstrap-task 95%, 2000 resamples, seed 0`` or ``wilson 95%``."""
        text = f"{self.method} {self.level * 100:g}%"
        if self.resamples is not None:
            text += f", {self.resamples} resamples, seed {self.seed}"
        return text


class Rate(BaseModel):
    """A plain proportion, ``count/total``, with its Wilson interval; ``value`` is ``None``
    when ``total`` is 0."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    count: int
    total: int
    value: float | None
    interval: Interval


def _check_level(level: float) -> None:
    if not 0 < level < 1:
        raise UsageError(f"a confidence level must lie strictly between 0 and 1, not {level}")


def wilson_interval(successes: int, total: int, level: float = DEFAULT_LEVEL) -> Interval:
    """The Wilson score interval of ``successes/total`` at ``level``."""
    _check_level(level)
    if not 0 <= successes <= total:
        raise UsageError(f"successes must lie in 0..total, not {successes} of {total}")
    if total == 0:
        return Interval(method="wilson", level=level, low=None, high=None)
    z = NormalDist().inv_cdf(0.5 + level / 2)
    p = successes / total
    z2n = z * z / total
    centre = (p + z2n / 2) / (1 + z2n)
    half = z * math.sqrt(p * (1 - p) / total + z2n / (4 * total)) / (1 + z2n)
    # At 0 or at every success the bound is exactly 0 or 1; the formula leaves rounding there.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == total else min(1.0, centre + half)
    return Interval(method="wilson", level=level, low=low, high=high)


def rate(count: int, total: int, level: float = DEFAULT_LEVEL) -> Rate:
    """``count/total`` with its Wilson interval."""
    return Rate(
        count=count,
        total=total,
        value=count / total if total else None,
        interval=wilson_interval(count, total, level),
    )


def bootstrap_interval(
    values: Sequence[float],
    *,
    method: Literal["bootstrap-task", "bootstrap-paired-task"] = "bootstrap-task",
    level: float = DEFAULT_LEVEL,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> Interval:
    """The percentile bootstrap interval of the mean of ``values`` (one value per task):
    ``resamples`` means of ``len(values)`` values drawn with replacement, cut at the
    ``(1 - level) / 2`` quantiles (interpolated linearly, as numpy does by default)."""
    _check_level(level)
    if resamples < 1:
        raise UsageError(f"a bootstrap needs at least one resample, not {resamples}")
    low: float | None = None
    high: float | None = None
    if values and min(values) == max(values):
        # Every resample's mean is that one value: the interval is exact without drawing.
        low = high = values[0]
    elif values:
        means = _resampled_means(values, resamples, seed)
        tail = (1 - level) / 2
        low, high = quantile(means, tail), quantile(means, 1 - tail)
    return Interval(method=method, level=level, low=low, high=high, resamples=resamples, seed=seed)


def _resampled_means(values: Sequence[float], resamples: int, seed: int) -> list[float]:
    """The sorted means of ``resamples`` draws with replacement, from ``Random(seed)``."""
    rng = random.Random(seed)
    size = len(values)
    return sorted(math.fsum(rng.choices(values, k=size)) / size for _ in range(resamples))


def quantile(ordered: list[float], q: float) -> float:
    """The ``q`` quantile of sorted ``ordered``, interpolated linearly (as numpy by default)."""
    position = q * (len(ordered) - 1)
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (position - below) * (ordered[above] - ordered[below])
