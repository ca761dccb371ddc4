"""Near-duplicates by call signature and input text; coverage of tools and clauses by approved
cases."""

from __future__ import annotations

from typing import Any

from tests.drafting.scenarios import HAPPY, POLICY, RATE_LIMITED
from trailcheck.cases import Case, Dataset
from trailcheck.drafting import (
    case_signature,
    coverage,
    draft_cases,
    flag_near_duplicates,
    parse_policy,
    similarity,
)
from trailcheck.loop import approve
from trailcheck.models import ToolDeclaration
from trailcheck.testing import scripted_drafter

CLAUSES = parse_policy(POLICY)
TOOLS = [
    ToolDeclaration(name=name)
    for name in ("verify_identity", "check_refund_policy", "issue_refund", "lookup_order")
]


def _golden(case_id: str, text: str, **fields: Any) -> Case:
    return Case.model_validate(
        {"id": case_id, "input": text, "review_status": "approved", "reviewed_by": "ana", **fields}
    )


# A production golden with the happy path's calls (other values, same shapes) and input.
EXISTING = _golden(
    "refund-headphones",
    "Please refund my headphones, order A-1007. My date of birth is 1969-01-30.",
    expected_tools=["verify_identity", "check_refund_policy", "issue_refund"],
    expected_arguments=[
        {"tool": "verify_identity", "arguments": {"order_id": "A-1007", "proof": "1969-01-30"}},
        {"tool": "check_refund_policy", "arguments": {"order_id": "A-1007"}},
        {
            "tool": "issue_refund",
            "arguments": {"order_id": "A-1007", "amount": 42.0, "reason": "x"},
        },
    ],
)


def test_a_draft_with_the_same_signature_and_a_similar_input_is_flagged() -> None:
    same_words_other_calls = _golden(
        "status-question", HAPPY["input"], expected_tools=["lookup_order"]
    )
    model = scripted_drafter({"refunds.1": [HAPPY], "lookups.1": [RATE_LIMITED]})
    outcome = draft_cases(model, CLAUSES, TOOLS, existing=[EXISTING, same_words_other_calls])
    happy, retry = outcome.cases
    alike = similarity(happy, EXISTING)
    assert 0.8 <= alike < 1.0
    assert happy.metadata["near_duplicates"] == [
        {"case_id": "refund-headphones", "similarity": alike}
    ]
    # Same words, other calls: not a duplicate. Other words and calls: not either.
    assert "near_duplicates" not in retry.metadata
    assert (
        case_signature(happy) == case_signature(EXISTING) != case_signature(same_words_other_calls)
    )
    assert case_signature(retry) == "lookup_order(order_id:text)+"


def test_drafts_repeat_earlier_drafts_but_not_rejected_cases() -> None:
    first = _golden("a", "Where is my order A-1002?", expected_tools=["lookup_order"])
    second = first.model_copy(update={"id": "b", "input": "Where is my order A-1003?"})
    rejected = first.model_copy(update={"id": "r", "review_status": "rejected"})
    flags = flag_near_duplicates([first, second], [rejected])
    assert list(flags) == ["b"]
    assert flags["b"][0].case_id == "a"
    assert flags["b"][0].similarity == similarity(first, second) > 0.9
    assert flag_near_duplicates([first], [second], threshold=1.0) == {}


def test_coverage_counts_approved_cases_per_tool_and_clause() -> None:
    model = scripted_drafter({"refunds.1": [HAPPY], "lookups.1": [RATE_LIMITED]})
    drafts = draft_cases(model, CLAUSES, TOOLS).cases
    dataset = Dataset(name="d", cases=[EXISTING, *drafts])
    approved = approve(dataset, "refunds-1-happy-path", reviewer="ana")
    table = coverage(approved.cases, tools=[t.name for t in TOOLS], clauses=CLAUSES)
    tools = {row.name: (row.approved, row.counts["candidate"]) for row in table.tools}
    # The existing golden and the approved draft call the refund tools; the retry waits.
    assert tools == {
        "verify_identity": (2, 0),
        "check_refund_policy": (2, 0),
        "issue_refund": (2, 0),
        "lookup_order": (0, 1),
    }
    clauses = {row.name: (row.approved, row.counts["candidate"]) for row in table.clauses}
    assert clauses == {"refunds.1": (1, 0), "refunds.2": (0, 0), "lookups.1": (0, 1)}
    assert table.clauses[0].approved_scenarios == ["happy_path"]
    assert table.clauses[0].text == "Verify the customer's identity before any refund."
    assert table.gaps == ["tool lookup_order", "clause refunds.2", "clause lookups.1"]


def test_tools_and_clauses_only_the_cases_name_still_get_rows() -> None:
    case = _golden(
        "x",
        "Cancel it",
        expected_tools=["cancel_order"],
        metadata={"source": "synthetic", "policy_clause": {"id": "cancel.1", "text": "Cancel."}},
    )
    table = coverage([case], tools=["lookup_order"])
    assert [(row.name, row.approved) for row in table.tools] == [
        ("lookup_order", 0),
        ("cancel_order", 1),
    ]
    assert [(row.name, row.text, row.approved) for row in table.clauses] == [
        ("cancel.1", "Cancel.", 1)
    ]
