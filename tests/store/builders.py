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


def shifted(trace: Trace, seconds: int) -> Trace:
    """``trace`` with every span moved ``seconds`` later."""
    step = seconds * 10**9
    spans = [
        span.model_copy(
            update={
                "start_ns": span.start_ns + step,
                "end_ns": None if span.end_ns is None else span.end_ns + step,
            }
        )
        for span in trace.spans
    ]
    return Trace.model_validate({**trace.model_dump(), "spans": [s.model_dump() for s in spans]})


def turn(trace_id: str, at_s: int, **metadata: object) -> Trace:
    """One turn of a conversation, starting ``at_s`` seconds after the builder's origin, with
    ``metadata`` (``conversation_id=...``, ``session_id=...``)."""
    trace = (
        TraceBuilder(trace_id, input=f"turn {trace_id}")
        .tool("lookup_order", {"order_id": "A-1"}, result={"status": "delivered"})
        .output("Delivered.")
        .metadata(**metadata)
        .build()
    )
    return shifted(trace, at_s)
