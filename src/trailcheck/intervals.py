"""Confidence intervals, each labelled with the method that made it.

Two kinds of method, for two kinds of number:

- ``wilson``: the Wilson score interval of a plain proportion of independent events (the share
  of trials that hit an infrastructure error). Applied to pass rates over trials it is too
  narrow, because the trials of one task are correlated; it is labelled so that no one reads it
  as the interval of pass@1.
- ``jeffreys``: for the same plain proportions, the equal-tailed interval of the Beta posterior
  under the Jeffreys prior Beta(1/2, 1/2), with the boundary rule of Brown, Cai and DasGupta
  (2001, "Interval Estimation for a Binomial Proportion", Statistical Science 16(2)): the lower
  bound is 0 when nothing succeeded and the upper bound 1 when everything did. Its Beta
  quantile is computed here (:func:`beta_quantile`) with the standard library only.
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
    "beta_quantile",
    "bootstrap_interval",
    "jeffreys_interval",
    "rate",
    "regularized_beta",
    "wilson_interval",
]

IntervalMethod = Literal["bootstrap-task", "bootstrap-paired-task", "wilson", "jeffreys"]

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


def jeffreys_interval(successes: int, total: int, level: float = DEFAULT_LEVEL) -> Interval:
    """The Jeffreys interval of ``successes/total`` at ``level``: the ``(1 - level) / 2`` and
    ``(1 + level) / 2`` quantiles of Beta(successes + 1/2, failures + 1/2), with the lower bound
    0 at no success and the upper bound 1 at every success."""
    _check_level(level)
    if not 0 <= successes <= total:
        raise UsageError(f"successes must lie in 0..total, not {successes} of {total}")
    if total == 0:
        return Interval(method="jeffreys", level=level, low=None, high=None)
    a, b = successes + 0.5, total - successes + 0.5
    tail = (1 - level) / 2
    low = 0.0 if successes == 0 else beta_quantile(tail, a, b)
    high = 1.0 if successes == total else beta_quantile(1 - tail, a, b)
    return Interval(method="jeffreys", level=level, low=low, high=high)


# The continued fraction of the incomplete beta function: a term this small ends it, and this
# many terms bound it (it needs about sqrt(max(a, b)) of them: a million trials need ~1,000).
_FRACTION_EPSILON: Final = 1e-16
_FRACTION_TERMS: Final = 100_000
_TINY: Final = 1e-300


def regularized_beta(x: float, a: float, b: float) -> float:
    """I_x(a, b), the regularized incomplete beta function: the Beta(a, b) distribution function
    at ``x``. By its continued fraction, evaluated with the modified Lentz method on whichever
    side of the mean converges fast (Numerical Recipes, 3rd ed., section 6.4)."""
    if a <= 0 or b <= 0:
        raise UsageError(f"a Beta distribution has positive parameters, not ({a}, {b})")
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    # x^a (1 - x)^b / (a B(a, b)), in logarithms: the counts of a busy window overflow powers.
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x < (a + 1) / (a + b + 2):
        return math.exp(log_front) * _beta_fraction(x, a, b) / a
    return 1.0 - math.exp(log_front) * _beta_fraction(1.0 - x, b, a) / b


def _beta_fraction(x: float, a: float, b: float) -> float:
    """The continued fraction of I_x(a, b), converging for x < (a + 1) / (a + b + 2)."""
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    value = d
    for m in range(1, _FRACTION_TERMS + 1):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + numerator / c
            c = c if abs(c) > _TINY else _TINY
            value *= c * d
        if abs(c * d - 1.0) < _FRACTION_EPSILON:
            return value
    raise ArithmeticError(f"the incomplete beta fraction did not converge at ({x}, {a}, {b})")


def beta_quantile(q: float, a: float, b: float) -> float:
    """The ``q`` quantile of Beta(a, b): the ``x`` with I_x(a, b) = q, found by bisection. The
    distribution function rises strictly on [0, 1], so halving the bracket until its ends are
    neighbouring floats finds ``x`` to the last bit the function resolves."""
    if not 0.0 <= q <= 1.0:
        raise UsageError(f"a quantile is of a probability in [0, 1], not {q}")
    low, high = 0.0, 1.0
    while True:
        middle = (low + high) / 2
        if middle in (low, high):
            return middle
        if regularized_beta(middle, a, b) < q:
            low = middle
        else:
            high = middle


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
