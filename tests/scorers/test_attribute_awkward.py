"""Attribution after an awkward result: a correct result the case declares awkward is never the
tool's wrong data, and the step that read it, when it left the reference, misread it."""

from __future__ import annotations

from typing import Any

from trailcheck.cases import Case
from trailcheck.scorers import Attribution, grade
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Trace

REQUEST = "When will my latest order arrive? (maya@example.com)"
PAGE_ONE = {"orders": [{"order_id": "A-0917"}, {"order_id": "A-1001"}], "next_page": 2}
PAGE_TWO = {"orders": [{"order_id": "A-1002"}], "next_page": None}


def _case(faults: list[dict[str, Any]], **fields: Any) -> Case:
    return Case.model_validate({"id": "c", "input": REQUEST, "faults": faults, **fields})


def _attributed(trace: Trace, case: Case) -> Attribution:
    graded = grade(trace, case)
    assert graded.status == "failed", graded.reason
    assert graded.attribution is not None, graded.reason
    return graded.attribution


def _first_page_only() -> Trace:
    """The agent reads page 1 as all there is and looks up its newest order."""
    return (
        TraceBuilder("t", input=REQUEST)
        .llm("Let me find your orders.")  # 1
        .tool("search_orders", {"email": "maya@example.com"}, result=PAGE_ONE)  # 2
        .llm("Your latest is A-1001.")  # 3
        .tool("lookup_order", {"order_id": "A-1001"}, result={"status": "delivered"})  # 4
        .llm("A-1001 was delivered.")  # 5
        .output("A-1001 was delivered.")
        .build()
    )


LATEST = {"expected_arguments": [{"tool": "lookup_order", "arguments": {"order_id": "A-1002"}}]}


def test_a_value_from_an_awkward_page_was_misread_where_it_was_used() -> None:
    case = _case([{"tool": "search_orders", "result": PAGE_ONE, "awkward": "paginated"}], **LATEST)
    found = _attributed(_first_page_only(), case)
    assert (found.span_id, found.step, found.name, found.category) == (
        "span-004",
        4,
        "lookup_order",
        "misread_tool_result",
    )
    assert found.evidence == (
        "lookup_order[0].order_id: expected A-1002, got A-1001; search_orders (step 2) returned"
        " a first page of several, a correct result, holding A-1001 and not the expected A-1002:"
        " the agent misread it"
    )


def test_the_same_result_not_declared_awkward_is_the_tools_wrong_data() -> None:
    case = _case([{"tool": "search_orders", "result": PAGE_ONE}], **LATEST)
    found = _attributed(_first_page_only(), case)
    assert (found.step, found.name, found.category, found.symptom_span_id) == (
        2,
        "search_orders",
        "tool_returned_wrong_data",
        "span-004",
    )


def test_the_step_that_read_the_page_and_skipped_the_next_one_misread_it() -> None:
    case = _case(
        [{"tool": "search_orders", "result": PAGE_ONE, "awkward": "paginated"}],
        expected_tools=["search_orders", "search_orders", "lookup_order"],
    )
    found = _attributed(_first_page_only(), case)
    assert (found.step, found.category) == (4, "misread_tool_result")
    assert found.evidence == (
        "search_orders (step 2) returned a first page of several, a correct result, misread:"
        " search_orders expected before lookup_order, not called before it"
    )
    # Without the declaration the same departure is a wrong tool.
    plain = _case([], expected_tools=["search_orders", "search_orders", "lookup_order"])
    assert _attributed(_first_page_only(), plain).category == "wrong_tool"


def test_a_run_that_followed_the_pages_passes() -> None:
    trace = (
        TraceBuilder("t", input=REQUEST)
        .llm("Let me find your orders.")
        .tool("search_orders", {"email": "maya@example.com"}, result=PAGE_ONE)
        .llm("There is a second page.")
        .tool("search_orders", {"email": "maya@example.com", "page": 2}, result=PAGE_TWO)
        .llm("Your latest is A-1002.")
        .tool("lookup_order", {"order_id": "A-1002"}, result={"status": "shipped"})
        .llm("A-1002 has shipped.")
        .output("A-1002 has shipped.")
        .build()
    )
    case = _case(
        [{"tool": "search_orders", "result": PAGE_ONE, "awkward": "paginated", "first": 1}],
        expected_tools=["search_orders", "search_orders", "lookup_order"],
        **LATEST,
    )
    graded = grade(trace, case)
    assert (graded.status, graded.attribution) == ("passed", None), graded.reason


REFUNDABLE = {"refundable": True, "max_refund": 129.0, "status": "error_code_0", "ok": True}


def _gave_up_after_the_policy_check() -> Trace:
    return (
        TraceBuilder("t", input="Refund A-1001, please.")
        .llm("Looking it up.")  # 1
        .tool("lookup_order", {"order_id": "A-1001"}, result={"status": "delivered"})  # 2
        .llm("Checking the policy.")  # 3
        .tool("check_refund_policy", {"order_id": "A-1001"}, result=REFUNDABLE)  # 4
        .llm("I couldn't check the refund policy for order A-1001 just now.")  # 5
        .output("I couldn't check the refund policy for order A-1001 just now.")
        .build()
    )


def test_an_answer_that_read_a_success_as_an_error_misread_it() -> None:
    case = _case(
        [{"tool": "check_refund_policy", "result": REFUNDABLE, "awkward": "reads_like_error"}],
        expected_tools=["lookup_order", "check_refund_policy", "issue_refund"],
    )
    found = _attributed(_gave_up_after_the_policy_check(), case)
    assert (found.span_id, found.step, found.name, found.category) == (
        "span-005",
        5,
        "chat scripted",
        "misread_tool_result",
    )
    assert found.evidence == (
        "check_refund_policy (step 4) returned a success that reads like an error, a correct"
        " result, misread: issue_refund expected, never called"
    )


def test_a_policy_breach_and_an_unsupported_claim_at_the_reading_step_stay_what_they_are() -> None:
    awkward = [{"tool": "search_orders", "result": PAGE_ONE, "awkward": "paginated"}]
    breach = _case(awkward, policies=[{"name": "forbidden", "tool": "lookup_order"}])
    found = _attributed(_first_page_only(), breach)
    assert (found.step, found.category) == (4, "policy_breach")
    claim = (
        TraceBuilder("t", input=REQUEST)
        .llm("Let me find your orders.")
        .tool("search_orders", {"email": "maya@example.com"}, result=PAGE_ONE)
        .llm("Your latest order A-1001 arrives on 2026-07-01.")
        .output("Your latest order A-1001 arrives on 2026-07-01.")
        .build()
    )
    grounded = _case(awkward, scorers=[{"name": "grounding"}])
    found = _attributed(claim, grounded)
    assert (found.step, found.category) == (3, "unsupported_claim")


def test_a_departure_after_the_reading_step_is_not_a_misreading() -> None:
    trace = (
        TraceBuilder("t", input=REQUEST)
        .llm("Let me find your orders.")  # 1
        .tool("search_orders", {"email": "maya@example.com"}, result=PAGE_ONE)  # 2
        .llm("Next page.")  # 3
        .tool("search_orders", {"email": "maya@example.com", "page": 2}, result=PAGE_TWO)  # 4
        .llm("A refund, then.")  # 5
        .tool("issue_refund", {"order_id": "A-1002"})  # 6
        .llm("Done.")
        .output("Done.")
        .build()
    )
    case = _case(
        [{"tool": "search_orders", "result": PAGE_ONE, "awkward": "paginated", "first": 1}],
        expected_tools=["search_orders", "search_orders"],
        tool_match="exact",
    )
    found = _attributed(trace, case)
    assert (found.step, found.name, found.category) == (6, "issue_refund", "wrong_tool")


def test_only_a_call_that_returned_the_faults_result_is_awkward() -> None:
    # The fault covered the first call; the second ran the tool and returned something else,
    # which the agent then misused: that result is the tool's own, and wrong.
    trace = (
        TraceBuilder("t", input=REQUEST)
        .llm("Let me find your orders.")  # 1
        .tool("search_orders", {"email": "maya@example.com"}, result=PAGE_ONE)  # 2
        .llm("Next page.")  # 3
        .tool(
            "search_orders",
            {"email": "maya@example.com", "page": 2},
            result={"orders": [{"order_id": "A-0001"}]},
        )  # 4
        .llm("Your latest is A-0001.")  # 5
        .tool("lookup_order", {"order_id": "A-0001"}, result={"status": "delivered"})  # 6
        .llm("Delivered.")
        .output("Delivered.")
        .build()
    )
    case = _case(
        [{"tool": "search_orders", "result": PAGE_ONE, "awkward": "paginated", "first": 1}],
        **LATEST,
    )
    found = _attributed(trace, case)
    assert (found.step, found.name, found.category) == (
        4,
        "search_orders",
        "tool_returned_wrong_data",
    )
