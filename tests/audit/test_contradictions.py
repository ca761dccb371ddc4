"""Contradictions: a rubric and a reference (or two rubrics) that disagree on one behaviour."""

from __future__ import annotations

from tests.audit.shop import dataset
from trailcheck.audit import lint_dataset
from trailcheck.audit.contradictions import check_contradictions
from trailcheck.cases import Case


def _messages(**fields: object) -> list[str]:
    case = Case.model_validate({"id": "c", "input": "Refund A-1 please.", **fields})
    return [finding.message for finding in check_contradictions(case)]


def test_a_rubric_forbidding_what_the_reference_did_is_flagged() -> None:
    (message,) = _messages(
        rubrics=["The agent must not issue a refund."],
        reference_response="Thanks. I have issued your refund of $10.",
    )
    assert message == (
        "contradiction: rubrics[0] forbids refund: 'The agent must not issue a refund.'; but"
        " reference_response says refund was done: 'I have issued your refund of $10'"
    )


def test_a_rubric_forbidding_an_expected_tool_is_flagged() -> None:
    (message,) = _messages(
        rubrics=["The agent should not call issue_refund."],
        expected_tools=["lookup_order", "issue_refund"],
    )
    assert "rubrics[0] forbids issue_refund" in message
    assert "expected_tools lists issue_refund" in message
    # An action forbidden in words meets the tool whose name has its verb.
    (message,) = _messages(rubrics=["Must not refund."], expected_tools=["issue_refund"])
    assert "forbids refund" in message


def test_two_rubrics_that_disagree_are_flagged() -> None:
    (message,) = _messages(
        rubrics=["The agent must refund the order.", "The agent must never refund anything."]
    )
    assert "rubrics[0] requires refund" in message
    assert "rubrics[1] forbids refund" in message


def test_a_reference_refusing_what_a_rubric_requires_is_flagged() -> None:
    (message,) = _messages(
        rubrics=["The agent must refund the order."],
        reference_response="I cannot issue a refund for this order.",
    )
    assert "reference_response says refund was refused" in message


def test_consistent_parts_are_clean() -> None:
    assert (
        _messages(
            rubrics=["The agent must refund the order."],
            reference_response="I have issued your refund.",
            expected_tools=["lookup_order", "issue_refund"],
        )
        == []
    )
    assert (
        _messages(
            rubrics=[
                "The agent must not refund the order.",
                "The agent should explain the policy.",
            ],
            reference_response="I can't refund this; the policy allows 30 days.",
            expected_tools=["lookup_order"],
        )
        == []
    )


def test_the_lint_reports_contradictions_as_medium() -> None:
    planted = """\
  - id: planted
    input: Refund A-1 please.
    expected_tools: [lookup_order, issue_refund]
    expected_state: {refunds: [{order_id: A-1, amount: 10}]}
    rubrics: [The agent should not call issue_refund.]
"""
    (finding,) = [f for f in lint_dataset(dataset(planted)) if f.check == "contradiction"]
    assert (finding.case_id, finding.severity) == ("planted", "medium")
    clean = planted.replace("should not call issue_refund", "should call issue_refund")
    assert [f for f in lint_dataset(dataset(clean)) if f.check == "contradiction"] == []
