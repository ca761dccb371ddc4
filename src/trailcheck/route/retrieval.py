"""Tool retrieval over a catalog: fields with named weights, collapsed into capabilities.

Each tool has two fields, scored separately by a lexical scorer (TF-IDF by default, BM25 as
the alternative): ``text`` = name + description + category, and ``intent`` = its synonyms. A
tool's score is ``(w_text·s_text + w_intent·s_intent) / (w_text + w_intent)``, where the intent
weight counts only for a tool that has synonyms, so a tool without them is not capped below 1.

Scores are then max-pooled per capability: a capability scores what its best variant scores,
and that variant is kept for audit. The top k are k distinct capabilities, ranked by score and
then by capability name, never by catalog order (the index sorts the tools by name before
fitting). A request direction filters what may be returned (:data:`ALLOWED`): a read request
never sees a write capability, a write request never a read one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from trailcheck.route.bm25 import BM25Scorer
from trailcheck.route.catalog import Direction, Tool
from trailcheck.route.direction import ALLOWED, RequestDirection
from trailcheck.route.normalize import Normalizer
from trailcheck.route.taxonomy import CapabilityMap
from trailcheck.route.tfidf import LexicalScorer, TfidfScorer

__all__ = ["Candidate", "FieldWeights", "ScorerName", "ToolIndex"]

ScorerName = Literal["tfidf", "bm25"]


@dataclass(frozen=True)
class FieldWeights:
    """How much each field counts in a tool's score."""

    text: float = 1.0
    """Name + description + category."""
    intent: float = 0.5
    """The tool's synonyms (counted only for tools that have some)."""

    def __post_init__(self) -> None:
        if self.text < 0 or self.intent < 0 or self.text + self.intent == 0:
            raise ValueError(f"field weights must be >= 0 and not all 0, got {self}")


@dataclass(frozen=True)
class Candidate:
    """A capability retrieved for a request: its best variant and the arithmetic of its score."""

    capability: str
    direction: Direction
    score: float
    variant: str
    reason: str


def _scorer(name: ScorerName) -> LexicalScorer:
    return TfidfScorer() if name == "tfidf" else BM25Scorer()


class ToolIndex:
    """The catalog indexed for retrieval; build once, then :meth:`search` per request."""

    def __init__(
        self,
        tools: Iterable[Tool],
        capabilities: CapabilityMap,
        *,
        scorer: ScorerName = "tfidf",
        weights: FieldWeights | None = None,
        normalizer: Normalizer | None = None,
    ) -> None:
        self.normalizer = normalizer or Normalizer(stem_length=6)
        self.weights = weights or FieldWeights()
        self.scorer_name: ScorerName = scorer
        self.capabilities = capabilities
        ordered = sorted(tools, key=lambda t: (capabilities.of_tool[t.name], t.name))
        self._tools = [t.name for t in ordered]
        self._capability_names = sorted({capabilities.of_tool[t] for t in self._tools})
        owner = [capabilities.of_tool[t] for t in self._tools]
        self._starts = np.array([owner.index(c) for c in self._capability_names], dtype=np.intp)
        self._direction = {
            c: capabilities.capabilities[c].direction for c in self._capability_names
        }
        self._text = _scorer(scorer)
        self._text.fit([self._tokens(f"{t.name} {t.description} {t.category}") for t in ordered])
        self._intent = _scorer(scorer)
        self._intent.fit([self._tokens(" ; ".join(t.synonyms)) for t in ordered])
        has_intent = np.array([bool(t.synonyms) for t in ordered])
        self._denominator = self.weights.text + self.weights.intent * has_intent
        self._masks = {
            d: np.array([self._direction[c] in allowed for c in self._capability_names])
            for d, allowed in ALLOWED.items()
        }

    def _tokens(self, text: str) -> list[str]:
        return self.normalizer.tokens(text)

    def tool_scores(
        self, request: str
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """Per tool (index order): combined score, text-field score, intent-field score."""
        query = self._tokens(request)
        text = self._text.scores(query)
        intent = self._intent.scores(query)
        combined = (self.weights.text * text + self.weights.intent * intent) / self._denominator
        return combined, text, intent

    def search(
        self, request: str, k: int = 2, direction: RequestDirection = "unknown"
    ) -> list[Candidate]:
        """The top ``k`` capabilities with a positive score that ``direction`` allows."""
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        combined, text, intent = self.tool_scores(request)
        pooled = np.maximum.reduceat(combined, self._starts)
        pooled = np.where(self._masks[direction], pooled, -1.0)
        order = np.lexsort((np.arange(len(pooled)), -pooled))
        found: list[Candidate] = []
        for position in order[:k]:
            if pooled[position] <= 0:
                break
            found.append(self._candidate(int(position), combined, text, intent))
        return found

    def _candidate(
        self,
        position: int,
        combined: npt.NDArray[np.float64],
        text: npt.NDArray[np.float64],
        intent: npt.NDArray[np.float64],
    ) -> Candidate:
        start = int(self._starts[position])
        end = (
            int(self._starts[position + 1])
            if position + 1 < len(self._starts)
            else len(self._tools)
        )
        best = start + int(np.argmax(combined[start:end]))  # first max: variants sorted by name
        name = self._capability_names[position]
        w = self.weights
        reason = (
            f"{self.scorer_name} ({w.text}*text {text[best]:.3f} + {w.intent}*intent "
            f"{intent[best]:.3f}) / {self._denominator[best]:g} = {combined[best]:.3f} "
            f"via {self._tools[best]}"
        )
        return Candidate(
            capability=name,
            direction=self._direction[name],
            score=float(combined[best]),
            variant=self._tools[best],
            reason=reason,
        )
