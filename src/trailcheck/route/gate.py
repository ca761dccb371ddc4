"""The pre-LLM gate: route, retrieve and decide for one request, in that order.

:class:`RouteGate` holds a fitted :class:`~trailcheck.route.router.Router` and a
:class:`~trailcheck.route.retrieval.ToolIndex`, built once. :meth:`RouteGate.route` answers a
:class:`Routing`: the route prediction, the request's direction (declared by the caller, or
read from cue words), the top-k capabilities and the decision. Retrieval runs for every
request, also one the router sends down the fast path, so the audit trail always shows what
the catalog would have offered.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from trailcheck.route.catalog import Tool
from trailcheck.route.decide import Decision, Thresholds, decide
from trailcheck.route.direction import DirectionCues, RequestDirection, request_direction
from trailcheck.route.normalize import Normalizer
from trailcheck.route.retrieval import Candidate, FieldWeights, ScorerName, ToolIndex
from trailcheck.route.router import RoutePrediction, Router, TrainingExample
from trailcheck.route.taxonomy import TaxonomyEntry, collapse

__all__ = ["RouteGate", "Routing", "build_gate"]


@dataclass(frozen=True)
class Routing:
    """Everything the gate concluded about one request."""

    request: str
    prediction: RoutePrediction
    direction: RequestDirection
    direction_reason: str
    candidates: tuple[Candidate, ...]
    decision: Decision


@dataclass(frozen=True)
class RouteGate:
    """A router, a tool index, thresholds and direction cues: the whole gate."""

    router: Router
    index: ToolIndex
    thresholds: Thresholds = field(default_factory=Thresholds)
    cues: DirectionCues = field(default_factory=DirectionCues)

    def route(self, request: str, k: int = 2, direction: RequestDirection | None = None) -> Routing:
        """Route ``request``; ``direction`` when the caller knows it, else read from cues."""
        if direction is None:
            found, why = request_direction(request, self.index.normalizer, self.cues)
        else:
            found, why = direction, "declared by the caller"
        prediction = self.router.predict(request)
        candidates = tuple(self.index.search(request, k=k, direction=found))
        decision = decide(prediction, candidates, found, self.thresholds)
        return Routing(request, prediction, found, why, candidates, decision)


def build_gate(
    tools: Sequence[Tool],
    taxonomy: Mapping[str, TaxonomyEntry],
    examples: Sequence[TrainingExample],
    *,
    scorer: ScorerName = "tfidf",
    weights: FieldWeights | None = None,
    thresholds: Thresholds | None = None,
    normalizer: Normalizer | None = None,
) -> RouteGate:
    """Validate the taxonomy, index the catalog, train the router: a gate ready to route."""
    normalizer = normalizer or Normalizer(stem_length=6)
    capabilities = collapse(tools, taxonomy)
    index = ToolIndex(tools, capabilities, scorer=scorer, weights=weights, normalizer=normalizer)
    router = Router.train(examples, normalizer)
    return RouteGate(router, index, thresholds or Thresholds())
