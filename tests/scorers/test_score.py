"""Score bounds, and ``run_scorer``: the scorer's Score, or None, passed through; a raising
scorer recorded as a failure."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import pytest

from trailcheck.cases import Case, ScorerSpec
from trailcheck.errors import RecordError
from trailcheck.scorers import Score, ScorerFailure, TrajectoryScorer, run_scorer
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


def test_value_and_threshold_are_bounded_whether_built_or_decoded() -> None:
    with pytest.raises(ValueError, match=r"value 1\.5 is not within 0 and 1"):
        Score(scorer="x", value=1.5, passed=True, threshold=1.0, reason="")
    with pytest.raises(RecordError, match=r"<= 1\.0") as refused:
        Score.model_validate_json(
            b'{"scorer":"x","value":0.5,"passed":true,"threshold":2.0,"reason":""}'
        )
    assert refused.value.field == "threshold"
    kept = Score(scorer="x", value=1.0, passed=True, threshold=1.0, reason="1/1")
    assert Score.model_validate_json(kept.model_dump_json()) == kept


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


def test_run_scorer_passes_the_scorers_score_through() -> None:
    trace = TraceBuilder().tool("lookup_order").tool("issue_refund").build()
    expected = ["lookup_order", "verify_identity", "issue_refund"]
    case = Case(id="c1", input="hi", expected_tools=expected, tool_threshold=0.6)
    score = run_scorer(TrajectoryScorer(), trace, case)
    assert isinstance(score, Score)
    assert (score.scorer, score.passed, score.threshold, score.evidence) == (
        "trajectory",
        True,
        0.6,
        ("span-001", "span-002"),
    )
    assert score.value == pytest.approx(2 / 3)
    assert score.reason == (
        "in_order recall 2/3=0.667; precision 2/2=1.000; missing verify_identity"
    )


def test_run_scorer_passes_no_score_through_for_a_check_not_asked_for() -> None:
    trace = TraceBuilder().tool("lookup_order").build()
    assert run_scorer(TrajectoryScorer(), trace, Case(id="c1", input="hi")) is None
