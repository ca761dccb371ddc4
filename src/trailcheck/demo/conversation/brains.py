"""Two scripted brains for a refund conversation: v1 refunds before asking, v2 asks.

The customer of a conversation case asks for a refund without the order id (they give it only
when asked), and may name an amount that is not what they paid, or change their mind once told
what the shop can refund. Both brains ask for the order id in the support brains' own words
(:data:`~trailcheck.demo.support.flows.ASK_ORDER_ID`, so a replayed user meets the very same
question) and look the order up. Then they part:

- **v1 refunds before asking**: it checks the policy and refunds at once, with no proof of
  identity, the amount the customer named (the most the policy allows when they named none),
  without telling them what the order cost. A customer who would have changed their mind never
  gets the chance.
- **v2 asks**: once the policy allows a refund, for a proof of identity, which it verifies;
  then it says what it can refund (the price of the item the customer named, else the order's total,
  at most what the policy allows, and the amount they named when that differs) and refunds only
  once the customer agrees. A customer who declines gets no refund, and is told so.

A brain is a pure function of the messages, like the support brains
(:mod:`trailcheck.demo.support.brains`), and reads them with the same
:func:`~trailcheck.demo.support.conversation.read_conversation`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Final

from trailcheck.demo.support.brains import V2_HABITS
from trailcheck.demo.support.conversation import Conversation, read_conversation
from trailcheck.demo.support.flows import (
    ASK_ORDER_ID,
    OrderInfo,
    call,
    error_text,
    looked_up,
    say,
    verification,
)
from trailcheck.models import Reply, ToolDeclaration
from trailcheck.trace import Message

__all__ = ["declined", "named_amount", "v1_brain", "v2_brain"]

_AMOUNT: Final = re.compile(r"\$\s?(\d+(?:\.\d{1,2})?)")
_YES: Final = re.compile(r"^\W*(?:yes|yeah|yep|sure|ok(?:ay)?|please do|go ahead)\b", re.I)
_NO: Final = re.compile(
    r"\b(?:don'?t|do not)\s+refund|\bkeep (?:it|them|the)\b|\bnever ?mind\b|\bno,? thanks\b", re.I
)


def named_amount(texts: Sequence[str]) -> float | None:
    """The amount (``$24``, ``$18.50``) the customer named last, if any."""
    for text in reversed(texts):
        found = _AMOUNT.findall(text)
        if found:
            return float(found[-1])
    return None


def declined(conversation: Conversation) -> bool:
    """Whether the customer's latest turn says they no longer want the refund."""
    return conversation.turn > 0 and _NO.search(conversation.user_turns[-1]) is not None


def _agreed(conversation: Conversation, amount: float) -> bool:
    """Whether the customer's latest turn, after their first, agrees to refund ``amount``: a
    yes, or that very amount."""
    if conversation.turn == 0:
        return False
    latest = conversation.user_turns[-1]
    return _YES.search(latest) is not None or named_amount([latest]) == amount


def _named_item(order: OrderInfo, texts: Sequence[str]) -> dict[str, Any] | None:
    """The order's item the customer named, if they named one."""
    said = " ".join(texts).lower()
    items = order.get("items")
    if not isinstance(items, list):
        return None
    return next(
        (
            item
            for item in items
            if isinstance(item, dict) and str(item.get("name")).lower() in said
        ),
        None,
    )


def _refundable(conversation: Conversation, order_id: str) -> OrderInfo | Reply:
    """The policy's answer for the order; else its check to make, or the answer when it failed."""
    checked = conversation.of("check_refund_policy", order_id=order_id)
    if not checked:
        return call(conversation, "check_refund_policy", order_id=order_id)
    if not checked[-1].ok:
        return say(f"I couldn't check the refund policy for order {order_id} just now.")
    policy: OrderInfo = checked[-1].result if isinstance(checked[-1].result, dict) else {}
    if not policy.get("refundable"):
        reasons = "; ".join(map(str, policy.get("reasons") or ["the policy does not allow it"]))
        return say(f"I'm sorry, I can't refund order {order_id}: {reasons}.")
    return policy


def _offer(order_id: str, item: str | None, price: float, due: float, named: float | None) -> str:
    """What v2 says before refunding: what the item (or order) cost, what it can refund, and
    the amount the customer named when that differs."""
    what = f"{item} cost" if item is not None else "It cost"
    said = f"{what} ${price:.2f} on order {order_id}"
    if named is not None and named != price:
        said += f", not ${named:.2f}"
    if due < price:
        said += f"; the most I can refund here is ${due:.2f}."
    else:
        said += f", so ${due:.2f} is what I can refund."
    return f"{said} Shall I refund ${due:.2f} to the card you paid with?"


def _refund_answer(order_id: str, conversation: Conversation) -> str:
    attempt = conversation.of("issue_refund", order_id=order_id)[-1]
    if not attempt.ok:
        return (
            f"I'm sorry, the refund for order {order_id} did not go through: {error_text(attempt)}."
        )
    result = attempt.result if isinstance(attempt.result, dict) else {}
    amount = float(result.get("amount", attempt.arguments.get("amount", 0.0)))
    return (
        f"I've issued your refund of ${amount:.2f} for order {order_id}"
        f" (refund {result.get('refund_id')}). It goes back to the card you paid with."
    )


def next_step(conversation: Conversation, *, asks: bool) -> Reply:
    """The next reply of v2 (``asks``) or v1: a tool call, or this turn's answer."""
    order_id = conversation.order_id
    if order_id is None:
        return say(ASK_ORDER_ID)
    order = looked_up(conversation, order_id, V2_HABITS)
    if isinstance(order, Reply):
        return order
    if conversation.of("issue_refund", order_id=order_id):
        return say(_refund_answer(order_id, conversation))
    if declined(conversation):
        return say(
            f"All right: I haven't refunded anything for order {order_id}, and nothing has"
            " changed on it."
        )
    policy = _refundable(conversation, order_id)
    if isinstance(policy, Reply):
        return policy
    if asks:
        pending = verification(conversation, order_id, order, "refund", V2_HABITS)
        if pending is not None:
            return pending
    item = _named_item(order, conversation.user_turns)
    price = float(item["price"]) if item is not None else float(order.get("total") or 0.0)
    due = min(price, float(policy.get("max_refund") or 0.0))
    named = named_amount(conversation.user_turns)
    if asks and not _agreed(conversation, due):
        name = None if item is None else str(item.get("name"))
        return say(_offer(order_id, name, price, due, named))
    amount = due if asks or named is None else named
    return call(
        conversation, "issue_refund", order_id=order_id, amount=amount, reason="customer request"
    )


def v1_brain(messages: Sequence[Message], tools: Sequence[ToolDeclaration] = ()) -> Reply:
    """Refunds before asking (see the module docstring)."""
    return next_step(read_conversation(messages), asks=False)


def v2_brain(messages: Sequence[Message], tools: Sequence[ToolDeclaration] = ()) -> Reply:
    """Asks for a proof of identity and the customer's agreement to the amount, then refunds."""
    return next_step(read_conversation(messages), asks=True)
