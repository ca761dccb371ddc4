"""The scripted brains on the support dataset: v2 passes it all, v1 fails where its bugs are.

Each case runs through the one agent loop (ToolAgent over a ScriptedModel) on a fresh shop,
with the case's faults injected and a Recorder taking the trace, and is graded by the
built-in scorers: the same path the runner takes.
"""

from __future__ import annotations

import re
from datetime import date

import pytest

from tests.demo.running import graded, run_case
from trailcheck.cases import Case
from trailcheck.demo.support import (
    TODAY,
    shop_factory,
    support_dataset,
    v1_agent,
    v1_brain,
    v2_agent,
    v2_brain,
)
from trailcheck.demo.support.brains import v1_read_date
from trailcheck.demo.support.parsing import proof_in, requested_date
from trailcheck.trace import Message

CASES = {case.id: case for case in support_dataset().cases}

# The case that guards each of v1's bugs, the failure mode it names, and the scorer whose
# reason shows the bug (several cases guard the verification bug).
V1_BUGS: dict[str, tuple[str, str, str]] = {
    "refund-verified": (
        "refund_without_verification",
        "policy",
        "issue_refund at .* had no earlier successful verify_identity with order_id='A-1001'",
    ),
    "refund-without-proof": (
        "refund_without_verification",
        "state",
        "refunds: expected an empty list, got 1",
    ),
    "refund-other-customers-order": (
        "refund_without_verification",
        "policy",
        "broken forbidden: issue_refund",
    ),
    "multi-turn-refund": (
        "refund_without_verification",
        "trajectory",
        "missing verify_identity",
    ),
    "reschedule-friday": (
        "wrong_date",
        "arguments",
        "reschedule_delivery\\[0\\].new_date: expected 2026-06-19, got 2026-06-17",
    ),
    "lookup-outage-no-loop": (
        "retry_loop",
        "efficiency",
        'failed redundant calls: lookup_order {"order_id":"A-1005"} 6 times > 2',
    ),
    "refund-failed-no-claim": (
        "claim_without_state_change",
        "termination",
        'failed claim refund \\("issued your refund"\\) but state_after.refunds is empty',
    ),
    "latest-order-paginated": (
        "misread_pagination",
        "arguments",
        "lookup_order\\[0\\].order_id: expected A-1002, got A-1001",
    ),
    "refund-policy-reads-like-error": (
        "misread_success_as_error",
        "trajectory",
        "missing issue_refund",
    ),
    "latest-order-near-match": (
        "acted_on_partial_match",
        "trajectory",
        "extra lookup_order",
    ),
    "stale-delivery-estimate": (
        "quoted_stale_data",
        "trajectory",
        "missing lookup_order",
    ),
}
V1_UNAFFECTED = sorted(set(CASES) - set(V1_BUGS))


@pytest.mark.parametrize("mode", ["enforced", "prompt_only"])
@pytest.mark.parametrize("case_id", sorted(CASES))
def test_v2_passes_every_case_in_both_modes(case_id: str, mode: str) -> None:
    result = graded(v2_agent(), shop_factory(mode), CASES[case_id])  # type: ignore[arg-type]
    assert result.status == "passed", result.reason


@pytest.mark.parametrize("case_id", sorted(V1_BUGS))
def test_v1_with_prompt_only_tools_fails_the_cases_guarding_its_bugs(case_id: str) -> None:
    failure_mode, scorer, reason = V1_BUGS[case_id]
    case = CASES[case_id]
    assert failure_mode in case.failure_modes
    result = graded(v1_agent(), shop_factory("prompt_only"), case)
    assert result.status == "failed"
    [score] = [score for score in result.scores if score.scorer == scorer]
    assert not score.passed
    assert score.reason is not None
    assert re.search(reason, score.reason), score.reason


@pytest.mark.parametrize("case_id", V1_UNAFFECTED)
def test_v1_passes_the_cases_its_bugs_do_not_touch(case_id: str) -> None:
    result = graded(v1_agent(), shop_factory("prompt_only"), CASES[case_id])
    assert result.status == "passed", result.reason


def test_the_bug_cases_are_regression_cases_mostly_and_v1_passes_some_of_each_split() -> None:
    assert V1_UNAFFECTED == [
        "gift-card-refund",
        "partial-lookup-no-date",
        "rate-limited-lookup",
        "read-only-status",
        "refund-outside-window",
        "search-empty-result",
    ]
    splits = {CASES[case_id].split for case_id in V1_UNAFFECTED}
    assert splits == {"regression", "holdout"}


def test_enforced_tools_stop_v1s_unverified_refund_but_not_its_false_claim() -> None:
    case = CASES["refund-verified"]
    trace = run_case(v1_agent(), shop_factory("enforced"), case)
    [refund] = [call for call in trace.tool_calls if call.name == "issue_refund"]
    assert refund.error is not None
    assert "identity not verified for order A-1001" in refund.error
    assert trace.state_after is not None
    assert trace.state_after["refunds"] == []
    assert "I've issued your refund" in trace.final_text
    termination = next(
        s
        for s in graded(v1_agent(), shop_factory("enforced"), case).scores
        if s.scorer == "termination"
    )
    assert not termination.passed


def test_v2_asks_for_proof_then_refunds_in_the_next_turn() -> None:
    case = CASES["multi-turn-refund"]
    trace = run_case(v2_agent(), shop_factory("enforced"), case)
    assert [call.name for call in trace.tool_calls] == [
        "lookup_order",
        "verify_identity",
        "check_refund_policy",
        "issue_refund",
    ]
    assert trace.tool_calls[1].arguments == {"order_id": "A-1007", "proof": "5150"}
    assert trace.final_text.startswith("I've issued your refund of $42.00 for order A-1007")


def test_v2_retries_a_transient_error_once_and_tells_the_customer() -> None:
    trace = run_case(v2_agent(), shop_factory("enforced"), CASES["lookup-outage-no-loop"])
    assert [call.name for call in trace.tool_calls] == ["lookup_order", "lookup_order"]
    assert "couldn't look up order A-1005" in trace.final_text


def test_v2_asks_for_the_next_page_and_v1_takes_the_first_for_all_of_it() -> None:
    case = CASES["latest-order-paginated"]
    v2 = run_case(v2_agent(), shop_factory("enforced"), case)
    assert [
        (c.name, c.arguments.get("page"), c.arguments.get("order_id")) for c in v2.tool_calls
    ] == [
        ("search_orders", 1, None),
        ("search_orders", 2, None),
        ("lookup_order", None, "A-1002"),
    ]
    v1 = run_case(v1_agent(), shop_factory("prompt_only"), case)
    assert [c.arguments.get("order_id") for c in v1.tool_calls] == [None, "A-1001"]
    assert v1.final_text == "Order A-1001 was delivered on Friday, June 5, 2026."


def test_v2_asks_about_a_near_match_without_looking_at_its_orders() -> None:
    trace = run_case(v2_agent(), shop_factory("enforced"), CASES["latest-order-near-match"])
    assert [call.name for call in trace.tool_calls] == ["search_orders"]
    assert "priya.natarajan" not in trace.final_text  # another account's address stays out
    assert "check the email on your account" in trace.final_text


def test_v1_takes_error_words_for_a_failure_and_v2_reads_the_fields() -> None:
    case = CASES["refund-policy-reads-like-error"]
    v1 = run_case(v1_agent(), shop_factory("prompt_only"), case)
    assert v1.final_text == "I couldn't check the refund policy for order A-1001 just now."
    assert v1.state_after is not None
    assert v1.state_after["refunds"] == []
    v2 = run_case(v2_agent(), shop_factory("enforced"), case)
    assert v2.state_after is not None
    assert [r["amount"] for r in v2.state_after["refunds"]] == [129.0]


def test_v2_looks_a_past_estimate_up_again_and_gives_no_date_if_it_stays_past() -> None:
    case = CASES["stale-delivery-estimate"]
    trace = run_case(v2_agent(), shop_factory("enforced"), case)
    assert [call.name for call in trace.tool_calls] == ["lookup_order", "lookup_order"]
    assert (
        trace.final_text == "Order A-1002 has shipped and should arrive on Tuesday, June 16, 2026."
    )
    stale = case.faults[0].model_copy(update={"first": None})  # every lookup stale
    always = case.model_copy(update={"faults": [stale]})
    trace = run_case(v2_agent(), shop_factory("enforced"), always)
    assert len(trace.tool_calls) == 2
    assert "June 12" not in trace.final_text
    assert "there is no delivery date yet" in trace.final_text


def _ask(text: str) -> list[Message]:
    return [
        Message(role="system", content="Today is 2026-06-15."),
        Message(role="user", content=text),
    ]


def test_brains_are_deterministic_functions_of_the_conversation() -> None:
    messages = _ask("Please refund order A-1001. My date of birth is 1988-04-12.")
    assert v2_brain(messages) == v2_brain(messages)
    [first] = v2_brain(messages).tool_calls
    assert (first.id, first.name, first.arguments) == (
        "call_1",
        "lookup_order",
        {"order_id": "A-1001"},
    )
    assert v1_brain(_ask("Hello")).text == v2_brain(_ask("Hello")).text


@pytest.mark.parametrize(
    ("text", "v2_reads", "v1_reads"),
    [
        ("Friday, June 19", date(2026, 6, 19), date(2026, 6, 17)),
        ("on June 19, please", date(2026, 6, 19), date(2026, 6, 19)),
        ("2026-06-22", date(2026, 6, 22), date(2026, 6, 22)),
        ("June 19, 2026", date(2026, 6, 19), date(2026, 6, 19)),
        ("Thursday, June 19", None, date(2026, 6, 16)),  # the weekday disagrees: unclear
        ("June 3", date(2027, 6, 3), date(2027, 6, 3)),  # past this year: next year's
        ("sometime soon", None, None),
    ],
)
def test_dates_v2_reads_them_right_and_v1_lets_the_weekday_win(
    text: str, v2_reads: date | None, v1_reads: date | None
) -> None:
    assert requested_date(text, TODAY) == v2_reads
    assert v1_read_date(text, TODAY) == v1_reads


def test_a_date_of_birth_is_a_proof_not_a_delivery_day() -> None:
    text = "Move A-1002 to June 19. My date of birth is 1988-04-12."
    assert requested_date(text, TODAY) == date(2026, 6, 19)
    assert proof_in([text]) == "1988-04-12"
    assert proof_in(["my card ends in 4242", "no wait, the card ending 1881"]) == "1881"
    assert proof_in(["order A-1001, please"]) is None


def test_every_case_id_is_covered_by_one_of_the_two_lists() -> None:
    assert all(isinstance(case, Case) for case in CASES.values())
    assert sorted([*V1_BUGS, *V1_UNAFFECTED]) == sorted(CASES)
