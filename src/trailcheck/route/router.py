"""The router: which route a message takes (answer locally, or hand it to the agent).

TF-IDF over word unigrams and bigrams of the normalised message (the same
:class:`~trailcheck.route.normalize.Normalizer` for training and for queries), then a
logistic regression. Its probabilities are calibrated by Platt scaling (one scaler per route,
one-vs-rest, renormalised to sum to 1) fitted on out-of-fold decision scores: stratified
folds, shuffled with a fixed seed, ``folds = min(5, size of the smallest route)``. With a route
of fewer than 2 examples there are no folds to speak of: the raw probabilities are used and
:attr:`RouterFit.calibrated` says so. The out-of-fold probabilities, raw and calibrated, are
kept so that calibration can be reported, not only applied.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from trailcheck.errors import InputError, RecordError
from trailcheck.route.calibration import PlattScaler
from trailcheck.route.catalog import read_json
from trailcheck.route.normalize import Normalizer

if TYPE_CHECKING:
    from sklearn.pipeline import Pipeline

# scikit-learn is imported where it is used: it takes a second to import, which every
# `trailcheck` command would otherwise pay at start.
from trailcheck.route.tfidf import with_bigrams

__all__ = [
    "MAX_FOLDS",
    "RoutePrediction",
    "Router",
    "RouterFit",
    "TrainingExample",
    "load_training",
]

MAX_FOLDS = 5
SEED = 0


@dataclass(frozen=True)
class TrainingExample:
    text: str
    label: str


@dataclass(frozen=True)
class RoutePrediction:
    """The most probable route, its probability, and every route's probability."""

    route: str
    confidence: float
    probabilities: dict[str, float]


@dataclass(frozen=True)
class RouterFit:
    """How the router was fitted: folds, whether calibrated and why, out-of-fold evidence."""

    routes: tuple[str, ...]
    folds: int
    calibrated: bool
    reason: str
    oof_truth: tuple[int, ...]
    oof_raw: tuple[tuple[float, ...], ...]
    oof_calibrated: tuple[tuple[float, ...], ...]


def load_training(path: Path) -> list[TrainingExample]:
    """The ``{text, label}`` examples of a training file."""
    data = read_json(path)
    if not isinstance(data, list):
        raise InputError(f"{path}: expected a JSON list of {{text, label}} examples")
    examples: list[TrainingExample] = []
    for index, entry in enumerate(data):
        for key in ("text", "label"):
            value = entry.get(key) if isinstance(entry, dict) else None
            if not isinstance(value, str) or not value.strip():
                raise RecordError(
                    f"example {index}: must be a non-empty string", source=str(path), field=key
                )
        examples.append(TrainingExample(text=entry["text"], label=entry["label"]))
    return examples


def _rows(matrix: npt.NDArray[np.float64]) -> tuple[tuple[float, ...], ...]:
    return tuple(tuple(float(x) for x in row) for row in matrix)


class Router:
    """A fitted, calibrated router; build with :meth:`train`."""

    def __init__(
        self,
        normalizer: Normalizer,
        pipeline: Pipeline,
        scalers: tuple[PlattScaler, ...] | None,
        fit: RouterFit,
    ) -> None:
        self.normalizer = normalizer
        self._pipeline = pipeline
        self._scalers = scalers
        self.fit = fit
        self.routes = fit.routes
        vectorizer, model = pipeline[0], pipeline[-1]
        self._analyse = vectorizer.build_analyzer()
        self._vocabulary: dict[str, int] = dict(vectorizer.vocabulary_)
        self._idf = np.asarray(vectorizer.idf_, dtype=np.float64)
        self._coef = np.asarray(model.coef_, dtype=np.float64)
        self._intercept = np.asarray(model.intercept_, dtype=np.float64)

    @classmethod
    def train(
        cls, examples: Sequence[TrainingExample], normalizer: Normalizer | None = None
    ) -> Router:
        """Fit on ``examples`` (at least two routes); see the module doc for calibration."""
        normalizer = normalizer or Normalizer(stem_length=6)
        counts = Counter(e.label for e in examples)
        if len(counts) < 2:
            raise InputError(f"the router needs at least two routes, got {sorted(counts)}")
        texts = [e.text for e in examples]
        labels = np.array([e.label for e in examples])
        pipeline = _pipeline(normalizer)
        routes = tuple(sorted(counts))
        truth = tuple(routes.index(e.label) for e in examples)
        smallest = min(counts.values())
        if smallest < 2:
            pipeline.fit(texts, labels)
            raw = pipeline.predict_proba(texts)
            reason = f"not calibrated: the smallest route has {smallest} example(s), fewer than 2"
            fit = RouterFit(routes, 0, False, reason, truth, _rows(raw), _rows(raw))
            return cls(normalizer, pipeline, None, fit)
        from sklearn.model_selection import StratifiedKFold, cross_val_predict

        folds = min(MAX_FOLDS, smallest)
        splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=SEED)
        oof_scores = _scores(
            cross_val_predict(
                _pipeline(normalizer), texts, labels, cv=splitter, method="decision_function"
            ),
            len(routes),
        )
        oof_raw = cross_val_predict(
            _pipeline(normalizer), texts, labels, cv=splitter, method="predict_proba"
        )
        scalers = tuple(
            PlattScaler.fit(oof_scores[:, i], labels == route) for i, route in enumerate(routes)
        )
        oof_calibrated = _combine(scalers, oof_scores)
        pipeline.fit(texts, labels)
        reason = f"Platt scaling on out-of-fold scores of {folds} stratified folds (seed {SEED})"
        fit = RouterFit(routes, folds, True, reason, truth, _rows(oof_raw), _rows(oof_calibrated))
        return cls(normalizer, pipeline, scalers, fit)

    def probabilities(self, texts: Sequence[str]) -> npt.NDArray[np.float64]:
        """Calibrated probabilities, one row per text, columns in :attr:`routes` order."""
        if self._scalers is None:
            return np.asarray(self._pipeline.predict_proba(list(texts)), dtype=np.float64)
        scores = _scores(self._pipeline.decision_function(list(texts)), len(self.routes))
        return _combine(self._scalers, scores)

    def raw_probabilities(self, texts: Sequence[str]) -> npt.NDArray[np.float64]:
        """The logistic regression's own probabilities, before calibration."""
        return np.asarray(self._pipeline.predict_proba(list(texts)), dtype=np.float64)

    def _decision(self, text: str) -> npt.NDArray[np.float64]:
        """The model's decision scores for one text, computed as the pipeline would, without
        its per-call overhead: (1 + ln tf) · idf, unit length, then ``coef · x + intercept``."""
        counts = Counter(g for g in self._analyse(text) if g in self._vocabulary)
        if not counts:
            return self._intercept.copy()
        columns = np.fromiter((self._vocabulary[g] for g in counts), dtype=np.intp)
        weights = (1.0 + np.log(np.fromiter(counts.values(), dtype=np.float64))) * self._idf[
            columns
        ]
        weights /= np.linalg.norm(weights)
        return np.asarray(self._coef[:, columns] @ weights + self._intercept)

    def predict(self, text: str) -> RoutePrediction:
        """The route of one text (the same numbers as :meth:`probabilities`, faster)."""
        if self._scalers is None:
            row = self.probabilities([text])[0]
        else:
            decision = self._decision(text)
            binary = len(self.routes) == 2
            scores = _scores(decision if binary else decision[None, :], len(self.routes))
            row = _combine(self._scalers, scores)[0]
        best = int(np.lexsort((np.arange(len(row)), -row))[0])
        return RoutePrediction(
            route=self.routes[best],
            confidence=float(row[best]),
            probabilities={r: float(p) for r, p in zip(self.routes, row, strict=True)},
        )


def _pipeline(normalizer: Normalizer) -> Pipeline:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    def analyse(text: str) -> list[str]:
        return with_bigrams(normalizer.tokens(text, drop_stop_words=False))

    return make_pipeline(
        TfidfVectorizer(analyzer=analyse, sublinear_tf=True),
        LogisticRegression(C=10.0, max_iter=1000),
    )


def _scores(decision: npt.ArrayLike, routes: int) -> npt.NDArray[np.float64]:
    """Decision scores as one column per route (a binary model gives one column: ±s)."""
    s = np.asarray(decision, dtype=np.float64)
    if routes == 2 and s.ndim == 1:
        return np.column_stack([-s, s])
    return s


def _combine(
    scalers: Sequence[PlattScaler], scores: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    if len(scalers) == 2:
        positive = scalers[1].apply(scores[:, 1])
        return np.column_stack([1 - positive, positive])
    columns = np.column_stack([s.apply(scores[:, i]) for i, s in enumerate(scalers)])
    return np.asarray(columns / columns.sum(axis=1, keepdims=True))
