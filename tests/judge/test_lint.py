"""Rubric lint: knowledge rubrics and rubrics without an explicit criterion."""

from __future__ import annotations

import pytest

from trailcheck.judge import lint_rubric


@pytest.mark.parametrize(
    "rubric",
    [
        "The capital of France is Paris",
        "Verstappen won the 2024 São Paulo GP",
        "Refunds take 5 business days.",
        "Order A-1 was delivered on 2024-05-01",
    ],
)
def test_knowledge_rubrics_are_flagged(rubric: str) -> None:
    (problem,) = lint_rubric(rubric)
    assert problem.kind == "knowledge"
    assert "reference_response" in problem.message
    assert problem.rubric == rubric


@pytest.mark.parametrize(
    "rubric",
    ["good answer", "Was the trajectory good?", "Be helpful", "The response is correct", ""],
)
def test_rubrics_without_an_explicit_criterion_are_flagged(rubric: str) -> None:
    (problem,) = lint_rubric(rubric)
    assert problem.kind == "no_criterion"


@pytest.mark.parametrize(
    "rubric",
    [
        "Did the agent verify identity before the refund call?",
        "The answer mentions the refund amount",
        "The answer states that refunds take 5 business days",
        "Did the agent quote the 2024 price?",
        "The agent must not call issue_refund before verify_identity",
        "Never promise a delivery date",
        "Water is wet",
    ],
)
def test_explicit_criteria_pass(rubric: str) -> None:
    assert lint_rubric(rubric) == []
