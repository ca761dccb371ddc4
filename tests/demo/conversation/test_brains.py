"""The conversation brains on their own: what they read in the customer's words, and where v1
and v2 part on the same conversation."""

from __future__ import annotations

import json

from trailcheck.demo.conversation import v1_brain, v2_brain
from trailcheck.demo.conversation.brains import named_amount
from trailcheck.demo.support.flows import ASK_ORDER_ID
from trailcheck.trace import Message, MessageToolCall

ORDER = {
    "order_id": "A-1007",
    "customer_id": "C-400",
    "items": [
        {"name": "The Overstory", "category": "books", "price": 18.0},
        {"name": "Braiding Sweetgrass", "category": "books", "price": 24.0},
    ],
    "total": 42.0,
}
POLICY = {"order_id": "A-1007", "refundable": True, "max_refund": 42.0, "reasons": []}


def _looked_up(*user_turns: str) -> list[Message]:
    """The customer's turns, then the lookup and the policy check with their results."""
    calls = [("lookup_order", ORDER), ("check_refund_policy", POLICY)]
    said = [Message(role="user", content=turn) for turn in user_turns]
    for number, (name, result) in enumerate(calls, 1):
        call = MessageToolCall(id=f"call_{number}", name=name, arguments={"order_id": "A-1007"})
        said.append(Message(role="assistant", tool_calls=[call]))
        said.append(Message(role="tool", tool_call_id=call.id, content=json.dumps(result)))
    return said


def test_the_amount_named_last_wins() -> None:
    assert named_amount(["I paid $24 for it.", "Sorry, $18.50."]) == 18.5
    assert named_amount(["It arrived broken."]) is None


def test_both_ask_for_the_order_id_in_the_same_words() -> None:
    opening = [Message(role="user", content="The Overstory arrived torn. I want my $24 back.")]
    assert v1_brain(opening).text == v2_brain(opening).text == ASK_ORDER_ID


def test_v1_refunds_what_was_named_where_v2_asks_for_a_proof_then_offers_the_price() -> None:
    said = _looked_up("The Overstory arrived torn. I want my $24 back.", "It's A-1007.")
    [refund] = v1_brain(said).tool_calls
    assert (refund.name, refund.arguments["amount"]) == ("issue_refund", 24.0)
    assert "last four digits" in (v2_brain(said).text or "")
    proven = [*said, Message(role="user", content="My card ends in 5150.")]
    [verify] = v2_brain(proven).tool_calls
    assert verify.arguments == {"order_id": "A-1007", "proof": "5150"}
    verified = [
        *proven,
        Message(role="assistant", tool_calls=[verify]),
        Message(
            role="tool",
            tool_call_id=verify.id,
            content=json.dumps({"verified": True, "order_id": "A-1007", "customer_id": "C-400"}),
        ),
    ]
    offer = v2_brain(verified).text or ""
    assert offer.startswith("The Overstory cost $18.00 on order A-1007, not $24.00")
    declined = [*verified, Message(role="user", content="Then don't refund it.")]
    assert (v2_brain(declined).text or "").startswith("All right: I haven't refunded anything")
    agreed = [*verified, Message(role="user", content="Oh, right: $18 then.")]
    [refund] = v2_brain(agreed).tool_calls
    assert refund.arguments["amount"] == 18.0
