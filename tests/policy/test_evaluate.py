from __future__ import annotations

from trailcheck.policy import (
    AtMostPolicy,
    ForbiddenPolicy,
    MustPrecedePolicy,
    RequiresConfirmationPolicy,
    check_call,
    violations,
)
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Message, ToolCall, Trace

VERIFY_FIRST = MustPrecedePolicy(tool="verify_identity", before="issue_refund")
SAME_CUSTOMER = MustPrecedePolicy(
    tool="verify_identity", before="issue_refund", bind={"customer_id": "customer_id"}
)


def _refund_trace(*steps: tuple[str, dict[str, object], str | None]) -> Trace:
    builder = TraceBuilder(input="Refund order A-1")
    for name, arguments, error in steps:
        builder.tool(name, arguments, result={"ok": error is None}, error=error)
    return builder.build()


def test_must_precede_holds_when_a_successful_licence_came_first() -> None:
    trace = _refund_trace(
        ("verify_identity", {"customer_id": "C-1"}, None),
        ("issue_refund", {"customer_id": "C-1", "order_id": "A-1"}, None),
    )
    assert violations([VERIFY_FIRST, SAME_CUSTOMER], trace) == []


def test_refund_without_verification_is_named_with_its_span() -> None:
    trace = _refund_trace(
        ("lookup_order", {}, None), ("issue_refund", {"customer_id": "C-1"}, None)
    )
    [violation] = violations([VERIFY_FIRST], trace)
    assert violation.call.span_id == "span-002"
    assert str(violation) == (
        "must_precede: a successful verify_identity before each issue_refund:"
        " issue_refund at span-002 had no earlier successful verify_identity"
    )


def test_a_failed_verification_licenses_nothing_unless_asked() -> None:
    trace = _refund_trace(
        ("verify_identity", {"customer_id": "C-1"}, "wrong date of birth"),
        ("issue_refund", {"customer_id": "C-1"}, None),
    )
    [violation] = violations([VERIFY_FIRST], trace)
    assert "(verify_identity at span-001 did not qualify)" in violation.reason
    lenient = MustPrecedePolicy(tool="verify_identity", before="issue_refund", successful=False)
    assert violations([lenient], trace) == []


def test_binding_requires_the_same_argument_value() -> None:
    trace = _refund_trace(
        ("verify_identity", {"customer_id": "C-2"}, None),
        ("issue_refund", {"customer_id": "C-1"}, None),
    )
    [violation] = violations([SAME_CUSTOMER], trace)
    assert violation.reason == (
        "issue_refund at span-002 had no earlier successful verify_identity with"
        " customer_id='C-1' (verify_identity at span-001 did not qualify)"
    )
    assert violations([VERIFY_FIRST], trace) == []  # unbound, any verification licenses


def test_binding_compares_canonically_and_across_argument_names() -> None:
    rule = MustPrecedePolicy(tool="verify_identity", before="issue_refund", bind={"cid": "id"})
    trace = _refund_trace(
        ("verify_identity", {"id": 25}, None), ("issue_refund", {"cid": 25.0}, None)
    )
    assert violations([rule], trace) == []
    assert rule.summary.endswith("cid = its id")


def test_a_call_without_the_bound_argument_is_unlicensed() -> None:
    trace = _refund_trace(
        ("verify_identity", {"customer_id": "C-1"}, None), ("issue_refund", {}, None)
    )
    [violation] = violations([SAME_CUSTOMER], trace)
    assert violation.reason == (
        "issue_refund at span-002 has no customer_id to match a verify_identity call by"
    )


def test_each_unlicensed_call_is_reported() -> None:
    trace = _refund_trace(
        ("issue_refund", {}, None),
        ("verify_identity", {}, None),
        ("issue_refund", {}, None),
        ("issue_refund", {}, None),
    )
    assert [v.call.span_id for v in violations([VERIFY_FIRST], trace)] == ["span-001"]


def test_a_licence_still_running_does_not_count() -> None:
    verify = ToolCall(None, "verify_identity", {}, None, None, "v", start_ns=0, end_ns=10)
    refund = ToolCall(None, "issue_refund", {}, None, None, "r", start_ns=5, end_ns=6)
    unfinished = ToolCall(None, "verify_identity", {}, None, None, "u", start_ns=0, end_ns=None)
    assert check_call(VERIFY_FIRST, refund, [verify]) is not None
    assert check_call(VERIFY_FIRST, refund, [unfinished]) is not None
    later = ToolCall(None, "issue_refund", {}, None, None, "l", start_ns=10, end_ns=11)
    assert check_call(VERIFY_FIRST, later, [verify]) is None


def test_forbidden_counts_failed_attempts() -> None:
    trace = _refund_trace(("delete_account", {}, "not allowed"), ("lookup_order", {}, None))
    [violation] = violations([ForbiddenPolicy(tool="delete_account")], trace)
    assert violation.reason == "delete_account at span-001 was called"


def test_at_most_flags_every_call_over_the_limit() -> None:
    trace = _refund_trace(*[("search", {"q": str(n)}, None) for n in range(4)])
    found = violations([AtMostPolicy(tool="search", count=2)], trace)
    assert [v.reason for v in found] == [
        "search at span-003 is call 3, over the limit of 2",
        "search at span-004 is call 4, over the limit of 2",
    ]
    assert violations([AtMostPolicy(tool="search", count=4)], trace) == []
    assert len(violations([AtMostPolicy(tool="search", count=0)], trace)) == 4


def test_rules_about_other_tools_are_silent() -> None:
    trace = _refund_trace(("lookup_order", {}, None))
    rules = [
        VERIFY_FIRST,
        ForbiddenPolicy(tool="delete_account"),
        AtMostPolicy(tool="issue_refund", count=0),
        RequiresConfirmationPolicy(tool="issue_refund"),
    ]
    assert violations(rules, trace) == []


def _conversation(*turns: tuple[str, str]) -> list[Message]:
    return [Message(role=role, content=text) for role, text in turns]  # type: ignore[arg-type]


def test_confirmation_from_the_user_after_the_agent_asked() -> None:
    rule = RequiresConfirmationPolicy(tool="issue_refund")
    refund = ToolCall(None, "issue_refund", {}, None, None, "r", start_ns=0, end_ns=1)
    asked = _conversation(("user", "refund A-1"), ("assistant", "Refund $20 to your card?"))
    assert check_call(rule, refund, [], [*asked, *_conversation(("user", "Yes please"))]) is None
    declined = [*asked, *_conversation(("user", "hmm, not sure"))]
    violation = check_call(rule, refund, [], declined)
    assert violation is not None
    assert "not preceded by a user confirmation" in violation.reason


def test_a_yes_to_an_earlier_question_does_not_confirm_a_later_one() -> None:
    rule = RequiresConfirmationPolicy(tool="issue_refund")
    refund = ToolCall(None, "issue_refund", {}, None, None, "r", start_ns=0, end_ns=1)
    conversation = _conversation(
        ("assistant", "Shall I look the order up?"),
        ("user", "yes"),
        ("assistant", "It is $20. Shall I refund it?"),
    )
    assert check_call(rule, refund, [], conversation) is not None
    assert check_call(rule, refund, [], []) is not None


def test_confirmation_pattern_is_the_rules() -> None:
    rule = RequiresConfirmationPolicy(tool="issue_refund", confirmation=r"(?i)\bagreed\b")
    refund = ToolCall(None, "issue_refund", {}, None, None, "r", start_ns=0, end_ns=1)
    assert check_call(rule, refund, [], _conversation(("user", "yes"))) is not None
    assert check_call(rule, refund, [], _conversation(("user", "Agreed."))) is None
