"""Deterministic failure attribution: for each rule of evidence, the exact span, step, category
and symptom; the earliest step wins; a grade that did not fail has none."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trailcheck.cases import Case
from trailcheck.scorers import Attribution, attribute, grade, trace_steps
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Trace

REQUEST = "Refund the headphones I ordered last week (maya@example.com)."
RECENT = {"order_id": "A-1001", "placed": "2026-06-08", "total": 129.0}
OLD = {"order_id": "A-0917", "placed": "2025-10-30", "total": 129.0}


def _case(**fields: Any) -> Case:
    return Case.model_validate({"id": "c", "input": REQUEST, **fields})


REFUND_CASE = _case(
    expected_tools=["search_orders", "lookup_order", "issue_refund"],
    expected_arguments=[
        {"tool": "lookup_order", "arguments": {"order_id": "A-1001"}},
        {"tool": "issue_refund", "arguments": {"order_id": "A-1001"}},
    ],
)


def _refund_run(search_result: Any, *, refund_error: str | None = None) -> Trace:
    """The five-span refund run: a search, the lookup and refund of the order it chose."""
    return (
        TraceBuilder("t", input=REQUEST)
        .llm("Let me find your order.")  # step 1
        .tool("search_orders", {"email": "maya@example.com"}, result=search_result)  # 2
        .tool("lookup_order", {"order_id": "A-0917"}, result=OLD)  # 3
        .tool("issue_refund", {"order_id": "A-0917"}, error=refund_error)  # 4
        .llm("The refund of A-0917 failed.")  # 5
        .output("The refund of A-0917 failed.")
        .build()
    )


def _attributed(trace: Trace, case: Case) -> Attribution:
    graded = grade(trace, case)
    assert graded.status == "failed", graded.reason
    assert graded.attribution is not None, graded.reason
    return graded.attribution


def _where(found: Attribution) -> tuple[str, int, str, str, str | None]:
    return (found.span_id, found.step, found.name, found.category, found.symptom_span_id)


def test_a_value_a_tool_returned_wrongly_is_the_tools_fault_and_shows_later() -> None:
    trace = _refund_run({"orders": [OLD]}, refund_error="A-0917 is outside the refund window")
    found = _attributed(trace, REFUND_CASE)
    assert _where(found) == (
        "span-002",
        2,
        "search_orders",
        "tool_returned_wrong_data",
        "span-004",  # the refund that raised, not the lookup that worked
    )
    assert found.source == "deterministic"
    assert found.evidence == (
        "search_orders (step 2) returned A-0917 and not the expected A-1001;"
        " passed on as lookup_order[0].order_id: expected A-1001, got A-0917"
    )


def test_without_an_error_the_symptom_is_the_call_that_used_the_wrong_value() -> None:
    found = _attributed(_refund_run({"orders": [OLD]}), REFUND_CASE)
    assert _where(found) == (
        "span-002",
        2,
        "search_orders",
        "tool_returned_wrong_data",
        "span-003",
    )


def test_a_result_holding_the_right_value_too_was_misread_by_the_agent() -> None:
    trace = _refund_run({"orders": [OLD, RECENT]}, refund_error="outside the refund window")
    found = _attributed(trace, REFUND_CASE)
    assert _where(found) == (
        "span-003",
        3,
        "lookup_order",
        "misread_tool_result",
        "span-004",
    )
    assert found.evidence == (
        "lookup_order[0].order_id: expected A-1001, got A-0917; search_orders (step 2) returned"
        " both A-0917 and the expected A-1001: the agent took the wrong one"
    )


def test_a_value_no_tool_returned_is_a_wrong_argument_of_the_call() -> None:
    case = _case(
        expected_arguments=[
            {
                "tool": "reschedule_delivery",
                "arguments": {"new_date": {"$compare": "date", "value": "2026-06-19"}},
            }
        ],
    )
    trace = (
        TraceBuilder("t", input="Move A-1002 to Friday, June 19")
        .tool("lookup_order", {"order_id": "A-1002"}, result={"expected_delivery": "2026-06-16"})
        .tool("reschedule_delivery", {"order_id": "A-1002", "new_date": "2026-06-17"})
        .output("Rescheduled to June 17.")
        .build()
    )
    found = _attributed(trace, case)
    assert _where(found) == ("span-002", 2, "reschedule_delivery", "wrong_argument", None)
    assert found.evidence == (
        "reschedule_delivery[0].new_date: expected 2026-06-19, got 2026-06-17 (read as 2026-06-17)"
    )


def test_a_missing_argument_is_a_wrong_argument() -> None:
    case = _case(expected_arguments=[{"tool": "issue_refund", "arguments": {"amount": 129}}])
    trace = TraceBuilder("t").tool("issue_refund", {"order_id": "A-1"}).output("Done.").build()
    found = _attributed(trace, case)
    assert _where(found) == ("span-001", 1, "issue_refund", "wrong_argument", None)
    assert found.evidence == "issue_refund[0].amount: expected 129, got nothing (missing)"


REFUND_POLICY_CASE = _case(
    expected_tools=["lookup_order", "verify_identity", "check_refund_policy", "issue_refund"],
    policies=[
        {
            "name": "must_precede",
            "tool": "verify_identity",
            "before": "issue_refund",
            "bind": {"order_id": "order_id"},
        }
    ],
)


def test_a_refund_before_the_identity_check_is_the_refund_call() -> None:
    # verify_identity was expected before check_refund_policy, but the rule that needs it says
    # better where it was due: before the refund.
    trace = (
        TraceBuilder("t", input=REQUEST)
        .tool("lookup_order", {"order_id": "A-1"})
        .tool("check_refund_policy", {"order_id": "A-1"})
        .tool("issue_refund", {"order_id": "A-1"})
        .output("Refunded.")
        .build()
    )
    found = _attributed(trace, REFUND_POLICY_CASE)
    assert _where(found) == ("span-003", 3, "issue_refund", "policy_breach", None)
    assert found.evidence.startswith(
        "broke must_precede: a successful verify_identity before each issue_refund"
    )


def test_a_missing_call_no_rule_needs_is_placed_where_it_was_due() -> None:
    case = _case(expected_tools=["lookup_order", "verify_identity", "issue_refund"])
    trace = (
        TraceBuilder("t")
        .tool("lookup_order", {"order_id": "A-1"})
        .tool("check_refund_policy", {"order_id": "A-1"})  # allowed in between (in_order)
        .tool("issue_refund", {"order_id": "A-1"})
        .output("Refunded.")
        .build()
    )
    found = _attributed(trace, case)
    # Any moment before the refund would have done: the refund is where it was last due.
    assert _where(found) == ("span-003", 3, "issue_refund", "wrong_tool", None)
    assert found.evidence == "verify_identity expected before issue_refund, not called before it"


def test_in_exact_mode_the_call_in_place_of_the_expected_one_is_the_wrong_tool() -> None:
    case = _case(expected_tools=["lookup_order", "issue_refund"], tool_match="exact")
    trace = (
        TraceBuilder("t")
        .llm("Looking it up.")
        .tool("lookup_order", {"order_id": "A-1"})
        .tool("cancel_order", {"order_id": "A-1"})
        .output("Cancelled.")
        .build()
    )
    found = _attributed(trace, case)
    assert _where(found) == ("span-003", 3, "cancel_order", "wrong_tool", None)


def test_a_call_never_made_with_nothing_after_it_is_due_at_the_answer() -> None:
    case = _case(expected_tools=["issue_refund", "lookup_order"], tool_match="any_order")
    trace = (
        TraceBuilder("t")
        .tool("lookup_order", {"order_id": "A-1"})
        .llm("Here is your order.")
        .output("Here is your order.")
        .build()
    )
    found = _attributed(trace, case)
    assert _where(found) == ("span-002", 2, "chat scripted", "wrong_tool", None)
    assert found.evidence == "issue_refund expected 1 time(s), called 1 fewer"


def test_a_call_where_none_may_be_made_is_the_wrong_tool() -> None:
    trace = TraceBuilder("t").tool("issue_refund", {"order_id": "A-1"}).output("Done.").build()
    found = _attributed(trace, _case(expected_tools=[]))
    assert _where(found) == ("span-001", 1, "issue_refund", "wrong_tool", None)


CLAIM_STATE = {"refunds": []}


def test_a_claimed_refund_the_state_does_not_show_is_the_answers_sentence() -> None:
    answer = "I checked order A-1007. I've issued your refund of $42.00 for it. Goodbye!"
    trace = (
        TraceBuilder("t")
        .tool("check_refund_policy", {"order_id": "A-1007"}, result={"max_refund": 42.0})
        .tool("issue_refund", {"order_id": "A-1007"}, error="declined: nothing was paid out")
        .llm(answer)
        .output(answer)
        .state(before=CLAIM_STATE, after=CLAIM_STATE)
        .build()
    )
    case = _case(
        expected_tools=["check_refund_policy", "issue_refund"], scorers=[{"name": "termination"}]
    )
    found = _attributed(trace, case)
    assert _where(found) == ("span-003", 3, "chat scripted", "unsupported_claim", None)
    assert found.evidence == (
        'the answer says "I\'ve issued your refund of $42.00 for it." (claim refund)'
        " but state_after.refunds is empty"
    )


def test_the_first_unsupported_sentence_of_the_answer_wins() -> None:
    answer = "Your order ships on 2026-06-18. It costs $129. We refunded $50."
    trace = (
        TraceBuilder("t", input="When does A-1 ship?")
        .tool("lookup_order", {"order_id": "A-1"}, result={"total": 129})
        .llm(answer)
        .output(answer)
        .build()
    )
    found = _attributed(trace, _case(scorers=[{"name": "grounding"}]))
    assert _where(found) == ("span-002", 2, "chat scripted", "unsupported_claim", None)
    assert found.evidence == (
        'the answer says "Your order ships on 2026-06-18.": 2026-06-18 is in no tool result'
        " nor the input"
    )


def test_no_answer_is_giving_up_at_the_last_step() -> None:
    trace = TraceBuilder("t").llm("Let me check.").tool("lookup_order", {"order_id": "A-1"}).build()
    found = _attributed(trace, _case(scorers=[{"name": "termination"}]))
    assert _where(found) == ("span-002", 2, "lookup_order", "gave_up_or_looped", None)
    assert found.evidence == "the run ended without a final answer"


def test_an_answer_before_a_required_write_is_giving_up() -> None:
    trace = (
        TraceBuilder("t")
        .tool("issue_refund", {"order_id": "A-1"}, error="timeout")
        .llm("Sorry, try later.")
        .output("Sorry, try later.")
        .build()
    )
    case = _case(
        expected_tools=["issue_refund"],
        scorers=[{"name": "termination", "write_tools": ["issue_refund"]}],
    )
    found = _attributed(trace, case)
    assert _where(found) == ("span-002", 2, "chat scripted", "gave_up_or_looped", None)
    assert found.evidence == (
        "the run answered before issue_refund (tried issue_refund at span-001: timeout)"
    )


def test_a_retry_loop_is_the_call_that_went_past_the_limit() -> None:
    builder = TraceBuilder("t")
    for _ in range(4):
        builder.llm("Trying again.").tool("lookup_order", {"order_id": "A-5"}, result={"ok": 1})
    trace = builder.output("Here it is.").build()
    found = _attributed(trace, _case(scorers=[{"name": "efficiency"}]))
    # Calls at steps 2, 4, 6, 8: the third identical one is over the limit of two.
    assert _where(found) == ("span-006", 6, "lookup_order", "gave_up_or_looped", None)
    assert found.evidence.startswith('redundant calls: lookup_order {"order_id":"A-5"} 4 times > 2')


def test_a_wrong_state_value_is_traced_to_the_call_that_wrote_it() -> None:
    case = _case(expected_state={"reschedules": [{"order_id": "A-2", "new_date": "2026-06-19"}]})
    after = {"reschedules": [{"order_id": "A-2", "new_date": "2026-06-17"}]}
    trace = (
        TraceBuilder("t")
        .tool("lookup_order", {"order_id": "A-2"}, result={"status": "shipped"})
        .tool("reschedule_delivery", {"order_id": "A-2", "new_date": "2026-06-17"})
        .output("Moved.")
        .state(after=after)
        .build()
    )
    found = _attributed(trace, case)
    assert _where(found) == ("span-002", 2, "reschedule_delivery", "wrong_argument", None)
    assert found.evidence == (
        'state reschedules[0].new_date: expected "2026-06-19", got "2026-06-17",'
        " as reschedule_delivery was asked"
    )


def test_a_wrong_state_value_only_a_tool_reported_is_that_tools_data() -> None:
    case = _case(expected_state={"refunds": [{"order_id": "A-1", "amount": 129}]})
    trace = (
        TraceBuilder("t")
        .tool("issue_refund", {"order_id": "A-1"}, result={"refunded": 12.9})
        .output("Refunded.")
        .state(after={"refunds": [{"order_id": "A-1", "amount": 12.9}]})
        .build()
    )
    found = _attributed(trace, case)
    assert _where(found) == ("span-001", 1, "issue_refund", "tool_returned_wrong_data", None)


def test_a_tool_failure_nothing_else_explains_is_the_infrastructure() -> None:
    case = _case(expected_state={"refunds": [{"order_id": "A-1"}]})
    trace = (
        TraceBuilder("t")
        .tool("lookup_order", {"order_id": "A-1"}, result={"ok": True})
        .tool("issue_refund", {"order_id": "A-1"}, error="503 Service Unavailable")
        .output("Sorry.")
        .state(after={"refunds": []})
        .build()
    )
    found = _attributed(trace, case)
    assert _where(found) == ("span-002", 2, "issue_refund", "infrastructure", None)
    assert found.evidence == "issue_refund failed: 503 Service Unavailable"
    # The same error injected by the case is what the case tests, not the infrastructure.
    injected = _case(
        expected_state={"refunds": [{"order_id": "A-1"}]},
        faults=[{"tool": "issue_refund", "error": "503 Service Unavailable"}],
    )
    graded = grade(trace, injected)
    assert graded.status == "failed"
    assert graded.attribution is None


def test_the_earliest_step_wins_across_rules() -> None:
    # A wrong argument at step 1, a policy breach at step 2, an unsupported claim at step 3.
    case = _case(
        expected_arguments=[{"tool": "lookup_order", "arguments": {"order_id": "A-1"}}],
        policies=[{"name": "forbidden", "tool": "issue_refund"}],
        scorers=[{"name": "arguments"}, {"name": "policy"}, {"name": "grounding"}],
    )
    trace = (
        TraceBuilder("t")
        .tool("lookup_order", {"order_id": "A-7"})
        .tool("issue_refund", {"order_id": "A-7"})
        .llm("Refunded $99.")
        .output("Refunded $99.")
        .build()
    )
    found = _attributed(trace, case)
    assert _where(found)[:4] == ("span-001", 1, "lookup_order", "wrong_argument")
    later = case.model_copy(update={"expected_arguments": []})
    assert _where(_attributed(trace, later))[:4] == ("span-002", 2, "issue_refund", "policy_breach")


def test_a_grade_that_did_not_fail_has_no_attribution() -> None:
    trace = _refund_run({"orders": [OLD]})
    passing = _case(expected_tools=["search_orders", "lookup_order", "issue_refund"])
    graded = grade(trace, passing)
    assert graded.status == "passed"
    assert graded.attribution is None
    assert attribute(trace, passing, graded) is None
    unscorable = grade(trace, _case())
    assert unscorable.status == "unscorable"
    assert unscorable.attribution is None


def test_grading_can_leave_attribution_out() -> None:
    trace = _refund_run({"orders": [OLD]})
    graded = grade(trace, REFUND_CASE, attribution=False)
    assert graded.status == "failed"
    assert graded.attribution is None
    assert attribute(trace, REFUND_CASE, graded) == _attributed(trace, REFUND_CASE)


def test_a_failure_no_rule_reads_is_not_attributed() -> None:
    case = _case(reference_response="Your order is on its way.")
    trace = TraceBuilder("t").llm("No idea.").output("No idea.").build()
    graded = grade(trace, case)
    assert graded.status == "failed"
    assert graded.attribution is None


@pytest.mark.parametrize("order", [["a", "b", "c"], ["c", "b", "a"]])
def test_steps_are_the_spans_but_the_root_in_start_order(order: list[str]) -> None:
    builder = TraceBuilder("t")
    for name in order:
        builder.tool(name)
    trace = builder.build()
    steps = trace_steps(trace)
    assert [span.span_id for span in steps] == ["span-001", "span-002", "span-003"]
    assert [span.tool.name for span in steps if span.tool] == order


_tools = st.lists(
    st.tuples(st.sampled_from("abc"), st.sampled_from(["A-1", "A-2", "A-3"]), st.booleans()),
    max_size=6,
)


@settings(max_examples=150, deadline=None)
@given(
    called=_tools,
    expected=st.lists(st.sampled_from("abc"), min_size=1, max_size=4),
    mode=st.sampled_from(["exact", "in_order", "any_order"]),
    wanted=st.sampled_from(["A-1", "A-2"]),
)
def test_a_failed_trajectory_is_always_placed_on_a_step_of_the_trace(
    called: list[tuple[str, str, bool]], expected: list[str], mode: str, wanted: str
) -> None:
    builder = TraceBuilder("t")
    for name, order, failed in called:
        builder.llm("next").tool(
            name, {"order_id": order}, result={"orders": [order]}, error="boom" if failed else None
        )
    trace = builder.llm("done").output("done").build()
    case = _case(
        expected_tools=expected,
        tool_match=mode,
        expected_arguments=[{"tool": expected[0], "arguments": {"order_id": wanted}}],
        scorers=[{"name": "trajectory"}, {"name": "arguments"}],
    )
    graded = grade(trace, case)
    found = graded.attribution
    if graded.status != "failed":
        assert found is None
        return
    assert found is not None
    steps = trace_steps(trace)
    assert steps[found.step - 1].span_id == found.span_id
    assert found.symptom_span_id != found.span_id
    assert found.symptom_span_id is None or found.symptom_span_id in {s.span_id for s in steps}
