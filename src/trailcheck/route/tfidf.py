"""Lexical scoring by TF-IDF cosine: the default scorer of the tool index.

Documents and queries arrive already normalised into tokens (:mod:`trailcheck.route.normalize`),
so this module adds only the weighting: unigrams and bigrams, sublinear term frequency,
smoothed IDF, rows scaled to unit length (scikit-learn's ``TfidfVectorizer`` fits it). A
query's score against a document is the cosine of their vectors, in ``[0, 1]``. The
vocabulary is sorted by term, so the order the documents come in changes no score.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

__all__ = ["LexicalScorer", "TfidfScorer", "with_bigrams"]


class LexicalScorer(Protocol):
    """Scores of one query against every fitted document, each in ``[0, 1]``."""

    name: str

    def fit(self, documents: Sequence[Sequence[str]]) -> None: ...

    def scores(self, query: Sequence[str]) -> npt.NDArray[np.float64]: ...


def with_bigrams(tokens: Sequence[str]) -> list[str]:
    """The tokens followed by each adjacent pair joined with a space."""
    return [*tokens, *(f"{a} {b}" for a, b in itertools.pairwise(tokens))]


def _identity(tokens: Sequence[str]) -> list[str]:
    return list(tokens)


class TfidfScorer:
    """Cosine of TF-IDF vectors over unigrams and bigrams of the given tokens."""

    name = "tfidf"

    def __init__(self) -> None:
        # Imported here: scikit-learn takes a second to import, which every CLI start would pay.
        from sklearn.feature_extraction.text import TfidfVectorizer

        self._vectorizer = TfidfVectorizer(
            analyzer=_identity, sublinear_tf=True, smooth_idf=True, norm="l2"
        )
        self._matrix_t: Any = None
        self._vocabulary: dict[str, int] = {}
        self._idf = np.zeros(0)
        self._count = 0

    def fit(self, documents: Sequence[Sequence[str]]) -> None:
        self._count = len(documents)
        grams = [with_bigrams(d) for d in documents]
        if not any(grams):
            self._vocabulary = {}
            return
        matrix = self._vectorizer.fit_transform(grams)
        self._matrix_t = matrix.T.tocsr()
        self._vocabulary = dict(self._vectorizer.vocabulary_)
        self._idf = np.asarray(self._vectorizer.idf_, dtype=np.float64)

    def scores(self, query: Sequence[str]) -> npt.NDArray[np.float64]:
        # The query's vector as TfidfVectorizer.transform builds it, without its per-call
        # overhead: (1 + ln tf) · idf over the fitted vocabulary, scaled to unit length.
        counts = Counter(g for g in with_bigrams(query) if g in self._vocabulary)
        if not counts:
            return np.zeros(self._count)
        columns = np.fromiter((self._vocabulary[g] for g in counts), dtype=np.intp)
        tf = 1.0 + np.log(np.fromiter(counts.values(), dtype=np.float64))
        weights = tf * self._idf[columns]
        weights /= np.linalg.norm(weights)
        return np.asarray(self._matrix_t[columns].T @ weights, dtype=np.float64)
