"""Okapi BM25, the alternative lexical scorer, scaled into ``[0, 1]``.

``bm25(q, d) = Σ_t idf(t) · tf·(k1+1) / (tf + k1·(1 − b + b·|d|/avgdl))`` over the query's
distinct terms, with ``idf(t) = ln(1 + (N − df + 0.5)/(df + 0.5))``. A term can add at most
``idf(t)·(k1+1)``, so the score is divided by the sum of that bound over the query's known
terms: 1 would mean every known query term saturates the document. The scale makes BM25 and
TF-IDF scores comparable for the same relevance threshold; it does not change the ranking.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

__all__ = ["BM25Scorer"]


class BM25Scorer:
    """BM25 over unigrams, with the usual ``k1`` and ``b``."""

    name = "bm25"

    def __init__(self, k1: float = 1.2, b: float = 0.75) -> None:
        self.k1 = k1
        self.b = b
        self._postings: dict[str, list[tuple[int, int]]] = {}
        self._idf: dict[str, float] = {}
        self._norm = np.zeros(0)
        self._count = 0

    def fit(self, documents: Sequence[Sequence[str]]) -> None:
        self._count = len(documents)
        lengths = np.array([len(d) for d in documents], dtype=np.float64)
        average = float(lengths.mean()) if len(documents) and lengths.sum() else 1.0
        self._norm = self.k1 * (1 - self.b + self.b * lengths / average)
        postings: dict[str, list[tuple[int, int]]] = {}
        for index, document in enumerate(documents):
            for term, count in sorted(Counter(document).items()):
                postings.setdefault(term, []).append((index, count))
        self._postings = postings
        n = self._count
        self._idf = {
            term: math.log(1 + (n - len(p) + 0.5) / (len(p) + 0.5)) for term, p in postings.items()
        }

    def scores(self, query: Sequence[str]) -> npt.NDArray[np.float64]:
        total = np.zeros(self._count)
        bound = 0.0
        for term in sorted(set(query)):
            postings = self._postings.get(term)
            if postings is None:
                continue
            idf = self._idf[term]
            bound += idf * (self.k1 + 1)
            for index, tf in postings:
                total[index] += idf * tf * (self.k1 + 1) / (tf + self._norm[index])
        return total / bound if bound > 0 else total
