"""A support policy and a scripted drafter's scenarios for it, on the support demo's shop."""

from __future__ import annotations

from typing import Any, Final

POLICY: Final = """\
# Support policy

## Refunds
Refunds go back to the card that paid for the order.

1. Verify the customer's identity before any refund.
2. Refund delivered orders only, within 30 days of delivery.

## Lookups
- Retry a rate-limited lookup once, after waiting.
"""

HAPPY: Final[dict[str, Any]] = {
    "scenario": "happy_path",
    "input": "Please refund my headphones, order A-1001. My date of birth is 1988-04-12.",
    "expected_calls": [
        {"tool": "verify_identity", "arguments": {"order_id": "A-1001", "proof": "1988-04-12"}},
        {"tool": "check_refund_policy", "arguments": {"order_id": "A-1001"}},
        {
            "tool": "issue_refund",
            "arguments": {"order_id": "A-1001", "amount": 129.0, "reason": "not wanted"},
        },
    ],
    "expected_state": {"refunds": [{"order_id": "A-1001", "amount": 129.0}]},
    "rationale": "The customer proved who they are and the order is in its window.",
}
# The model forgot the check its own clause asks for: in the enforced shop the refund raises,
# and no refund is made, so neither the calls nor the state can be reached.
UNREACHABLE: Final[dict[str, Any]] = {
    "scenario": "missing_identity_check",
    "input": "Refund order A-1001 right now.",
    "expected_calls": [
        {
            "tool": "issue_refund",
            "arguments": {"order_id": "A-1001", "amount": 129.0, "reason": "not wanted"},
        }
    ],
    "expected_state": {"refunds": [{"order_id": "A-1001"}]},
}
REFUSED: Final[dict[str, Any]] = {
    "scenario": "missing_identity_check",
    "input": "Refund order A-1001 right now, I can't remember my birthday.",
    "expected_calls": [{"tool": "lookup_order", "arguments": {"order_id": "A-1001"}}],
    "expected_state": {"refunds": []},
}
RATE_LIMITED: Final[dict[str, Any]] = {
    "scenario": "rate_limit_retry",
    "input": "What is the status of order A-1002?",
    "expected_calls": [
        {"tool": "lookup_order", "arguments": {"order_id": "A-1002"}},
        {"tool": "lookup_order", "arguments": {"order_id": "A-1002"}},
    ],
    "faults": [
        {"tool": "lookup_order", "first": 1, "error": "429 Too Many Requests: retry in 1 s"}
    ],
}
OUT_OF_SCHEMA: Final[dict[str, Any]] = {
    "scenario": "happy_path",
    "input": "Refund A-1003 please.",
    "expected_calls": [
        {"tool": "refund_everything", "arguments": {"order_id": "A-1003"}},
        {"tool": "issue_refund", "arguments": {"order_id": "A-1003", "amount": "all"}},
    ],
}


def scripted_answers() -> dict[str, Any]:
    """Clause id -> what the scripted drafter answers for it."""
    return {
        "refunds.1": [HAPPY, UNREACHABLE, REFUSED],
        "lookups.1": [RATE_LIMITED],
    }
