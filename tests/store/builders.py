"""Traces for the store's tests, built with trailcheck.testing's TraceBuilder."""

from __future__ import annotations

from trailcheck.testing import TraceBuilder
from trailcheck.trace import Trace


def refund_trace(trace_id: str, *, order: str = "A-1", answer: str = "Refunded.") -> Trace:
    """A support-shop trace: look the order up, refund it, answer."""
    return (
        TraceBuilder(trace_id, input=f"Please refund order {order}")
        .tool("lookup_order", {"order_id": order}, result={"status": "delivered"})
        .llm("calling issue_refund")
        .tool("issue_refund", {"order_id": order}, result={"refunded": True})
        .output(answer)
        .build()
    )


def lookup_trace(trace_id: str) -> Trace:
    """A trace that only looks an order up."""
    return (
        TraceBuilder(trace_id, input="Where is my order?")
        .tool("lookup_order", {"order_id": "B-2"}, result={"status": "shipped"})
        .output("It has shipped.")
        .build()
    )
