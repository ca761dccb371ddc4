from __future__ import annotations

from trailcheck.cases import Case
from trailcheck.policy import AtMostPolicy, ForbiddenPolicy, MustPrecedePolicy
from trailcheck.scorers import PolicyScorer
from trailcheck.testing import TraceBuilder

TRACE = (
    TraceBuilder(input="Refund A-1")
    .tool("issue_refund", {"order_id": "A-1"})
    .tool("verify_identity", {})
    .build()
)


def test_value_is_rules_kept_and_reason_names_each_violation() -> None:
    case = Case(
        id="c",
        input="x",
        policies=[
            MustPrecedePolicy(tool="verify_identity", before="issue_refund"),
            ForbiddenPolicy(tool="delete_account"),
            AtMostPolicy(tool="issue_refund", count=1),
        ],
    )
    score = PolicyScorer().score(TRACE, case)
    assert score is not None
    assert score.value == 2 / 3
    assert not score.passed
    assert score.reason == (
        "policy 2/3=0.667 rules kept; broken must_precede: a successful verify_identity before"
        " each issue_refund: issue_refund at span-001 had no earlier successful verify_identity"
    )
    assert score.evidence == ("span-001",)


def test_no_policies_no_score_and_kept_rules_pass() -> None:
    assert PolicyScorer().score(TRACE, Case(id="c", input="x")) is None
    case = Case(id="c", input="x", policies=[ForbiddenPolicy(tool="delete_account")])
    score = PolicyScorer().score(TRACE, case)
    assert score is not None
    assert score.passed
    assert score.value == 1.0
    assert score.evidence == ("span-001", "span-002")
