"""A graded trace with W3C ids, for the telemetry tests: whose input and answer must never be
exported."""

from __future__ import annotations

from trailcheck.trace import Span, Trace
from trailcheck.trace.span import ToolInvocation

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
ROOT_ID = "00f067aa0ba902b7"
TOOL_ID = "00f067aa0ba902b8"
INPUT = "Please refund order A-1, my card ends 4242"
ANSWER = "Your refund of $129.00 has been issued, ref 88812."


def hex_trace() -> Trace:
    """An agent root span and one tool call under it (listed first, so order does not decide
    the root)."""
    root = Span(
        trace_id=TRACE_ID, span_id=ROOT_ID, name="invoke_agent shop", kind="agent", start_ns=1
    )
    tool = Span(
        trace_id=TRACE_ID,
        span_id=TOOL_ID,
        parent_id=ROOT_ID,
        name="execute_tool issue_refund",
        kind="tool",
        start_ns=2,
        end_ns=3,
        tool=ToolInvocation(name="issue_refund", arguments={"order_id": "A-1"}, result="ok"),
    )
    return Trace(
        trace_id=TRACE_ID,
        input=INPUT,
        final_output=ANSWER,
        spans=[tool, root],
        metadata={"case_id": "refund"},
    )
