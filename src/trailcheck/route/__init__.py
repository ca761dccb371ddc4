"""The pre-LLM gate: a calibrated router, tool retrieval with capability collapse and declared
direction, abstention guards with named thresholds, and routing metrics.

``route`` depends on nothing else in trailcheck but :mod:`trailcheck.errors`: it is inline
runtime, and never imports the offline graders. It needs numpy and scikit-learn, which the
``route`` extra brings (``pip install 'trailcheck[route]'``); the core install has neither."""

from trailcheck.route.bm25 import BM25Scorer
from trailcheck.route.calibration import (
    PlattScaler,
    ReliabilityRow,
    brier_score,
    expected_calibration_error,
    reliability_table,
)
from trailcheck.route.catalog import DIRECTIONS, Direction, Tool, load_catalog, parse_catalog
from trailcheck.route.decide import GUARDS, Action, Decision, Thresholds, decide
from trailcheck.route.direction import ALLOWED, DirectionCues, RequestDirection, request_direction
from trailcheck.route.economics import CostModel, Economics, estimate_economics
from trailcheck.route.gate import RouteGate, Routing, build_gate
from trailcheck.route.metrics import (
    EvalQuery,
    QueryRow,
    Rate,
    RouteEvaluation,
    evaluate_routing,
    load_queries,
)
from trailcheck.route.normalize import DEFAULT_PHRASES, STOP_WORDS, Normalizer, fold
from trailcheck.route.retrieval import Candidate, FieldWeights, ScorerName, ToolIndex
from trailcheck.route.router import (
    RoutePrediction,
    Router,
    RouterFit,
    TrainingExample,
    load_training,
)
from trailcheck.route.samples import SAMPLES, sample_path
from trailcheck.route.taxonomy import (
    Capability,
    CapabilityMap,
    TaxonomyEntry,
    collapse,
    load_taxonomy,
    parse_taxonomy,
)
from trailcheck.route.tfidf import LexicalScorer, TfidfScorer

__all__ = [
    "ALLOWED",
    "DEFAULT_PHRASES",
    "DIRECTIONS",
    "GUARDS",
    "SAMPLES",
    "STOP_WORDS",
    "Action",
    "BM25Scorer",
    "Candidate",
    "Capability",
    "CapabilityMap",
    "CostModel",
    "Decision",
    "Direction",
    "DirectionCues",
    "Economics",
    "EvalQuery",
    "FieldWeights",
    "LexicalScorer",
    "Normalizer",
    "PlattScaler",
    "QueryRow",
    "Rate",
    "ReliabilityRow",
    "RequestDirection",
    "RouteEvaluation",
    "RouteGate",
    "RoutePrediction",
    "Router",
    "RouterFit",
    "Routing",
    "ScorerName",
    "TaxonomyEntry",
    "TfidfScorer",
    "Thresholds",
    "Tool",
    "ToolIndex",
    "TrainingExample",
    "brier_score",
    "build_gate",
    "collapse",
    "decide",
    "estimate_economics",
    "evaluate_routing",
    "expected_calibration_error",
    "fold",
    "load_catalog",
    "load_queries",
    "load_taxonomy",
    "load_training",
    "parse_catalog",
    "parse_taxonomy",
    "reliability_table",
    "request_direction",
    "sample_path",
]
