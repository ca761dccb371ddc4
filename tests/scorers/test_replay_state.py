"""The replay state scorer: the expected state is what the expected calls do to a fresh world."""

from __future__ import annotations

from typing import Any

import pytest

from trailcheck.cases import Case, ScorerSpec
from trailcheck.environment import ToolError
from trailcheck.errors import UsageError
from trailcheck.scorers import Grade, ReplayStateScorer, grade, scorer_from_spec
from trailcheck.testing import TraceBuilder

SHOP = f"{__name__}:TinyShop"
ASYNC_SHOP = f"{__name__}:AsyncShop"


class TinyShop:
    """Refunds need a verified customer; refund ids come from a counter, so replay is exact."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.refunds: list[dict[str, Any]] = []
        self.verified: set[str] = set()

    def snapshot(self) -> dict[str, Any]:
        return {"refunds": list(self.refunds), "verified": sorted(self.verified)}

    @property
    def tools(self) -> list[Any]:
        return [self.verify_identity, self.issue_refund]

    def verify_identity(self, customer_id: str) -> dict[str, Any]:
        self.verified.add(customer_id)
        return {"verified": True}

    def issue_refund(self, customer_id: str, order_id: str, amount: float) -> dict[str, Any]:
        if customer_id not in self.verified:
            raise ToolError("identity not verified")
        refund = {"id": f"R-{len(self.refunds) + 1}", "order_id": order_id, "amount": amount}
        self.refunds.append(refund)
        return refund


class AsyncShop(TinyShop):
    @property
    def tools(self) -> list[Any]:
        return [self.verify_identity, self.refund_async]

    async def refund_async(self, customer_id: str, order_id: str, amount: float) -> dict[str, Any]:
        return self.issue_refund(customer_id, order_id, amount)


def _case(*invocations: dict[str, Any]) -> Case:
    return Case(id="refund", input="refund A-1", expected_arguments=list(invocations))


VERIFY = {"tool": "verify_identity", "arguments": {"customer_id": "C-7"}}
REFUND = {
    "tool": "issue_refund",
    "arguments": {"customer_id": "C-7", "order_id": "A-1", "amount": 129.0},
}


def _after(refunds: list[dict[str, Any]], verified: list[str]) -> dict[str, Any]:
    return {"refunds": refunds, "verified": verified}


def test_state_equal_to_the_replay_passes() -> None:
    after = _after([{"id": "R-1", "order_id": "A-1", "amount": 129.0}], ["C-7"])
    trace = TraceBuilder().state(after=after).build()
    score = ReplayStateScorer(environment=SHOP).score(trace, _case(VERIFY, REFUND))
    assert score is not None
    assert (score.value, score.passed) == (1.0, True)
    assert "replayed 2 expected calls" in score.reason


def test_wrong_amount_and_extra_refund_are_both_differences() -> None:
    after = _after(
        [
            {"id": "R-1", "order_id": "A-1", "amount": 12.9},
            {"id": "R-2", "order_id": "A-1", "amount": 129.0},
        ],
        ["C-7"],
    )
    trace = TraceBuilder().state(after=after).build()
    score = ReplayStateScorer(environment=SHOP).score(trace, _case(VERIFY, REFUND))
    assert score is not None
    assert not score.passed
    # 4 leaves expected (3 refund fields + 1 verified), 2 matched on the paired refund
    # (id, order_id), plus the 3 leaves of the refund nobody expected.
    assert score.reason.startswith("replay_state 3/7=0.429")
    assert "refunds[0].amount: expected 129.0, got 12.9" in score.reason
    assert 'refunds: not expected, got {"amount":129.0,"id":"R-2","order_id":"A-1"}' in score.reason


def test_do_nothing_agent_fails() -> None:
    trace = TraceBuilder().state(after=_after([], [])).build()
    score = ReplayStateScorer(environment=SHOP).score(trace, _case(VERIFY, REFUND))
    assert score is not None
    assert (score.value, score.passed) == (0.0, False)


def test_replayed_tool_error_is_reported_and_replay_goes_on() -> None:
    trace = TraceBuilder().state(after=_after([], [])).build()
    score = ReplayStateScorer(environment=SHOP).score(trace, _case(REFUND))
    assert score is not None
    # The golden refunds without verifying: the enforced shop refuses, so the expected state
    # has no refund, and the reason says why.
    assert score.passed
    assert "replayed call 0 issue_refund raised ToolError: identity not verified" in score.reason


def test_async_tools_replay_outside_and_inside_a_running_loop() -> None:
    import asyncio

    refund = {**REFUND, "tool": "refund_async"}
    after = _after([{"id": "R-1", "order_id": "A-1", "amount": 129.0}], ["C-7"])
    trace = TraceBuilder().state(after=after).build()
    scorer = ReplayStateScorer(environment=ASYNC_SHOP)
    outside = scorer.score(trace, _case(VERIFY, refund))

    async def inside() -> Any:
        return scorer.score(trace, _case(VERIFY, refund))

    assert outside is not None
    assert outside.passed
    assert asyncio.run(inside()).passed


def test_a_comparator_cannot_be_replayed_and_the_grade_is_unscorable() -> None:
    fuzzy = {
        "tool": "issue_refund",
        "arguments": {
            "customer_id": "C-7",
            "order_id": "A-1",
            "amount": {"$compare": "number", "value": 129},
        },
    }
    case = _case(VERIFY, fuzzy).model_copy(
        update={"scorers": [ScorerSpec(name="replay_state", environment=SHOP)]}
    )
    result: Grade = grade(TraceBuilder().state(after=_after([], [])).build(), case)
    assert result.status == "unscorable"
    assert (
        "expected_arguments[1].arguments.amount: the 'number' comparator"
        in result.failures[0].message
    )


def test_unknown_tool_and_bad_reference_are_clear() -> None:
    trace = TraceBuilder().state(after=_after([], [])).build()
    missing = {"tool": "cancel_order", "arguments": {"order_id": "A-1"}}
    with pytest.raises(
        ValueError,
        match="'cancel_order' is not a tool of the environment; it has issue_refund, verify_id",
    ):
        ReplayStateScorer(environment=SHOP).score(trace, _case(missing))
    with pytest.raises(UsageError, match="has no attribute 'NoShop'"):
        ReplayStateScorer(environment=f"{__name__}:NoShop").score(trace, _case(VERIFY))


def test_no_expected_arguments_is_not_checked_and_spec_round_trips() -> None:
    trace = TraceBuilder().state(after=_after([], [])).build()
    assert ReplayStateScorer(environment=SHOP).score(trace, Case(id="c", input="hi")) is None
    scorer = ReplayStateScorer(environment=SHOP, threshold=0.5)
    assert scorer_from_spec(scorer.to_spec()) == scorer
