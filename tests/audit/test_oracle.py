"""The oracle: expected calls that do not produce the expected state are a wrong golden."""

from __future__ import annotations

from tests.audit.shop import dataset, tiny_shop
from trailcheck.audit import check_oracle, plan_calls

CONSISTENT = """\
  - id: consistent
    input: Refund A-1 please.
    expected_tools: [lookup_order, issue_refund]
    expected_arguments:
      - {tool: issue_refund, arguments: {order_id: A-1, amount: {$compare: number, value: 10}}}
    expected_state: {refunds: [{order_id: A-1, amount: 10}]}
"""
# The expected call refunds 10; the expected state says 20: no agent can satisfy both.
CONTRADICTORY = CONSISTENT.replace("consistent", "contradictory").replace(
    "amount: 10}]", "amount: 20}]"
)
UNDERSPECIFIED = """\
  - id: underspecified
    input: Refund A-1 please.
    expected_tools: [issue_refund]
    expected_state: {refunds: [{order_id: A-1}]}
"""


def test_the_oracle_passes_a_consistent_golden() -> None:
    assert check_oracle(dataset(CONSISTENT), tiny_shop) == []


def test_the_oracle_flags_a_golden_its_own_calls_fail() -> None:
    (finding,) = check_oracle(dataset(CONSISTENT + CONTRADICTORY), tiny_shop)
    assert (finding.case_id, finding.check, finding.severity) == (
        "contradictory",
        "oracle_fails",
        "high",
    )
    assert finding.message.startswith("the expected calls replayed fail their own case: state:")
    assert "expected 20, got 10" in finding.message


def test_a_call_the_oracle_cannot_form_is_a_low_finding() -> None:
    (finding,) = check_oracle(dataset(UNDERSPECIFIED), tiny_shop)
    assert (finding.check, finding.severity) == ("oracle_incomplete", "low")
    assert "could not form issue_refund (no order_id, amount)" in finding.message


def test_the_plan_infers_arguments_named_elsewhere_in_the_case() -> None:
    (case,) = dataset(CONSISTENT).cases
    calls = plan_calls(case, tiny_shop().tools)
    assert [(c.tool, c.arguments, c.missing) for c in calls] == [
        ("lookup_order", {"order_id": "A-1"}, ()),
        ("issue_refund", {"order_id": "A-1", "amount": 10}, ()),
    ]
