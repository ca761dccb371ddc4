"""The termination scorer: an answer, claims backed by the state, no stop before a write."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from trailcheck.cases import Case
from trailcheck.scorers.score import Score
from trailcheck.scorers.termination import (
    DEFAULT_CLAIM_RULES,
    ClaimRule,
    TerminationScorer,
    state_at,
)
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Trace

CASE = Case(id="c1", input="Refund order A-1")
REFUND_CASE = Case(id="c2", input="Refund A-1", expected_tools=["lookup_order", "issue_refund"])
WRITES = TerminationScorer(write_tools=("issue_refund", "cancel_order"))


def _score(trace: Trace, case: Case = CASE, scorer: TerminationScorer | None = None) -> Score:
    score = (scorer or TerminationScorer()).score(trace, case)
    assert score is not None
    return score


def _answer(text: Any, **state: dict[str, Any] | None) -> Trace:
    return TraceBuilder().llm(str(text)).output(text).state(**state).build()


@pytest.mark.parametrize("output", [None, "", "  \n", {}, []])
def test_no_final_answer_fails(output: Any) -> None:
    trace = TraceBuilder().tool("lookup_order", {}).output(output).build()
    score = _score(trace, REFUND_CASE, WRITES)
    assert (score.value, score.passed, score.threshold) == (0.0, False, 1.0)
    assert score.reason == "termination 0/1=0.000 checks passed; failed no final answer"


def test_answer_without_state_checks_no_claim() -> None:
    score = _score(_answer("Your refund has been issued."))
    assert (score.value, score.passed) == (1.0, True)
    assert score.reason == "termination 1/1=1.000 checks passed; ok final answer given"


@pytest.mark.parametrize(
    ("after", "problem"),
    [
        ({"refunds": []}, "state_after.refunds is empty"),
        ({"orders": []}, "state_after.refunds is missing"),
    ],
)
def test_claimed_refund_without_one_fails(after: dict[str, Any], problem: str) -> None:
    trace = _answer("Done: your refund has been issued.", after=after)
    score = _score(trace)
    assert (score.value, score.passed) == (0.5, False)
    assert score.reason == (
        "termination 1/2=0.500 checks passed;"
        f' failed claim refund ("refund has been issued") but {problem}; ok final answer given'
    )
    assert score.evidence == ("span-001",)


def test_claimed_refund_with_one_passes() -> None:
    trace = _answer("Refund processed.", after={"refunds": [{"order_id": "A-1"}]})
    score = _score(trace)
    assert score.passed
    assert score.reason == (
        "termination 2/2=1.000 checks passed; ok final answer given;"
        ' ok claim refund ("Refund processed") backed by state_after.refunds'
    )


def test_a_state_unchanged_from_before_is_no_change() -> None:
    refunds = {"refunds": [{"order_id": "A-0", "amount": 5}]}
    unchanged = _answer(
        "Refund issued.", before=refunds, after={"refunds": [{"order_id": "A-0", "amount": 5.0}]}
    )
    assert "state_after.refunds is unchanged from state_before" in _score(unchanged).reason
    grown = _answer(
        "Refund issued.",
        before=refunds,
        after={"refunds": [*refunds["refunds"], {"order_id": "A-1"}]},
    )
    assert _score(grown).passed


@pytest.mark.parametrize(
    ("text", "claim"),
    [
        ("I have issued a full refund for order A-1.", "refund"),
        ("You have been refunded.", "refund"),
        ("Your refund of $129 has been issued.", "refund"),
        ("The refund for order A-1 (shoes) was processed today.", "refund"),
        ("Your delivery has been rescheduled to Friday.", "reschedule"),
        ("I’ve rescheduled it.", "reschedule"),
        ("The order is now cancelled.", "cancel"),
        ("Your order has been canceled.", "cancel"),
        ("You're all booked for 3pm!", "booked"),
        ("Booking confirmed.", "booked"),
    ],
)
def test_default_rules_recognise_common_claims(text: str, claim: str) -> None:
    score = _score(_answer(text, after={"orders": {}}))
    assert not score.passed
    assert f"failed claim {claim} (" in score.reason


@pytest.mark.parametrize(
    "text",
    [
        "I could not issue the refund: your identity is not verified.",
        "The refund has not been issued yet.",
        "A refund of $129 has not been issued: the order is not eligible.",
        "A refund of $129 will be issued once the item is back.",
        "This order cannot be cancelled once shipped.",
        "The delivery wasn't rescheduled.",
        "Would you like me to book it?",
    ],
)
def test_default_rules_ignore_refusals_and_questions(text: str) -> None:
    assert _score(_answer(text, after={"orders": {}})).passed


def test_custom_rule_with_nested_path() -> None:
    rule = ClaimRule("address", r"address (?:was|has been) updated", "customers.0.address")
    scorer = TerminationScorer(claim_rules=(rule,))
    answered = "Your ADDRESS HAS BEEN UPDATED."
    moved = _answer(answered, after={"customers": [{"address": "1 Main St"}]})
    assert _score(moved, scorer=scorer).passed
    missing = _score(_answer(answered, after={"customers": []}), scorer=scorer)
    assert "but state_after.customers.0.address is missing" in missing.reason
    assert state_at({"a": [{"b": 3}]}, "a.0.b") == 3


def test_stopped_before_a_required_write() -> None:
    trace = (
        TraceBuilder()
        .tool("lookup_order", {"order_id": "A-1"})
        .tool("issue_refund", {"order_id": "A-1"}, error="identity not verified")
        .output("Let me know if there is anything else.")
        .build()
    )
    score = _score(trace, REFUND_CASE, WRITES)
    assert (score.value, score.passed) == (0.5, False)
    assert score.reason == (
        "termination 1/2=0.500 checks passed; failed required writes 0/1=0.000;"
        " stopped before issue_refund (tried issue_refund at span-002: identity not verified);"
        " ok final answer given"
    )
    assert score.evidence == ("span-002",)
    never = TraceBuilder().tool("lookup_order", {}).output("All good.").build()
    assert _score(never, REFUND_CASE, WRITES).reason.endswith(
        "failed required writes 0/1=0.000; stopped before issue_refund; ok final answer given"
    )


def test_a_write_made_passes_and_unrequired_writes_are_not_checked() -> None:
    trace = (
        TraceBuilder()
        .tool("issue_refund", {}, error="timeout")
        .tool("issue_refund", {})
        .output("Refund issued.")
        .build()
    )
    score = _score(trace, REFUND_CASE, WRITES)
    assert score.passed
    assert score.reason == (
        "termination 2/2=1.000 checks passed; ok final answer given; ok required writes 1/1=1.000"
    )
    assert score.evidence == ("span-001", "span-002")
    assert _score(trace, REFUND_CASE).reason.endswith("ok final answer given")  # no write_tools
    assert _score(trace, CASE, WRITES).reason.endswith("ok final answer given")  # none expected


def test_spec_form_and_validation() -> None:
    rule = ClaimRule("x", "done", "things")
    scorer = TerminationScorer(claim_rules=(rule,), write_tools=("issue_refund",))
    spec = scorer.to_spec().model_dump()
    assert spec == {
        "name": "termination",
        "claim_rules": [{"claim": "x", "pattern": "done", "state_path": "things"}],
        "write_tools": ["issue_refund"],
    }
    assert TerminationScorer().to_spec().model_dump() == {"name": "termination"}
    assert TerminationScorer().claim_rules == DEFAULT_CLAIM_RULES
    adapter = TypeAdapter(TerminationScorer)
    settings = {k: v for k, v in spec.items() if k != "name"}
    assert adapter.validate_python(settings, strict=False) == scorer
    with pytest.raises(ValidationError, match="bad pattern"):
        adapter.validate_python(
            {"claim_rules": [{"claim": "x", "pattern": "(", "state_path": "a"}]}
        )


@given(
    text=st.sampled_from(["", "Refund issued.", "It has been cancelled.", "No."]),
    refunds=st.none() | st.lists(st.integers(), max_size=2),
    called=st.lists(st.sampled_from(["lookup_order", "issue_refund"]), max_size=3),
    errored=st.booleans(),
)
def test_values_in_range(
    text: str, refunds: list[int] | None, called: list[str], errored: bool
) -> None:
    builder = TraceBuilder()
    for name in called:
        builder.tool(name, {}, error="boom" if errored else None)
    after = None if refunds is None else {"refunds": refunds}
    score = _score(builder.output(text).state(after=after).build(), REFUND_CASE, WRITES)
    assert 0.0 <= score.value <= 1.0
    assert score.passed == (score.value == 1.0)
