"""The public surface of trailcheck.scorers is exactly this list."""

from __future__ import annotations

import trailcheck.scorers


def test_exported_names_are_pinned() -> None:
    assert sorted(trailcheck.scorers.__all__) == [
        "ArgumentsScorer",
        "ClaimRule",
        "DEFAULT_SCORER_ORDER",
        "EfficiencyScorer",
        "ErroredCalls",
        "GENERIC_SCORERS",
        "Grade",
        "GradeStatus",
        "GroundingScorer",
        "LeanGrade",
        "LeanScore",
        "Mismatch",
        "PolicyScorer",
        "ReplayStateScorer",
        "ResponseScorer",
        "Score",
        "Scorer",
        "ScorerFailure",
        "StateScorer",
        "TerminationScorer",
        "TrajectoryScorer",
        "case_scorers",
        "compare_field",
        "default_scorers",
        "grade",
        "grade_lean",
        "min_cost_assignment",
        "pair_invocations",
        "parse_date",
        "replay",
        "run_scorer",
        "scorer_classes",
        "scorer_from_spec",
        "scorer_to_spec",
        "trajectory_value",
    ]
    for name in trailcheck.scorers.__all__:
        assert hasattr(trailcheck.scorers, name), name
