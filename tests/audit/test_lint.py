"""Static lint: each check with a planted defect and a clean counterpart."""

from __future__ import annotations

import pytest

from tests.audit.shop import dataset
from trailcheck.audit import is_write_tool, lint_dataset

RUBRIC = "Did the agent confirm the amount before refunding?"
CLEAN = """\
  - id: clean
    input: Refund A-1 please.
    expected_tools: [lookup_order, issue_refund]
    expected_state: {refunds: [{order_id: A-1}]}
    rubrics: [Did the agent confirm the amount before refunding?]
    review_status: approved
    reviewed_by: me
"""


def _checks(cases: str, **settings: object) -> list[tuple[str | None, str, str]]:
    findings = lint_dataset(dataset(cases), **settings)  # type: ignore[arg-type]
    return [(f.case_id, f.check, f.severity) for f in findings]


def test_a_clean_case_has_no_findings() -> None:
    assert _checks(CLEAN) == []


@pytest.mark.parametrize(
    ("replace", "by", "check", "severity"),
    [
        (
            "    expected_tools: [lookup_order, issue_refund]\n"
            "    expected_state: {refunds: [{order_id: A-1}]}\n"
            "    rubrics: [Did the agent confirm the amount before refunding?]\n",
            "    scorers: [{name: efficiency}, {name: grounding}]\n",
            "no_effective_check",
            "high",
        ),
        (
            "    expected_state:",
            "    tool_threshold: 0\n    expected_state:",
            "zero_threshold",
            "high",
        ),
        (
            "    expected_state: {refunds: [{order_id: A-1}]}\n",
            "",
            "writes_without_state",
            "medium",
        ),
        (RUBRIC, "Refunds take 5 days in Berlin", "knowledge_rubric", "medium"),
        (RUBRIC, "good answer", "vague_rubric", "low"),
    ],
)
def test_each_planted_defect_is_found(replace: str, by: str, check: str, severity: str) -> None:
    assert replace in CLEAN
    assert (("clean", check, severity)) in _checks(CLEAN.replace(replace, by))


def test_writes_are_the_declared_ones_when_given() -> None:
    case = CLEAN.replace("    expected_state: {refunds: [{order_id: A-1}]}\n", "")
    assert ("clean", "writes_without_state", "medium") not in _checks(case, write_tools=[])
    assert is_write_tool("cancel_order")
    assert not is_write_tool("lookup_order")
    assert is_write_tool("lookup_order", ["lookup_order"])


def test_a_holdout_case_copied_from_a_regression_case_is_leakage() -> None:
    holdout = CLEAN.replace("id: clean", "id: copy").replace(
        "    review_status:", "    split: holdout\n    review_status:"
    )
    findings = lint_dataset(dataset(CLEAN + holdout))
    (leak,) = [f for f in findings if f.check == "split_leakage"]
    assert leak.case_id == "copy"
    assert "regression case 'clean': token Jaccard 4/4=1.000 >= 0.8" in leak.message
    different = holdout.replace("Refund A-1 please.", "Where is my parcel, it is late?")
    assert not [f for f in lint_dataset(dataset(CLEAN + different)) if f.check == "split_leakage"]


def test_a_candidate_beside_approved_cases_is_flagged() -> None:
    candidate = CLEAN.replace("id: clean", "id: draft").replace(
        "    review_status: approved\n    reviewed_by: me\n", ""
    )
    assert ("draft", "candidate_in_release", "medium") in _checks(CLEAN + candidate)
    # A suite of candidates only is a draft, not a release suite.
    assert _checks(candidate) == []
