"""Traces with every kind of component call, built by hand: a retrieval, a sub-agent that calls
tools, model calls, as an instrumented multi-agent app records them."""

from __future__ import annotations

from typing import Any

import orjson

from trailcheck.trace import (
    Message,
    MessageToolCall,
    ModelInvocation,
    Span,
    SpanEvent,
    Status,
    ToolInvocation,
    Trace,
    Usage,
)

ORIGIN = 1_700_000_000_000_000_000
MS = 1_000_000

ORDER_TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "name": "lookup_order",
        "parameters": {
            "type": "object",
            "properties": {"order_id": {"type": "string", "pattern": "^A-[0-9]+$"}},
            "required": ["order_id"],
            "additionalProperties": False,
        },
        "output_schema": {
            "type": "object",
            "properties": {"status": {"enum": ["open", "delivered"]}},
            "required": ["status"],
        },
    },
    {"name": "issue_refund", "input_schema": {"type": "object", "required": ["order_id"]}},
    {
        "name": "billing",
        "parameters": {"type": "object"},
        "result_schema": {
            "type": "object",
            "properties": {"refunded": {"type": "boolean"}},
            "required": ["refunded"],
        },
    },
]


def span(
    span_id: str,
    kind: Any,
    start_ms: int,
    *,
    parent: str | None = "root",
    name: str | None = None,
    duration_ms: int = 10,
    **fields: Any,
) -> Span:
    return Span(
        trace_id=fields.pop("trace_id", "t1"),
        span_id=span_id,
        parent_id=parent,
        name=name or span_id,
        kind=kind,
        start_ns=ORIGIN + start_ms * MS,
        end_ns=ORIGIN + (start_ms + duration_ms) * MS,
        **fields,
    )


def tool(
    span_id: str,
    name: str,
    arguments: dict[str, Any],
    start_ms: int,
    *,
    parent: str = "root",
    result: Any = None,
    error: str | None = None,
    duration_ms: int = 10,
    trace_id: str = "t1",
) -> Span:
    return span(
        span_id,
        "tool",
        start_ms,
        parent=parent,
        name=f"execute_tool {name}",
        duration_ms=duration_ms,
        trace_id=trace_id,
        status=Status(code="error", message=error) if error else Status(),
        tool=ToolInvocation(
            name=name,
            arguments=arguments,
            result=None if result is None else orjson.dumps(result).decode(),
            error=error,
        ),
    )


def multi_agent_trace(trace_id: str = "t1", *, refund_output: Any = None) -> Trace:
    """A support agent that retrieves the refund policy, asks a model (JSON output), looks an
    order up with a bad id, and hands the refund to a billing sub-agent, which calls
    issue_refund (it fails) and lookup_order (it works), and answers ``refund_output``."""
    output = {"refunded": False} if refund_output is None else refund_output
    spans = [
        span(
            "root",
            "agent",
            0,
            parent=None,
            name="invoke_agent support",
            duration_ms=200,
            trace_id=trace_id,
        ),
        span(
            "retrieve-1",
            "retriever",
            1,
            name="retrieval",
            trace_id=trace_id,
            attributes={
                "gen_ai.retrieval.query.text": "refund policy",
                "gen_ai.data_source.id": "policies",
                "gen_ai.retrieval.documents": orjson.dumps(
                    [{"id": "doc-1", "score": 0.9}, {"id": "doc-7", "score": 0.5}]
                ).decode(),
            },
        ),
        span(
            "chat-1",
            "llm",
            12,
            name="chat gpt-x",
            trace_id=trace_id,
            attributes={"gen_ai.output.type": "json"},
            llm=ModelInvocation(
                model="gpt-x",
                output_messages=[Message(role="assistant", content='{"plan": "refund"}')],
                usage=Usage(input_tokens=120, output_tokens=30, cost_usd=0.002),
            ),
        ),
        tool(
            "lookup-1",
            "lookup_order",
            {"order_id": "12"},
            30,
            result={"status": "open"},
            trace_id=trace_id,
        ),
        span(
            "billing",
            "agent",
            50,
            name="invoke_agent billing",
            duration_ms=100,
            trace_id=trace_id,
            attributes={
                "gen_ai.agent.name": "billing",
                "output.value": orjson.dumps(output).decode(),
            },
        ),
        tool(
            "refund-1",
            "issue_refund",
            {"order_id": "A-12"},
            60,
            parent="billing",
            error="RefundError: order A-12 cannot be refunded",
            trace_id=trace_id,
        ),
        tool(
            "lookup-2",
            "lookup_order",
            {"order_id": "A-12"},
            80,
            parent="billing",
            result={"status": "lost"},
            trace_id=trace_id,
        ),
        span(
            "chat-2",
            "llm",
            160,
            name="chat gpt-x",
            trace_id=trace_id,
            status=Status(code="error", message="rate limited"),
            events=[
                SpanEvent(
                    name="exception",
                    time_ns=ORIGIN + 165 * MS,
                    attributes={"exception.type": "RateLimitError"},
                )
            ],
            llm=ModelInvocation(
                model="gpt-x",
                output_messages=[
                    Message(
                        role="assistant",
                        tool_calls=[
                            MessageToolCall(
                                name="lookup_order", arguments={"_raw_arguments": "{order"}
                            )
                        ],
                    )
                ],
            ),
        ),
        span("guard-1", "guard", 180, trace_id=trace_id),
    ]
    return Trace(trace_id=trace_id, spans=spans, metadata={"tool_declarations": ORDER_TOOLS})
