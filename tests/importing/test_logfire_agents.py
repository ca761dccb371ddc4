"""Logfire's OpenAI Agents spans (:mod:`trailcheck.importing.shapes.logfire_agents`), built as
OTLP/JSON
shaped like the recording openai-agents-0.24.0-logfire-5.4.0."""

from __future__ import annotations

import json
from typing import Any

import orjson

from trailcheck.importing.otlp import decode_otlp_json
from trailcheck.trace import Trace
from trailcheck.trace.unread import unread_parts

TRACE_ID = "0af7651916cd43dd8448eb211c80319c"
SCOPE = "logfire.openai_agents"
SYSTEM = {"role": "system", "content": "You are the support agent of a small web shop."}
USER = {"role": "user", "content": "Where is order A-1001?"}
LOOKUP_CALL = {
    "id": "call_lookup_1",
    "type": "function",
    "function": {"name": "lookup_order", "arguments": '{"order_id": "A-1001"}'},
}
ORDER = {"order_id": "A-1001", "status": "delivered", "total": 129.0}
ANSWER = "Order A-1001 was delivered."
MODEL = "scripted-shop-1"


def value(item: Any) -> dict[str, Any]:
    if isinstance(item, bool):
        return {"boolValue": item}
    if isinstance(item, int):
        return {"intValue": str(item)}
    return {"stringValue": item if isinstance(item, str) else json.dumps(item)}


def span(
    span_id: str,
    parent: str | None,
    template: str,
    start: int,
    scope: str = SCOPE,
    status: dict[str, Any] | None = None,
    **attributes: Any,
) -> tuple[str, dict[str, Any]]:
    """A span as logfire writes it: named by its template, with code location and bookkeeping."""
    recorded = {
        "code.filepath": "app.py",
        "code.function": "main",
        "code.lineno": 10,
        "logfire.msg_template": template,
        "logfire.span_type": "span",
        **attributes,
    }
    body: dict[str, Any] = {
        "traceId": TRACE_ID,
        "spanId": span_id,
        "name": template,
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(start + 100),
        "kind": "SPAN_KIND_INTERNAL",
        "attributes": [{"key": key, "value": value(item)} for key, item in recorded.items()],
        "status": status or {},
    }
    if parent is not None:
        body["parentSpanId"] = parent
    return scope, body


def chat(
    span_id: str, parent: str, start: int, messages: list[Any], output: Any, tokens: int
) -> tuple[str, dict[str, Any]]:
    return span(
        span_id,
        parent,
        "Chat completion with {gen_ai.request.model!r}",
        start,
        **{
            "logfire.tags": ["LLM"],
            "input": messages,
            "output": [output],
            "model_config": {"temperature": None},
            "usage": {"requests": 1, "input_tokens": tokens, "output_tokens": 10},
            "gen_ai.system": "openai",
            "gen_ai.request.model": MODEL,
            "gen_ai.response.model": MODEL,
            "request_data": {"messages": [*messages, output], "model": MODEL},
            "gen_ai.usage.input_tokens": tokens,
            "gen_ai.usage.output_tokens": 10,
            "logfire.msg": f"Chat completion with {MODEL!r}",
        },
    )


def assistant(content: str | None = None, tool_calls: list[Any] | None = None) -> dict[str, Any]:
    """An output message as the SDK dumps a ChatCompletionMessage."""
    return {
        "content": content,
        "refusal": None,
        "role": "assistant",
        "annotations": None,
        "audio": None,
        "function_call": None,
        "tool_calls": tool_calls,
    }


def function(
    span_id: str, parent: str, start: int, name: str, arguments: str, output: Any, **extra: Any
) -> tuple[str, dict[str, Any]]:
    return span(
        span_id,
        parent,
        "Function: {name}",
        start,
        name=name,
        input=arguments,
        output=output,
        mcp_data="null",
        **{"gen_ai.system": "openai", "logfire.msg": f"Function: {name}", **extra},
    )


def run(*tool_spans: tuple[str, dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """A run: the SDK's trace span, the agent, two turns (a model call asking for lookup_order
    and ``tool_spans``; then the answer), as logfire nests them."""
    tool_message = {"role": "tool", "tool_call_id": "call_lookup_1", "content": json.dumps(ORDER)}
    asked = {"role": "assistant", "content": None, "tool_calls": [LOOKUP_CALL]}
    return [
        span(
            "a000000000000001",
            None,
            "OpenAI Agents trace: {name}",
            1000,
            name="support",
            metadata="null",
            agent_trace_id="trace_ca3d",
            group_id="session-ana-1",
        ),
        span(
            "a000000000000002",
            "a000000000000001",
            "Agent run: {name!r}",
            1100,
            name="support",
            handoffs=[],
            tools=["lookup_order"],
            output_type="str",
        ),
        turn("a000000000000003", 1, 1200),
        chat(
            "a000000000000004",
            "a000000000000003",
            1300,
            [SYSTEM, USER],
            assistant(None, [LOOKUP_CALL]),
            100,
        ),
        *tool_spans,
        turn("a000000000000006", 2, 1500),
        chat(
            "a000000000000007",
            "a000000000000006",
            1600,
            [SYSTEM, USER, asked, tool_message],
            assistant(ANSWER),
            150,
        ),
    ]


def turn(span_id: str, number: int, start: int) -> tuple[str, dict[str, Any]]:
    return span(
        span_id,
        "a000000000000002",
        "Turn {turn} for agent support",
        start,
        type="custom",
        name="turn",
        sdk_span_type="turn",
        turn=number,
        agent_name="support",
        usage={"input_tokens": 100, "output_tokens": 10},
    )


def lookup(output: Any = None, **extra: Any) -> tuple[str, dict[str, Any]]:
    recorded = json.dumps(ORDER, separators=(",", ":")) if output is None else output
    return function(
        "a000000000000005",
        "a000000000000003",
        1400,
        "lookup_order",
        '{"order_id": "A-1001"}',
        recorded,
        **extra,
    )


def imported(spans: list[tuple[str, dict[str, Any]]]) -> Trace:
    by_scope: dict[str, list[dict[str, Any]]] = {}
    for scope, body in spans:
        by_scope.setdefault(scope, []).append(body)
    document = {
        "resourceSpans": [
            {
                "scopeSpans": [
                    {"scope": {"name": scope, "version": "5.4.0"}, "spans": bodies}
                    for scope, bodies in by_scope.items()
                ]
            }
        ]
    }
    (trace,) = decode_otlp_json(orjson.dumps(document), "in.json")
    assert isinstance(trace, Trace), trace
    return trace


def test_a_run_reads_its_calls_answer_input_tokens_model_and_session() -> None:
    trace = imported(run(lookup()))
    (call,) = trace.tool_calls
    assert (call.name, call.arguments, call.result, call.error) == (
        "lookup_order",
        {"order_id": "A-1001"},
        ORDER,
        None,
    )
    assert call.call_id == "call_lookup_1"  # from the model's request: logfire records none
    # The result as recorded stays on the span: JSON text, unwrapped only for graders.
    assert call.recorded_result == '{"order_id":"A-1001","status":"delivered","total":129.0}'
    assert trace.input_text == USER["content"]
    assert trace.final_text == ANSWER
    assert trace.usage is not None
    assert (trace.usage.input_tokens, trace.usage.output_tokens) == (250, 20)
    assert {s.llm.model for s in trace.spans if s.llm is not None} == {MODEL}
    assert trace.metadata["session_id"] == "session-ana-1"
    assert trace.metadata["agent_name"] == "support"
    kinds = {s.name: s.kind for s in trace.spans}
    assert kinds["Agent run: {name!r}"] == "agent"
    assert kinds["Function: {name}"] == "tool"
    assert kinds["Turn {turn} for agent support"] == "other"
    assert unread_parts(trace.metadata) == []


def test_a_failed_function_is_a_failed_call_with_the_tools_message() -> None:
    error = {
        "message": "Error running tool (non-fatal)",
        "data": {"tool_name": "lookup_order", "error": "order A-1001 not found"},
    }
    failed = lookup(
        "Error: order A-1001 not found",
        status={"code": "STATUS_CODE_ERROR"},
        error=error,
        **{"logfire.level_num": 17},
    )
    (call,) = imported(run(failed)).tool_calls
    assert call.error == "order A-1001 not found"
    assert not call.succeeded


def test_a_failed_function_without_the_sdks_error_is_still_failed() -> None:
    failed = lookup("Error: boom", status={"code": "STATUS_CODE_ERROR", "message": "boom"})
    (call,) = imported(run(failed)).tool_calls
    assert call.error == "boom"


def test_an_unknown_attribute_is_kept_and_named_in_the_reading_report() -> None:
    trace = imported(run(lookup(retries=2)))
    (call,) = trace.tool_calls
    assert call.result == ORDER  # the call still reads
    tool_span = next(s for s in trace.spans if s.kind == "tool")
    assert tool_span.attributes["retries"] == 2
    (part,) = unread_parts(trace.metadata)
    assert part["span_id"] == tool_span.span_id
    assert part["field"] == "attributes.retries"


def test_a_span_type_without_a_row_is_reported_and_left_to_the_conventions() -> None:
    responses = span(
        "a000000000000005",
        "a000000000000003",
        "Responses API with {gen_ai.request.model!r}",
        1400,
        **{
            "gen_ai.operation.name": "chat",
            "gen_ai.response.model": MODEL,
            "events": [{"event.name": "gen_ai.user.message", "content": "hi"}],
        },
    )
    trace = imported(run(responses))
    read = next(s for s in trace.spans if s.span_id == "a000000000000005")
    assert read.kind == "llm"
    assert read.llm is not None
    assert read.llm.model == MODEL
    (part,) = unread_parts(trace.metadata)
    assert part["span_id"] == read.span_id
    assert "Responses API" in part["reason"]


def test_a_function_span_without_a_tool_name_is_noted_not_a_call() -> None:
    nameless = function(
        "a000000000000005", "a000000000000003", 1400, "", '{"order_id": "A-1001"}', "{}"
    )
    trace = imported(run(nameless))
    assert trace.tool_calls[0].source == "message"  # only the model's request is left
    assert [p["field"] for p in unread_parts(trace.metadata)] == ["attributes.name"]


def test_the_same_attributes_under_another_scope_are_not_read_as_logfire() -> None:
    other = lookup()
    trace = imported(run(("some.other.scope", other[1])))
    stranger = next(s for s in trace.spans if s.span_id == "a000000000000005")
    assert stranger.kind == "other"
    assert stranger.tool is None
    assert unread_parts(trace.metadata) == []
