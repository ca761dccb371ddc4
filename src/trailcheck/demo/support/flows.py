"""The support flows a scripted brain follows: status, order search, refunds and reschedules.

:func:`next_step` reads the conversation and returns the next reply: one tool call, or the
answer for this turn. Where the two brains differ, it asks their :class:`Habits`; everything
else (the wording, the order of the calls) is shared, so a difference in a run is a difference
in habits. Answers quote only what the tools returned or the customer said, with dates written
out, so that the grounding scorer can check each figure.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Any

from trailcheck.demo.support.conversation import Conversation, Outcome
from trailcheck.models import Reply
from trailcheck.trace import MessageToolCall

OrderInfo = dict[str, Any]
_TRANSIENT = re.compile(
    r"rate.?limit|too many requests|unavailable|timed?.?out|try again|retry", re.IGNORECASE
)
_REASONS = (
    (re.compile(r"damaged|broken|cracked", re.I), "arrived damaged"),
    (re.compile(r"stopped working|defective|faulty|broke\b", re.I), "defective"),
)


@dataclass(frozen=True)
class Habits:
    """How a brain behaves where v1 and v2 differ (see :mod:`.brains`)."""

    verify_before_refund: bool
    lookup_attempts: int
    retry_only_transient: bool
    report_refund_failures: bool
    read_date: Callable[[str, date], date | None]


def say(text: str) -> Reply:
    return Reply(text=text)


def call(conversation: Conversation, name: str, **arguments: Any) -> Reply:
    call_id = f"call_{conversation.calls_made + 1}"
    return Reply(tool_calls=[MessageToolCall(id=call_id, name=name, arguments=arguments)])


def spelled(iso: object) -> str:
    """``2026-06-19`` as ``Friday, June 19, 2026``; anything else as it is."""
    try:
        day = date.fromisoformat(str(iso))
    except ValueError:
        return str(iso)
    return f"{day:%A, %B} {day.day}, {day.year}"


def error_text(outcome: Outcome) -> str:
    return (outcome.error or "").removeprefix("ToolError: ").rstrip(".")


def next_step(conversation: Conversation, habits: Habits) -> Reply:
    """The next reply: a tool call, or this turn's answer."""
    order_id = conversation.order_id
    if order_id is None:
        if conversation.email:
            return _orders(conversation, conversation.email)
        return say(
            "I can help with that. What is your order number? It is in your confirmation email."
        )
    order = _order(conversation, order_id, habits)
    if isinstance(order, Reply):
        return order
    if conversation.intent == "refund":
        return _refund(conversation, order_id, order, habits)
    if conversation.intent == "reschedule":
        return _reschedule(conversation, order_id, order, habits)
    return say(describe_order(order_id, order))


def describe_order(order_id: str, order: OrderInfo) -> str:
    status = order.get("status")
    if status == "delivered":
        return f"Order {order_id} was delivered on {spelled(order.get('delivered_on'))}."
    if status in ("shipped", "processing"):
        where = "has shipped" if status == "shipped" else "is being prepared"
        expected = order.get("expected_delivery")
        if expected:
            return f"Order {order_id} {where} and should arrive on {spelled(expected)}."
        return (
            f"Order {order_id} {where}, and there is no delivery date yet. I can give you one"
            " as soon as the carrier has it."
        )
    return f"Order {order_id} is {status}."


def _order(conversation: Conversation, order_id: str, habits: Habits) -> OrderInfo | Reply:
    found = conversation.succeeded("lookup_order", order_id=order_id)
    if found is not None:
        return found.result if isinstance(found.result, dict) else {}
    failed = conversation.of("lookup_order", this_turn=True, order_id=order_id)
    if not failed:
        return call(conversation, "lookup_order", order_id=order_id)
    error = error_text(failed[-1])
    retry = not habits.retry_only_transient or _TRANSIENT.search(error) is not None
    if retry and len(failed) < habits.lookup_attempts:
        return call(conversation, "lookup_order", order_id=order_id)
    if "no order" in error:
        return say(f"I couldn't find order {order_id}. Could you check the number?")
    return say(
        f"I'm sorry, our order system is not responding, so I couldn't look up order"
        f" {order_id}. Please try again in a little while."
    )


def _orders(conversation: Conversation, email: str) -> Reply:
    found = conversation.succeeded("search_orders", customer_email=email)
    if found is None:
        if not conversation.of("search_orders", this_turn=True, customer_email=email):
            return call(conversation, "search_orders", customer_email=email)
        return say("I'm sorry, I couldn't search for your orders just now. Please try again.")
    orders = [o for o in found.result if isinstance(o, dict)] if found.result else []
    if not orders:
        return say(
            f"I couldn't find any orders under {email}. Could you give me the order number"
            " from your confirmation email?"
        )
    listed = "; ".join(f"{o.get('order_id')} ({o.get('status')})" for o in orders)
    return say(f"I found these orders under {email}: {listed}. Which one can I help with?")


def _verification(
    conversation: Conversation, order_id: str, order: OrderInfo, action: str
) -> Reply | None:
    """``None`` once the order's owner is verified; else the call or question that is next."""
    customer = order.get("customer_id")
    for outcome in conversation.of("verify_identity"):
        result = outcome.result if isinstance(outcome.result, dict) else {}
        if outcome.ok and (
            result.get("order_id") == order_id or result.get("customer_id") == customer
        ):
            return None
    proof = conversation.proof
    if proof is None:
        return say(
            f"Before I {action} order {order_id}, I need to confirm it is yours. Could you tell"
            " me your date of birth, or the last four digits of the card you paid with?"
        )
    if conversation.of("verify_identity", order_id=order_id, proof=proof):
        return say(
            f"I'm sorry, I couldn't verify that order {order_id} is yours, so I can't make"
            " changes to it. If it is your order, please check the details you gave me."
        )
    return call(conversation, "verify_identity", order_id=order_id, proof=proof)


def _refund(conversation: Conversation, order_id: str, order: OrderInfo, habits: Habits) -> Reply:
    if habits.verify_before_refund:
        pending = _verification(conversation, order_id, order, "refund")
        if pending is not None:
            return pending
    checked = conversation.succeeded("check_refund_policy", order_id=order_id)
    if checked is None:
        if not conversation.of("check_refund_policy", this_turn=True, order_id=order_id):
            return call(conversation, "check_refund_policy", order_id=order_id)
        return say(f"I couldn't check the refund policy for order {order_id} just now.")
    policy: OrderInfo = checked.result if isinstance(checked.result, dict) else {}
    if not policy.get("refundable"):
        reasons = "; ".join(
            str(r) for r in policy.get("reasons") or ["the policy does not allow it"]
        )
        return say(f"I'm sorry, I can't refund order {order_id}: {reasons}.")
    attempts = conversation.of("issue_refund", order_id=order_id)
    if not attempts:
        amount = float(policy.get("max_refund") or order.get("total") or 0.0)
        reason = next((r for p, r in _REASONS if p.search(" ".join(conversation.user_turns))), "")
        return call(
            conversation,
            "issue_refund",
            order_id=order_id,
            amount=amount,
            reason=reason or "customer request",
        )
    return say(_refund_answer(order_id, attempts[-1], habits))


def _refund_answer(order_id: str, attempt: Outcome, habits: Habits) -> str:
    result = attempt.result if isinstance(attempt.result, dict) else {}
    if attempt.ok or not habits.report_refund_failures:
        amount = float(result.get("amount", attempt.arguments.get("amount", 0.0)))
        ref = f" (refund {result['refund_id']})" if "refund_id" in result else ""
        return (
            f"I've issued your refund of ${amount:.2f} for order {order_id}{ref}. It goes back"
            " to the card you paid with."
        )
    return (
        f"I'm sorry, the refund for order {order_id} did not go through: {error_text(attempt)}."
        " No money has moved; please try again later, or I can pass this to a colleague."
    )


def _reschedule(
    conversation: Conversation, order_id: str, order: OrderInfo, habits: Habits
) -> Reply:
    pending = _verification(conversation, order_id, order, "reschedule")
    if pending is not None:
        return pending
    day = next(
        (
            d
            for t in reversed(conversation.user_turns)
            if (d := habits.read_date(t, conversation.today))
        ),
        None,
    )
    if day is None:
        return say(
            f"Which day would you like order {order_id} delivered instead? We deliver Monday"
            " to Saturday."
        )
    attempts = conversation.of("reschedule_delivery", order_id=order_id, new_date=day.isoformat())
    if not attempts:
        return call(
            conversation, "reschedule_delivery", order_id=order_id, new_date=day.isoformat()
        )
    if attempts[-1].ok:
        return say(
            f"Done: the delivery of order {order_id} has been rescheduled to {spelled(day)}."
        )
    return say(f"I couldn't reschedule order {order_id}: {error_text(attempts[-1])}.")
