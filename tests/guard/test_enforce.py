"""Policy enforcement in the request path: a call that breaks a rule never runs, the model is
told why as the tool's result, and the trace keeps a guard span of the block."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from trailcheck.capture import Recorder, SeededIds
from trailcheck.environment import ToolError
from trailcheck.errors import UsageError
from trailcheck.guard import (
    GUARD_ARGUMENTS,
    GUARD_CALL_ID,
    GUARD_DECISION,
    GUARD_REASON,
    GUARD_RULE,
    GUARD_TOOL,
    PolicyBlockedError,
    PolicyGuard,
)
from trailcheck.models import ScriptedModel, tool_call_reply
from trailcheck.run.agent import TrialContext
from trailcheck.run.tool_agent import ToolAgent
from trailcheck.trace import Message, Span, Trace

VERIFY_BEFORE_REFUND = {
    "name": "must_precede",
    "tool": "verify_identity",
    "before": "issue_refund",
    "bind": {"order_id": "order_id"},
}


class Shop:
    def __init__(self) -> None:
        self.verified: list[str] = []
        self.refunds: list[str] = []
        self.deleted = 0

    def verify_identity(self, order_id: str) -> str:
        """Verify the customer who placed an order."""
        if order_id == "X-0":
            raise ToolError("no such order")
        self.verified.append(order_id)
        return f"verified {order_id}"

    def issue_refund(self, order_id: str) -> str:
        """Refund an order."""
        self.refunds.append(order_id)
        return f"refunded {order_id}"

    def delete_account(self) -> str:
        """Delete the customer's account."""
        self.deleted += 1
        return "deleted"

    @property
    def tools(self) -> list[Callable[..., Any]]:
        return [self.verify_identity, self.issue_refund, self.delete_account]


def respond(agent: ToolAgent, message: str, shop: Shop) -> Trace:
    recorder = Recorder(agent_name="shop", ids=SeededIds(5))
    context = TrialContext(tools=recorder.wrap_tools(shop.tools), recorder=recorder)

    async def turn() -> str:
        async with recorder:
            return await agent.respond(message, context)

    asyncio.run(turn())
    return recorder.trace


def guard_spans(trace: Trace) -> list[Span]:
    return [span for span in trace.spans if span.kind == "guard"]


def tool_results(messages: Sequence[Message]) -> list[str]:
    return [m.text for m in messages if m.role == "tool"]


def test_a_refund_before_verification_is_blocked_the_model_told_why_and_a_guard_span_kept() -> None:
    shop = Shop()
    model = ScriptedModel(
        [
            tool_call_reply("issue_refund", {"order_id": "A-1"}),
            tool_call_reply("verify_identity", {"order_id": "A-1"}),
            tool_call_reply("issue_refund", {"order_id": "A-1"}),
            "Refunded A-1.",
        ]
    )
    agent = ToolAgent(model, policies=[VERIFY_BEFORE_REFUND])

    trace = respond(agent, "Refund A-1", shop)

    reason = "issue_refund at call_1 had no earlier successful verify_identity with order_id='A-1'"
    rule = "must_precede: a successful verify_identity before each issue_refund, same order_id"
    assert json.loads(tool_results(model.calls[1].messages)[0]) == {
        "error": f"PolicyBlocked: {rule}: {reason}"
    }
    assert shop.refunds == ["A-1"]  # only the licensed second refund ran
    assert [call.name for call in trace.tool_calls] == ["verify_identity", "issue_refund"]
    (span,) = guard_spans(trace)
    assert span.name == "guard issue_refund"
    assert span.attributes == {
        GUARD_TOOL: "issue_refund",
        GUARD_ARGUMENTS: {"order_id": "A-1"},
        GUARD_CALL_ID: "call_1",
        GUARD_RULE: rule,
        GUARD_REASON: reason,
        GUARD_DECISION: "blocked",
    }


def test_a_forbidden_tool_never_runs() -> None:
    shop = Shop()
    model = ScriptedModel([tool_call_reply("delete_account"), "I cannot do that."])
    agent = ToolAgent(model, policies=[{"name": "forbidden", "tool": "delete_account"}])

    trace = respond(agent, "Delete me", shop)

    assert shop.deleted == 0
    assert tool_results(model.calls[1].messages) == [
        '{"error":"PolicyBlocked: forbidden: delete_account: delete_account at call_1 was called"}'
    ]
    assert trace.tool_calls == []
    assert [span.attributes[GUARD_RULE] for span in guard_spans(trace)] == [
        "forbidden: delete_account"
    ]


def test_at_most_blocks_the_call_over_the_limit_and_a_blocked_call_does_not_count() -> None:
    shop = Shop()
    guard = PolicyGuard([{"name": "at_most", "tool": "issue_refund", "count": 1}])

    async def refund(order_id: str) -> str:
        async def call() -> str:
            return shop.issue_refund(order_id)

        result = await guard.run("issue_refund", {"order_id": order_id}, call)
        assert isinstance(result, str)
        return result

    assert asyncio.run(refund("A-1")) == "refunded A-1"
    for _ in range(2):
        with pytest.raises(PolicyBlockedError, match="is call 2, over the limit of 1"):
            asyncio.run(refund("A-2"))
    assert shop.refunds == ["A-1"]
    assert [call.name for call in guard.calls] == ["issue_refund"]


def test_a_failed_licence_does_not_license_and_a_successful_one_does() -> None:
    shop = Shop()
    rules = [{"name": "must_precede", "tool": "verify_identity", "before": "issue_refund"}]
    guard = PolicyGuard(rules)
    verify = guard.wrap(shop.verify_identity)
    refund = guard.wrap(shop.issue_refund)

    async def session() -> list[str]:
        outcomes: list[str] = []
        with pytest.raises(ToolError):
            await verify("X-0")
        for call in (refund("A-1"), verify("A-1"), refund("A-1")):
            try:
                outcomes.append(await call)
            except PolicyBlockedError as blocked:
                outcomes.append(f"blocked: {blocked.violation.reason}")
        return outcomes

    assert asyncio.run(session()) == [
        "blocked: issue_refund at call 2 had no earlier successful verify_identity"
        " (verify_identity at call 1 did not qualify)",
        "verified A-1",
        "refunded A-1",
    ]
    assert shop.refunds == ["A-1"]
    assert guard.calls[0].error == "ToolError: no such order"


def test_confirmation_is_read_from_the_conversation_before_the_call() -> None:
    guard = PolicyGuard([{"name": "requires_confirmation_before", "tool": "delete_account"}])
    asked = [
        Message(role="user", content="Delete my account"),
        Message(role="assistant", content="Are you sure?"),
    ]

    blocked = guard.check("delete_account", {}, conversation=asked)
    allowed = guard.check(
        "delete_account", {}, conversation=[*asked, Message(role="user", content="yes")]
    )

    assert blocked is not None
    assert "was not preceded by a user confirmation" in blocked.reason
    assert allowed is None


def test_a_wrapped_tool_records_its_block_through_the_recorder() -> None:
    shop = Shop()
    recorder = Recorder(ids=SeededIds(2))
    guard = PolicyGuard([{"name": "forbidden", "tool": "delete_account"}])
    delete = guard.wrap(shop.delete_account, spans=recorder)

    async def run() -> None:
        async with recorder:
            with pytest.raises(PolicyBlockedError) as raised:
                await delete()
            assert raised.value.kind == "PolicyBlocked"

    asyncio.run(run())

    assert shop.deleted == 0
    (span,) = guard_spans(recorder.trace)
    assert span.attributes[GUARD_DECISION] == "blocked"
    assert GUARD_CALL_ID not in span.attributes  # a wrapped call has no model call id


def test_rules_that_are_not_policies_are_refused() -> None:
    with pytest.raises(UsageError, match="a guard's policy rules are not valid"):
        PolicyGuard([{"name": "never_ever", "tool": "delete_account"}])
