"""Agreement between a judge and people on binary verdicts: the confusion matrix, Cohen's kappa
with a seeded bootstrap interval, and the rates a gate reads.

Cohen's kappa of a 2×2 table with a (both pass), b (human pass, judge fail), c (human fail,
judge pass), d (both fail) is ``2(ad − bc) / ((a+b)(b+d) + (a+c)(c+d))``, the same number as
``(p_o − p_e) / (1 − p_e)`` and as scikit-learn's ``cohen_kappa_score``. It is **undefined**
when the human labels are all one class: then every judge scores 0 however often it agrees (or
0/0 when it agrees always), which measures the labels, not the judge. Undefined is reported as
``None`` with the reason, never as 0 or 1. (scikit-learn says 0 when only the judge varies; we
say undefined, on purpose.) A judge that answers one class against mixed labels does get a
defined kappa of 0: it is no better than chance, which is worth saying.

The kappa interval is a percentile bootstrap over labelled items (each resample draws the items
with replacement and recomputes kappa), seeded like every trailcheck bootstrap. Resamples whose
labels fall all in one class have no kappa; they are left out and counted.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final

from pydantic import BaseModel, ConfigDict

from trailcheck.intervals import (
    DEFAULT_LEVEL,
    DEFAULT_RESAMPLES,
    Interval,
    Rate,
    quantile,
    rate,
)

__all__ = ["AgreementRates", "Confusion", "Kappa", "agreement_rates", "cohen_kappa", "confusion"]

_ONE_CLASS: Final = "the human labels are all one class: kappa measures nothing"
_NO_PAIRS: Final = "no item has both a human label and a verdict"


class Confusion(BaseModel):
    """Human pass/fail × judge pass/fail counts over the paired items."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    human_pass_judge_pass: int
    human_pass_judge_fail: int
    human_fail_judge_pass: int
    human_fail_judge_fail: int

    @property
    def total(self) -> int:
        return (
            self.human_pass_judge_pass
            + self.human_pass_judge_fail
            + self.human_fail_judge_pass
            + self.human_fail_judge_fail
        )

    @property
    def human_passes(self) -> int:
        return self.human_pass_judge_pass + self.human_pass_judge_fail

    @property
    def human_fails(self) -> int:
        return self.human_fail_judge_pass + self.human_fail_judge_fail


def confusion(pairs: Sequence[tuple[bool, bool]]) -> Confusion:
    """The confusion matrix of ``(human_passed, judge_passed)`` pairs."""
    return Confusion(
        human_pass_judge_pass=pairs.count((True, True)),
        human_pass_judge_fail=pairs.count((True, False)),
        human_fail_judge_pass=pairs.count((False, True)),
        human_fail_judge_fail=pairs.count((False, False)),
    )


def _kappa_of_counts(a: int, b: int, c: int, d: int) -> float | None:
    if a + b == 0 or c + d == 0:
        return None
    # Humans in both classes: the denominator is positive.
    return 2 * (a * d - b * c) / ((a + b) * (b + d) + (a + c) * (c + d))


class Kappa(BaseModel):
    """Cohen's kappa, its bootstrap interval, and why it is undefined when it is."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    value: float | None
    interval: Interval
    undefined_reason: str | None = None
    resamples_undefined: int = 0
    """Bootstrap resamples left out because their labels were all one class."""


def cohen_kappa(
    pairs: Sequence[tuple[bool, bool]],
    *,
    level: float = DEFAULT_LEVEL,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> Kappa:
    """Kappa of ``(human_passed, judge_passed)`` pairs with its seeded bootstrap interval."""
    table = confusion(pairs)
    value = _kappa_of_counts(
        table.human_pass_judge_pass,
        table.human_pass_judge_fail,
        table.human_fail_judge_pass,
        table.human_fail_judge_fail,
    )
    if value is None:
        reason = _NO_PAIRS if not pairs else _ONE_CLASS
        undefined = Interval(
            method="bootstrap-task",
            level=level,
            low=None,
            high=None,
            resamples=resamples,
            seed=seed,
        )
        return Kappa(value=None, interval=undefined, undefined_reason=reason)
    kappas, skipped = _resampled_kappas(pairs, resamples, seed)
    tail = (1 - level) / 2
    low = quantile(kappas, tail) if kappas else None
    high = quantile(kappas, 1 - tail) if kappas else None
    # "bootstrap-task": each labelled item is the unit resampled, as a task is for pass@k.
    interval = Interval(
        method="bootstrap-task", level=level, low=low, high=high, resamples=resamples, seed=seed
    )
    return Kappa(value=value, interval=interval, resamples_undefined=skipped)


def _resampled_kappas(
    pairs: Sequence[tuple[bool, bool]], resamples: int, seed: int
) -> tuple[list[float], int]:
    """Sorted kappas of ``resamples`` draws with replacement, from ``Random(seed)``, and how many
    draws had no kappa."""
    cells = [2 * (not human) + (not judge) for human, judge in pairs]  # a=0, b=1, c=2, d=3
    rng = random.Random(seed)
    kappas: list[float] = []
    for _ in range(resamples):
        drawn = rng.choices(cells, k=len(cells))
        value = _kappa_of_counts(drawn.count(0), drawn.count(1), drawn.count(2), drawn.count(3))
        if value is not None:
            kappas.append(value)
    return sorted(kappas), resamples - len(kappas)


class AgreementRates(BaseModel):
    """The rates of one confusion matrix, each a count over its denominator with a Wilson
    interval (value None when the denominator is 0)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    agreement: Rate
    recall_on_human_pass: Rate
    recall_on_human_fail: Rate
    false_pass_rate: Rate
    """Judge passes among human fails: what lets a bad release through."""
    false_fail_rate: Rate
    """Judge fails among human passes: what blocks a good one."""


def agreement_rates(table: Confusion, level: float = DEFAULT_LEVEL) -> AgreementRates:
    agree = table.human_pass_judge_pass + table.human_fail_judge_fail
    return AgreementRates(
        agreement=rate(agree, table.total, level),
        recall_on_human_pass=rate(table.human_pass_judge_pass, table.human_passes, level),
        recall_on_human_fail=rate(table.human_fail_judge_fail, table.human_fails, level),
        false_pass_rate=rate(table.human_fail_judge_pass, table.human_fails, level),
        false_fail_rate=rate(table.human_pass_judge_fail, table.human_passes, level),
    )
