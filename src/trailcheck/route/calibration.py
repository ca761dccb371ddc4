"""Calibration: Platt scaling, and how well probabilities match frequencies.

Platt scaling fits ``p = 1 / (1 + exp(a·s + b))`` to a classifier's scores ``s``, with Platt's
smoothed targets ``(N₊+1)/(N₊+2)`` and ``1/(N₋+2)`` so that a handful of separable examples
cannot produce probabilities of exactly 0 or 1. It is fitted on out-of-fold scores (see
:mod:`trailcheck.route.router`), never on scores of the examples a model was trained on.

Calibration is measured, not assumed:

- Brier score: the mean over items of ``Σ_class (p_class − 1[class = truth])²`` (0 is perfect;
  with two classes it is twice the one-class Brier score).
- Expected calibration error: items binned by their top probability into ``bins`` equal-width
  bins; ``ECE = Σ_bin (n_bin / n) · |accuracy_bin − mean confidence_bin|``.
- The reliability table: the rows of that sum, so the reader can redo it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = [
    "PlattScaler",
    "ReliabilityRow",
    "brier_score",
    "expected_calibration_error",
    "reliability_table",
]


@dataclass(frozen=True)
class PlattScaler:
    """``p = 1 / (1 + exp(-(slope·s + intercept)))``, fitted by :meth:`fit`."""

    slope: float
    intercept: float

    @classmethod
    def fit(cls, scores: npt.ArrayLike, positive: npt.ArrayLike) -> PlattScaler:
        """Fit on 1-d ``scores`` and boolean ``positive`` labels, with smoothed targets."""
        s = np.asarray(scores, dtype=np.float64).reshape(-1, 1)
        y = np.asarray(positive, dtype=bool)
        n_pos, n_neg = int(y.sum()), int((~y).sum())
        target = np.where(y, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))
        features = np.vstack([s, s])
        labels = np.concatenate([np.ones(len(s)), np.zeros(len(s))])
        weights = np.concatenate([target, 1 - target])
        # Imported here: scikit-learn takes a second to import, which every CLI start would pay.
        from sklearn.linear_model import LogisticRegression

        model = LogisticRegression(C=1e6, max_iter=1000)
        model.fit(features, labels, sample_weight=weights)
        return cls(slope=float(model.coef_[0][0]), intercept=float(model.intercept_[0]))

    def apply(self, scores: npt.ArrayLike) -> npt.NDArray[np.float64]:
        s = np.asarray(scores, dtype=np.float64)
        return np.asarray(1.0 / (1.0 + np.exp(-(self.slope * s + self.intercept))))


@dataclass(frozen=True)
class ReliabilityRow:
    """One bin of the reliability table."""

    low: float
    high: float
    count: int
    mean_confidence: float | None
    accuracy: float | None


def brier_score(probabilities: npt.ArrayLike, truth: Sequence[int]) -> float:
    """Mean over items of the squared distance between the probabilities and the one-hot truth."""
    p = np.asarray(probabilities, dtype=np.float64)
    if len(truth) == 0:
        return float("nan")
    onehot = np.zeros_like(p)
    onehot[np.arange(len(truth)), np.asarray(truth)] = 1.0
    return float(np.mean(np.sum((p - onehot) ** 2, axis=1)))


def reliability_table(
    confidence: Sequence[float], correct: Sequence[bool], bins: int = 10
) -> list[ReliabilityRow]:
    """Items binned by confidence (the last bin closed): count, mean confidence, accuracy."""
    c = np.asarray(confidence, dtype=np.float64)
    ok = np.asarray(correct, dtype=bool)
    index = np.minimum((c * bins).astype(int), bins - 1)
    rows: list[ReliabilityRow] = []
    for b in range(bins):
        inside = index == b
        n = int(inside.sum())
        rows.append(
            ReliabilityRow(
                low=b / bins,
                high=(b + 1) / bins,
                count=n,
                mean_confidence=float(c[inside].mean()) if n else None,
                accuracy=float(ok[inside].mean()) if n else None,
            )
        )
    return rows


def expected_calibration_error(rows: Sequence[ReliabilityRow]) -> float:
    """``Σ (n_bin/n)·|accuracy − confidence|`` over the non-empty rows."""
    total = sum(r.count for r in rows)
    if total == 0:
        return float("nan")
    gap = sum(
        r.count * abs(r.accuracy - r.mean_confidence)
        for r in rows
        if r.accuracy is not None and r.mean_confidence is not None
    )
    return gap / total
