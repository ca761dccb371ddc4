"""The trace model: what an agent did, whatever produced the record."""

from trailcheck.trace.canonical import canonical_json
from trailcheck.trace.finding import Finding, Severity
from trailcheck.trace.kinds import Role, SpanKind, StatusCode
from trailcheck.trace.lean import LeanTrace
from trailcheck.trace.lean_decode import decode_lean_trace
from trailcheck.trace.messages import Message, MessageToolCall
from trailcheck.trace.span import (
    ModelInvocation,
    Span,
    SpanEvent,
    Status,
    ToolInvocation,
    Usage,
)
from trailcheck.trace.tool_calls import ToolCall, parse_json_text
from trailcheck.trace.trace import Trace
from trailcheck.trace.trace_view import TraceView
from trailcheck.trace.tree import SpanTree
from trailcheck.trace.usage import summed_usage

__all__ = [
    "Finding",
    "LeanTrace",
    "Message",
    "MessageToolCall",
    "ModelInvocation",
    "Role",
    "Severity",
    "Span",
    "SpanEvent",
    "SpanKind",
    "SpanTree",
    "Status",
    "StatusCode",
    "ToolCall",
    "ToolInvocation",
    "Trace",
    "TraceView",
    "Usage",
    "canonical_json",
    "decode_lean_trace",
    "parse_json_text",
    "summed_usage",
]
