"""Deterministic scorers: each grades one aspect of a trace against a case, and explains itself.

A scorer returns a :class:`Score`, or ``None`` when the case does not ask for its check; one
that raises is recorded as a :class:`ScorerFailure` by :func:`run_scorer`.
"""

from trailcheck.scorers.arguments import ArgumentsScorer, pair_invocations
from trailcheck.scorers.assignment import min_cost_assignment
from trailcheck.scorers.attribute import attribute
from trailcheck.scorers.attribution import (
    ATTRIBUTION_CATEGORIES,
    Attribution,
    AttributionCategory,
    AttributionSource,
)
from trailcheck.scorers.calls import ErroredCalls
from trailcheck.scorers.comparison import Mismatch, compare_field
from trailcheck.scorers.dates import parse_date
from trailcheck.scorers.efficiency import EfficiencyScorer
from trailcheck.scorers.grade import (
    DEFAULT_SCORER_ORDER,
    GENERIC_SCORERS,
    Grade,
    GradeStatus,
    grade,
)
from trailcheck.scorers.grounding import GroundingScorer
from trailcheck.scorers.policy import PolicyScorer
from trailcheck.scorers.registry import (
    case_scorers,
    default_scorers,
    scorer_classes,
    scorer_from_spec,
    scorer_to_spec,
)
from trailcheck.scorers.replay_state import ReplayStateScorer, replay
from trailcheck.scorers.response import ResponseScorer
from trailcheck.scorers.score import Score, Scorer, ScorerFailure, run_scorer
from trailcheck.scorers.state import StateScorer
from trailcheck.scorers.steps import trace_steps
from trailcheck.scorers.termination import ClaimRule, TerminationScorer
from trailcheck.scorers.trajectory import TrajectoryScorer, trajectory_value

__all__ = [
    "ATTRIBUTION_CATEGORIES",
    "DEFAULT_SCORER_ORDER",
    "GENERIC_SCORERS",
    "ArgumentsScorer",
    "Attribution",
    "AttributionCategory",
    "AttributionSource",
    "ClaimRule",
    "EfficiencyScorer",
    "ErroredCalls",
    "Grade",
    "GradeStatus",
    "GroundingScorer",
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
    "attribute",
    "case_scorers",
    "compare_field",
    "default_scorers",
    "grade",
    "min_cost_assignment",
    "pair_invocations",
    "parse_date",
    "replay",
    "run_scorer",
    "scorer_classes",
    "scorer_from_spec",
    "scorer_to_spec",
    "trace_steps",
    "trajectory_value",
]
