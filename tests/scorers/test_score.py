"""Score bounds, and a raising scorer recorded as a failure."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import pytest
from pydantic import ValidationError

from trailcheck.cases import Case, ScorerSpec
from trailcheck.scorers import Score, Scorer, ScorerFailure, TrajectoryScorer, run_scorer
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Trace


@dataclass(frozen=True)
class _Broken:
    name: ClassVar[str] = "broken"
    version: ClassVar[str] = "0"

    def score(self, trace: Trace, case: Case) -> Score | None:
        raise KeyError("no such span")

    def to_spec(self) -> ScorerSpec:
        raise NotImplementedError


def test_value_is_bounded() -> None:
    with pytest.raises(ValidationError):
        Score(scorer="x", value=1.5, passed=True, threshold=1.0, reason="")


def test_a_raising_scorer_becomes_a_failure() -> None:
    case = Case(id="c1", input="hi", expected_tools=[])
    outcome = run_scorer(_Broken(), TraceBuilder().build(), case)
    assert isinstance(outcome, ScorerFailure)
    assert (outcome.scorer, outcome.error_type, outcome.message) == (
        "broken",
        "KeyError",
        "'no such span'",
    )
    assert "raise KeyError" in outcome.traceback


def test_run_scorer_passes_scores_through() -> None:
    case = Case(id="c1", input="hi", expected_tools=[])
    outcome = run_scorer(TrajectoryScorer(), TraceBuilder().build(), case)
    assert isinstance(outcome, Score)
    assert outcome.passed


def test_builtins_satisfy_the_protocol() -> None:
    assert isinstance(TrajectoryScorer(), Scorer)
