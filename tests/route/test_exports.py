"""The public surface of trailcheck.route is exactly this list."""

from __future__ import annotations

import trailcheck.route


def test_exported_names_are_pinned() -> None:
    assert trailcheck.route.__all__ == EXPECTED


EXPECTED = [
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


def test_route_imports_nothing_from_trailcheck_but_errors() -> None:
    import re
    from pathlib import Path

    folder = Path(trailcheck.route.__file__).parent
    for module in folder.rglob("*.py"):
        for name in re.findall(
            r"^\s*(?:from|import) (trailcheck\.\w+)", module.read_text(), flags=re.M
        ):
            assert name in {"trailcheck.route", "trailcheck.errors"}, (module.name, name)
