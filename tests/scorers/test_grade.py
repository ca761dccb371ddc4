from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from trailcheck.cases import Case, ScorerSpec
from trailcheck.policy import MustPrecedePolicy
from trailcheck.scorers import DEFAULT_SCORER_ORDER, PolicyScorer, Score, TrajectoryScorer, grade
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Trace

REFUND = (
    TraceBuilder("t1", input="Refund A-1")
    .tool("lookup_order", {"order_id": "A-1"}, result={"total": 20})
    .tool("issue_refund", {"order_id": "A-1"}, result={"refunded": 20})
    .output("Refunded $20.")
    .build()
)


def test_every_score_is_kept_in_the_fixed_order() -> None:
    case = Case(
        id="c1",
        input="Refund A-1",
        expected_tools=["lookup_order", "verify_identity", "issue_refund"],
        policies=[MustPrecedePolicy(tool="verify_identity", before="issue_refund")],
        reference_response="Refunded $20.",
    )
    result = grade(REFUND, case)
    names = [score.scorer for score in result.scores]
    assert names == [name for name in DEFAULT_SCORER_ORDER if name in names]
    assert set(names) >= {"trajectory", "policy", "response", "grounding"}
    assert result.status == "failed"
    assert result.reason.startswith("failed: trajectory, policy (")
    assert not result.passed


def test_a_case_with_no_expectation_is_unscorable_not_passed() -> None:
    result = grade(REFUND, Case(id="c2", input="Refund A-1"))
    assert result.status == "unscorable"
    assert "no expectation" in result.reason
    assert result.scores  # the generic checks still ran and are reported


def test_a_passing_grade() -> None:
    case = Case(id="c3", input="x", expected_tools=["lookup_order", "issue_refund"])
    result = grade(REFUND, case)
    assert result.passed
    assert result.reason == f"all {len(result.scores)} scores passed"


@dataclass(frozen=True)
class _Exploding:
    name: ClassVar[str] = "exploding"
    version: ClassVar[str] = "1"

    def to_spec(self) -> ScorerSpec:
        raise NotImplementedError

    def score(self, trace: Trace, case: Case) -> Score | None:
        raise RuntimeError("judge timed out")


def test_a_scorer_that_raises_makes_the_grade_unscorable_and_keeps_the_rest() -> None:
    case = Case(id="c4", input="x", expected_tools=["lookup_order", "issue_refund"])
    result = grade(REFUND, case, scorers=[_Exploding(), PolicyScorer(), TrajectoryScorer()])
    assert result.status == "unscorable"
    assert result.reason == "exploding raised RuntimeError: judge timed out"
    [failure] = result.failures
    assert failure.error_type == "RuntimeError"
    assert [score.scorer for score in result.scores] == ["trajectory"]


def test_named_scorers_run_alone() -> None:
    case = Case(
        id="c5",
        input="x",
        expected_tools=["issue_refund"],
        scorers=[ScorerSpec(name="grounding")],
    )
    result = grade(REFUND, case)
    assert [score.scorer for score in result.scores] == ["grounding"]
    assert result.passed
