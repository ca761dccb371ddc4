"""The support flows a scripted brain follows: status, order search, refunds and reschedules.

:func:`next_step` reads the conversation and returns the next reply: one tool call, or the
answer for this turn. Where the two brains differ, it asks their :class:`Habits`; everything
else (the wording, the order of the calls) is shared, so a difference in a run is a difference
in habits. Answers quote only what the tools returned or the customer said, with dates written
out, so that the grounding scorer can check each figure.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Any

from trailcheck.demo.support.conversation import Conversation, Outcome
from trailcheck.demo.support.parsing import asks_for_latest
from trailcheck.models import Reply
from trailcheck.trace import MessageToolCall

OrderInfo = dict[str, Any]
_TRANSIENT = re.compile(
    r"rate.?limit|too many requests|unavailable|timed?.?out|try again|retry", re.IGNORECASE
)
# What a brain that misreads results takes for a failure in a successful one.
_ERROR_WORDS = re.compile(r"\berror|\bfail", re.IGNORECASE)
ASK_ORDER_ID = "I can help with that. What is your order number? It is in your confirmation email."
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
    follow_pages: bool
    confirm_near_matches: bool
    error_words_mean_failure: bool
    recheck_past_estimates: bool

    def read_as_done(self, outcome: Outcome) -> bool:
        """Whether the brain takes ``outcome`` for a success: an error never is, and with
        ``error_words_mean_failure`` neither is a result that mentions one."""
        if not outcome.ok:
            return False
        return not (
            self.error_words_mean_failure and _ERROR_WORDS.search(json.dumps(outcome.result))
        )


@dataclass(frozen=True, slots=True)
class SearchPage:
    """One page of ``search_orders``: the account it matched, its orders, the page after."""

    account: str | None
    orders: list[OrderInfo]
    next_page: int | None

    @classmethod
    def read(cls, result: Any) -> SearchPage:
        """A page as the tool returns it; a bare list is one page of orders, with no account."""
        if isinstance(result, list):
            return cls(None, [o for o in result if isinstance(o, dict)], None)
        page = result if isinstance(result, dict) else {}
        orders = page.get("orders")
        following = page.get("next_page")
        account = page.get("customer_email")
        return cls(
            account if isinstance(account, str) else None,
            [o for o in orders if isinstance(o, dict)] if isinstance(orders, list) else [],
            following if isinstance(following, int) and not isinstance(following, bool) else None,
        )


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
        if not conversation.email:
            return say(ASK_ORDER_ID)
        found = _orders(conversation, conversation.email, habits)
        if isinstance(found, Reply):
            return found
        order_id = found
    order = looked_up(conversation, order_id, habits)
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


def _done(conversation: Conversation, habits: Habits, name: str, **arguments: Any) -> list[Outcome]:
    """The calls of ``name`` with ``arguments`` that the brain reads as successes, oldest first."""
    return [o for o in conversation.of(name, **arguments) if habits.read_as_done(o)]


def _past_estimate(order: OrderInfo, today: date) -> bool:
    """Whether an order on its way is expected on a day already gone: a stale record."""
    expected = order.get("expected_delivery")
    try:
        return order.get("status") != "delivered" and date.fromisoformat(str(expected)) < today
    except ValueError:
        return False


def looked_up(conversation: Conversation, order_id: str, habits: Habits) -> OrderInfo | Reply:
    """The order, once looked up; else the lookup to make, or the answer when it failed."""
    found = _done(conversation, habits, "lookup_order", order_id=order_id)
    if found:
        order: OrderInfo = found[-1].result if isinstance(found[-1].result, dict) else {}
        if habits.recheck_past_estimates and _past_estimate(order, conversation.today):
            if len(found) < 2:  # a stale record: read it again, once
                return call(conversation, "lookup_order", order_id=order_id)
            return {**order, "expected_delivery": None}  # still stale: no date to give
        return order
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


def _orders(conversation: Conversation, email: str, habits: Habits) -> Reply | str:
    """The order the customer means, found by their email: the id of their latest order when
    they asked about it; else the next call, or the answer (their orders, or a question)."""
    outcomes = _done(conversation, habits, "search_orders", customer_email=email)
    if not outcomes:
        if not conversation.of("search_orders", this_turn=True, customer_email=email):
            return call(conversation, "search_orders", customer_email=email)
        return say("I'm sorry, I couldn't search for your orders just now. Please try again.")
    pages = [SearchPage.read(outcome.result) for outcome in outcomes]
    account = pages[0].account
    if habits.confirm_near_matches and account is not None and account != email.lower():
        return say(
            f"I couldn't find an account under exactly {email}; the closest match is another"
            " address, so I haven't looked at its orders. Could you check the email on your"
            " account, or give me the order number from your confirmation email?"
        )
    following = pages[-1].next_page
    asked = following is not None and conversation.of(
        "search_orders", customer_email=email, page=following
    )
    if habits.follow_pages and following is not None and not asked:
        return call(conversation, "search_orders", customer_email=email, page=following)
    orders = [order for page in pages for order in page.orders]
    if not orders:
        return say(
            f"I couldn't find any orders under {email}. Could you give me the order number"
            " from your confirmation email?"
        )
    if asks_for_latest(conversation.user_turns):
        latest = max(orders, key=lambda o: (str(o.get("order_date")), str(o.get("order_id"))))
        return str(latest.get("order_id"))
    listed = "; ".join(f"{o.get('order_id')} ({o.get('status')})" for o in orders)
    return say(f"I found these orders under {email}: {listed}. Which one can I help with?")


def verification(
    conversation: Conversation, order_id: str, order: OrderInfo, action: str, habits: Habits
) -> Reply | None:
    """``None`` once the order's owner is verified; else the call or question that is next."""
    customer = order.get("customer_id")
    for outcome in conversation.of("verify_identity"):
        result = outcome.result if isinstance(outcome.result, dict) else {}
        if habits.read_as_done(outcome) and (
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
        pending = verification(conversation, order_id, order, "refund", habits)
        if pending is not None:
            return pending
    checked = next(
        reversed(_done(conversation, habits, "check_refund_policy", order_id=order_id)), None
    )
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
    if habits.read_as_done(attempt) or not habits.report_refund_failures:
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
    pending = verification(conversation, order_id, order, "reschedule", habits)
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
    if habits.read_as_done(attempts[-1]):
        return say(
            f"Done: the delivery of order {order_id} has been rescheduled to {spelled(day)}."
        )
    return say(f"I couldn't reschedule order {order_id}: {error_text(attempts[-1])}.")
