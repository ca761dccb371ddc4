"""Failure rates over windows of online scores, with their intervals, and the alert tests.

A window holds ``scored`` traces of which ``passed`` passed; its failure rate is
``(scored - passed) / scored`` with a confidence interval (:func:`failure_rate`): Wilson's, or
the Jeffreys Beta posterior's (:mod:`trailcheck.intervals` computes both). Two windows are
compared with the pooled two-proportion z-test (:func:`two_proportion_test`).

An :data:`AlertRule` says when a window is worth telling someone about, and
:func:`evaluate_alert` applies it to a window's counts (and a baseline window's), returning an
:class:`Alert` with the numbers that justify it, or ``None``:

- ``failure_rate_above``: the failure rate's interval lies above ``threshold`` (its lower bound
  is greater). A point estimate over a few traces crosses any threshold by chance; the lower
  bound crosses it only when the window holds enough failures to say so at ``level``.
- ``failure_rate_change``: the window's failure rate differs from the baseline window's beyond
  chance: the two-sided p-value of the z-test is below ``alpha``, and the difference goes the
  way ``direction`` asks (``increase`` by default: a failure rate falling is not an alarm).

A window with nothing scored has no rate (``value`` and the interval's bounds are ``None``) and
raises no alert.
"""

from __future__ import annotations

import math
from typing import Annotated, Final, Literal, Self

from pydantic import BaseModel, ConfigDict, Discriminator, Field, model_validator

from trailcheck.errors import UsageError
from trailcheck.intervals import (
    DEFAULT_LEVEL,
    Interval,
    Rate,
    jeffreys_interval,
    wilson_interval,
)

__all__ = [
    "Alert",
    "AlertRule",
    "FailureRateAboveRule",
    "FailureRateChangeRule",
    "ProportionTest",
    "RateMethod",
    "WindowCounts",
    "evaluate_alert",
    "failure_rate",
    "fisher_exact_p",
    "two_proportion_test",
]

RateMethod = Literal["wilson", "jeffreys"]
Level = Annotated[float, Field(gt=0.0, lt=1.0)]


class WindowCounts(BaseModel):
    """What one window of one evaluator holds: traces scored, and how many passed."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    scored: int = Field(ge=0)
    passed: int = Field(ge=0)

    @model_validator(mode="after")
    def _passed_within_scored(self) -> Self:
        if self.passed > self.scored:
            raise ValueError(f"passed ({self.passed}) exceeds scored ({self.scored})")
        return self

    @property
    def failed(self) -> int:
        return self.scored - self.passed


def failure_rate(
    counts: WindowCounts, *, level: float = DEFAULT_LEVEL, method: RateMethod = "wilson"
) -> Rate:
    """The window's failure rate, failed/scored, with its interval by ``method``."""
    make = wilson_interval if method == "wilson" else jeffreys_interval
    return Rate(
        count=counts.failed,
        total=counts.scored,
        value=counts.failed / counts.scored if counts.scored else None,
        interval=make(counts.failed, counts.scored, level),
    )


class ProportionTest(BaseModel):
    """The test of ``a``'s rate against ``b``'s: ``z`` of the pooled two-proportion z-test, and
    the two-sided ``p_value`` of the test named by ``method``. ``z`` and ``p_value`` are
    ``None`` when either side is empty: there is nothing to compare."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rate_a: float | None
    rate_b: float | None
    difference: float | None
    z: float | None
    p_value: float | None
    method: Literal["z", "fisher"] = "z"


def two_proportion_test(count_a: int, total_a: int, count_b: int, total_b: int) -> ProportionTest:
    """``count_a/total_a`` against ``count_b/total_b``: under the hypothesis that both share one
    rate, estimated by pooling (``p = (count_a + count_b) / (total_a + total_b)``), the
    difference over its standard error ``sqrt(p (1 - p) (1/total_a + 1/total_b))`` is ``z``,
    standard normal, and the two-sided p-value is ``erfc(|z| / sqrt 2)``. When the pooled rate
    is 0 or 1 both rates are equal, so ``z`` is 0 and the p-value 1.

    The normal approximation holds when each cell of the 2×2 table expects 5 or more; below
    that it calls chance a change too readily (3 failures in 10 against none in 10: p = 0.06 by
    z, 0.21 exactly), so the p-value is then Fisher's exact test's (:func:`fisher_exact_p`),
    and ``method`` says so."""
    for count, total in ((count_a, total_a), (count_b, total_b)):
        if not 0 <= count <= total:
            raise UsageError(f"a count lies in 0..total, not {count} of {total}")
    if total_a == 0 or total_b == 0:
        rate_a = count_a / total_a if total_a else None
        rate_b = count_b / total_b if total_b else None
        return ProportionTest(rate_a=rate_a, rate_b=rate_b, difference=None, z=None, p_value=None)
    rate_a, rate_b = count_a / total_a, count_b / total_b
    total, counted = total_a + total_b, count_a + count_b
    pooled = counted / total
    variance = pooled * (1 - pooled) * (1 / total_a + 1 / total_b)
    z = 0.0 if variance == 0 else (rate_a - rate_b) / math.sqrt(variance)
    fewest_expected = min(total_a, total_b) * min(counted, total - counted) / total
    if fewest_expected < _FEWEST_EXPECTED_FOR_Z:
        p_value, method = fisher_exact_p(count_a, total_a, count_b, total_b), "fisher"
    else:
        p_value, method = math.erfc(abs(z) / math.sqrt(2)), "z"
    return ProportionTest(
        rate_a=rate_a,
        rate_b=rate_b,
        difference=rate_a - rate_b,
        z=z,
        p_value=p_value,
        method=method,
    )


# The fewest a cell of the 2x2 table may expect for the normal approximation (the usual rule).
_FEWEST_EXPECTED_FOR_Z: Final = 5


def fisher_exact_p(count_a: int, total_a: int, count_b: int, total_b: int) -> float:
    """The two-sided p-value of Fisher's exact test of the 2×2 table (``count_a`` of
    ``total_a`` against ``count_b`` of ``total_b``): with the margins fixed, the probability
    of every table no likelier than the one observed (hypergeometric). Computed in logarithms
    (``lgamma``), so a window of a million traces costs as little as one of ten; a relative
    tolerance of 1e-7 counts ties as R and SciPy do."""
    counted, total = count_a + count_b, total_a + total_b
    low, high = max(0, counted - total_b), min(counted, total_a)

    def log_weight(k: int) -> float:  # log of C(counted, k) C(total - counted, total_a - k)
        return _log_comb(counted, k) + _log_comb(total - counted, total_a - k)

    observed = log_weight(count_a) + math.log1p(1e-7)
    denominator = _log_comb(total, total_a)
    likely_as_observed = math.fsum(
        math.exp(weight - denominator)
        for k in range(low, high + 1)
        if (weight := log_weight(k)) <= observed
    )
    return min(1.0, likely_as_observed)


def _log_comb(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


class FailureRateAboveRule(BaseModel):
    """Alert when the failure rate's interval lies above ``threshold``."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    kind: Literal["failure_rate_above"] = "failure_rate_above"
    threshold: float = Field(ge=0.0, lt=1.0)
    level: Level = DEFAULT_LEVEL
    method: RateMethod = "wilson"


class FailureRateChangeRule(BaseModel):
    """Alert when the failure rate differs from the baseline window's beyond chance."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    kind: Literal["failure_rate_change"] = "failure_rate_change"
    alpha: float = Field(default=0.01, gt=0.0, lt=1.0)
    direction: Literal["increase", "decrease", "either"] = "increase"


AlertRule = Annotated[FailureRateAboveRule | FailureRateChangeRule, Discriminator("kind")]
"""Any alert rule, chosen by its ``kind``."""


class Alert(BaseModel):
    """A rule that fired over a window: the window's failure rate and interval, the test against
    the baseline (for a change rule), and a reason with the arithmetic."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rule: FailureRateAboveRule | FailureRateChangeRule
    rate: Rate
    baseline: Rate | None = None
    test: ProportionTest | None = None
    reason: str


def _shown(rate: Rate) -> str:
    """``12/40=0.300``."""
    value = "n/a" if rate.value is None else f"{rate.value:.3f}"
    return f"{rate.count}/{rate.total}={value}"


def _bounds(interval: Interval) -> str:
    return f"{interval.label()} [{interval.low:.3f}, {interval.high:.3f}]"


def _above(rule: FailureRateAboveRule, window: WindowCounts) -> Alert | None:
    rate = failure_rate(window, level=rule.level, method=rule.method)
    low = rate.interval.low
    if low is None or low <= rule.threshold:
        return None
    reason = (
        f"failure rate {_shown(rate)}, {_bounds(rate.interval)}:"
        f" lower bound {low:.3f} > threshold {rule.threshold:.3f}"
    )
    return Alert(rule=rule, rate=rate, reason=reason)


def _changed(
    rule: FailureRateChangeRule, window: WindowCounts, baseline: WindowCounts
) -> Alert | None:
    test = two_proportion_test(window.failed, window.scored, baseline.failed, baseline.scored)
    if test.p_value is None or test.difference is None or test.p_value >= rule.alpha:
        return None
    if (rule.direction == "increase" and test.difference <= 0) or (
        rule.direction == "decrease" and test.difference >= 0
    ):
        return None
    rate, before = failure_rate(window), failure_rate(baseline)
    way = "up" if test.difference > 0 else "down"
    reason = (
        f"failure rate {_shown(rate)} against baseline {_shown(before)}: {way}"
        f" {abs(test.difference):.3f}, z={test.z:.2f}, two-sided p={test.p_value:.2g}"
        f"{' (Fisher exact)' if test.method == 'fisher' else ''} < alpha {rule.alpha:g}"
    )
    return Alert(rule=rule, rate=rate, baseline=before, test=test, reason=reason)


def evaluate_alert(
    rule: FailureRateAboveRule | FailureRateChangeRule,
    window: WindowCounts,
    baseline: WindowCounts | None = None,
) -> Alert | None:
    """The alert ``rule`` raises over ``window`` (compared with ``baseline`` for a change rule),
    or ``None``. A change rule without a baseline is a usage error."""
    if isinstance(rule, FailureRateAboveRule):
        return _above(rule, window)
    if baseline is None:
        raise UsageError("a failure_rate_change rule compares with a baseline window; none given")
    return _changed(rule, window, baseline)
