"""The hand-off agent: a case it passes by handing every request to a human is flagged."""

from __future__ import annotations

from typing import Any

from tests.audit.shop import TinyShop
from trailcheck.audit import check_trivial, check_trivial_static, trivial_agents
from trailcheck.audit.trivial import hand_off_tool
from trailcheck.cases import Dataset, parse_dataset

# Planted: the golden rewards punting; a human hand-off satisfies every check.
PUNTS = """\
  - id: punts
    input: Refund A-1 please.
    expected_tools: [transfer_to_human_agents]
    expected_state: {refunds: []}
"""
# Without an environment only an empty state is known, so the static twin checks no state.
PUNTS_STATIC = """\
  - id: punts
    input: Refund A-1 please.
    expected_tools: [transfer_to_human_agents]
"""
REAL = """\
  - id: real
    input: Refund A-1 please.
    expected_tools: [lookup_order, issue_refund]
    expected_state: {refunds: [{order_id: A-1, amount: 10}]}
"""


class HandOffShop(TinyShop):
    """The tiny shop with a tool that hands the conversation to a human."""

    @property
    def tools(self) -> list[Any]:
        return [*super().tools, self.transfer_to_human_agents]

    def transfer_to_human_agents(self, summary: str) -> str:
        return f"transferred: {summary}"


def _dataset(cases: str) -> Dataset:
    text = (
        f"name: t\ntools: [lookup_order, issue_refund, transfer_to_human_agents]\ncases:\n{cases}"
    )
    return parse_dataset(text, format="yaml")


def test_hand_off_tools_are_recognised_by_name() -> None:
    assert hand_off_tool(["lookup_order", "escalate_ticket", "handoff"]) == "escalate_ticket"
    assert hand_off_tool(["hand_off_to_person"]) == "hand_off_to_person"
    assert hand_off_tool(["lookup_order", "issue_refund"]) is None


def test_the_hand_off_agent_exists_only_where_the_domain_has_such_a_tool() -> None:
    assert "hand_off" not in trivial_agents(tool_names=["lookup_order"])
    assert "hand_off" in trivial_agents(tool_names=["transfer_to_human_agents"])


def test_a_case_the_hand_off_agent_passes_is_flagged_when_run() -> None:
    findings = check_trivial(_dataset(PUNTS + REAL), HandOffShop)
    assert {f.case_id for f in findings} == {"punts"}
    # The random tool agent may draw the hand-off tool too; the hand-off agent always does.
    (finding,) = [f for f in findings if f.message.startswith("the hand_off agent")]
    assert (finding.case_id, finding.check, finding.severity) == (
        "punts",
        "passes_trivially",
        "high",
    )
    assert finding.message.startswith("the hand_off agent passes it (run, k=1); scorers passed:")
    assert "trajectory" in finding.message


def test_a_real_case_is_not_passed_by_handing_off() -> None:
    assert check_trivial(_dataset(REAL), HandOffShop) == []


def test_static_reasoning_hands_off_where_the_dataset_names_the_tool() -> None:
    (finding,) = check_trivial_static(_dataset(PUNTS_STATIC + REAL))
    assert finding.case_id == "punts"
    assert finding.message.startswith("the hand_off agent passes it (graded statically)")
    assert check_trivial_static(_dataset(REAL)) == []
