"""The trace model: what an agent did, whatever produced the record."""

from trailcheck.trace.canonical import canonical_json
from trailcheck.trace.finding import Finding, Severity
from trailcheck.trace.kinds import Role, SpanKind, StatusCode
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
from trailcheck.trace.tree import SpanTree
from trailcheck.trace.usage import summed_usage

__all__ = [
    "Finding",
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
    "Usage",
    "canonical_json",
    "parse_json_text",
    "summed_usage",
]
