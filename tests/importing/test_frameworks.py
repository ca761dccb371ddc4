"""Framework objects inside the standard attributes: LangChain tool messages, LangGraph state,
Google ADK's merged-tools span and its schema v1 attributes
(:mod:`trailcheck.importing.shapes.frameworks`)."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from trailcheck.errors import RecordError
from trailcheck.importing.assemble import assemble_trace
from trailcheck.importing.records import RawSpan
from trailcheck.importing.shapes.frameworks import (
    ADK_LLM_REQUEST,
    ADK_LLM_RESPONSE,
    ADK_TOOL_CALL_ARGS,
    ADK_TOOL_RESPONSE,
    LangChainToolMessage,
    adk_messages,
    langchain_tool_message,
    langgraph_answer,
    langgraph_input,
)
from trailcheck.importing.spans import map_span
from trailcheck.trace import Message, MessageToolCall, Span, semconv

SOURCE = "spans.jsonl"


def raw(
    span_id: str,
    attributes: dict[str, Any],
    *,
    parent_id: str | None = "root",
    name: str = "span",
    start: int = 10,
    status_code: Any = "unset",
) -> RawSpan:
    return RawSpan(
        trace_id="t1",
        span_id=span_id,
        parent_id=parent_id,
        name=name,
        start_ns=start,
        end_ns=start + 5,
        status_code=status_code,
        attributes=attributes,
    )


def agent_root(attributes: dict[str, Any] | None = None) -> RawSpan:
    return raw(
        "root",
        {semconv.OPENINFERENCE_SPAN_KIND: "CHAIN", **(attributes or {})},
        parent_id=None,
        name="LangGraph",
        start=0,
    )


def mapped(span: RawSpan) -> Span:
    return map_span(span, SOURCE)


def text(value: Any) -> str:
    return orjson.dumps(value).decode()


# --- LangChain tool message ------------------------------------------------------------------


def tool_message(content: str, call_id: str | None, status: str = "success") -> str:
    # As OpenInference's LangChain instrumentation serialises a ToolMessage.
    return text(
        {
            "type": "tool",
            "data": {
                "content": content,
                "additional_kwargs": {},
                "type": "tool",
                "name": "lookup_order",
                "id": None,
                "tool_call_id": call_id,
                "artifact": None,
                "status": status,
            },
        }
    )


def langchain_tool(output: str, **attributes: Any) -> RawSpan:
    return raw(
        "tool",
        {
            semconv.OPENINFERENCE_SPAN_KIND: "TOOL",
            semconv.TOOL_NAME: "lookup_order",
            semconv.INPUT_VALUE: "A-1",
            semconv.OUTPUT_VALUE: output,
            **attributes,
        },
        name="lookup_order",
    )


def test_a_langchain_tool_message_gives_the_result_and_call_id() -> None:
    span = mapped(langchain_tool(tool_message('{"status": "delivered"}', "call_1")))
    assert span.tool is not None
    assert (span.tool.name, span.tool.call_id, span.tool.result, span.tool.error) == (
        "lookup_order",
        "call_1",
        '{"status": "delivered"}',
        None,
    )


def test_a_langchain_tool_message_with_status_error_is_a_failed_call() -> None:
    output = tool_message("Error: order B-2 not found", "call_2", status="error")
    span = mapped(langchain_tool(output))
    assert span.tool is not None
    assert (span.tool.call_id, span.tool.result, span.tool.error) == (
        "call_2",
        "Error: order B-2 not found",
        "Error: order B-2 not found",
    )
    assert span.failed


def test_a_recorded_call_id_wins_over_the_tool_messages() -> None:
    output = tool_message("ok", "from_message")
    span = mapped(langchain_tool(output, **{semconv.TOOL_CALL_ID: "from_attribute"}))
    assert span.tool is not None
    assert span.tool.call_id == "from_attribute"


def test_a_tool_message_call_pairs_with_the_models_request_in_the_trace() -> None:
    request = [
        {"role": "user", "content": "Where is A-1?"},
        {
            "role": "assistant",
            "tool_calls": [
                {"id": "call_1", "function": {"name": "lookup_order", "arguments": '{"o": "A-1"}'}}
            ],
        },
    ]
    model = raw(
        "model",
        {semconv.GEN_AI_OPERATION_NAME: "chat", semconv.GEN_AI_OUTPUT_MESSAGES: text(request[1:])},
        start=5,
    )
    trace = assemble_trace(
        [agent_root(), model, langchain_tool(tool_message("shipped", "call_1"))], SOURCE
    )
    [call] = trace.tool_calls
    # The span records "A-1" (a bare value, no arguments object): the request supplies them.
    assert (call.call_id, call.span_id, call.arguments, call.result, call.from_messages) == (
        "call_1",
        "tool",
        {"o": "A-1"},
        "shipped",
        ("arguments",),
    )


@pytest.mark.parametrize(
    "value",
    [
        None,
        "shipped",
        "{not json",
        text({"type": "ai", "data": {"content": "x"}}),
        text({"type": "tool", "data": {"tool_call_id": "c1"}}),  # no content
        text({"type": "tool", "data": "content"}),
        {"type": "tool", "data": {"content": "structured", "tool_call_id": 7}},
    ],
)
def test_langchain_tool_message_reads_only_tool_messages(value: Any) -> None:
    expected = (
        LangChainToolMessage(content="structured", tool_call_id=None, failed=False)
        if isinstance(value, dict)
        else None
    )
    assert langchain_tool_message(value) == expected


def test_an_ordinary_output_value_stays_the_result() -> None:
    span = mapped(langchain_tool('{"status": "delivered"}'))
    assert span.tool is not None
    assert (span.tool.call_id, span.tool.result, span.tool.error) == (
        None,
        '{"status": "delivered"}',
        None,
    )


# --- LangGraph state at the root -------------------------------------------------------------


STATE_INPUT = text({"messages": [{"role": "user", "content": "Refund A-1"}]})
STATE_OUTPUT = text(
    {
        "messages": [
            {"type": "human", "data": {"content": "Refund A-1", "type": "human"}},
            {"type": "ai", "data": {"content": "", "tool_calls": [{"name": "lookup_order"}]}},
            {"type": "tool", "data": {"content": "delivered", "tool_call_id": "c1"}},
            {"type": "ai", "data": {"content": "Refunded.", "type": "ai"}},
        ]
    }
)


def test_a_langgraph_state_gives_the_traces_input_messages_and_answer() -> None:
    root = agent_root({semconv.INPUT_VALUE: STATE_INPUT, semconv.OUTPUT_VALUE: STATE_OUTPUT})
    trace = assemble_trace([root], SOURCE)
    assert trace.input == [Message(role="user", content="Refund A-1")]
    assert trace.final_output == "Refunded."


@pytest.mark.parametrize(
    "state",
    [
        {"messages": [{"role": "user", "content": "x"}], "thread": "t"},  # another key
        {"messages": []},
        {"messages": [{"role": "user", "content": "x", "id": "m1"}]},  # not {role, content}
        {"messages": [{"role": "human", "content": "x"}]},  # not a role
        {"messages": [{"role": "user", "content": ["parts"]}]},  # not text
    ],
)
def test_another_input_value_stays_the_traces_text_input(state: dict[str, Any]) -> None:
    assert langgraph_input(text(state)) is None
    trace = assemble_trace([agent_root({semconv.INPUT_VALUE: text(state)})], SOURCE)
    assert trace.input == text(state)


def test_a_final_state_ending_without_an_ai_answer_leaves_the_output_value_as_recorded() -> None:
    ends_in_tool = text({"messages": [{"type": "tool", "data": {"content": "delivered"}}]})
    assert langgraph_answer(ends_in_tool) is None
    trace = assemble_trace([agent_root({semconv.OUTPUT_VALUE: ends_in_tool})], SOURCE)
    assert trace.final_output == ends_in_tool


@pytest.mark.parametrize(
    ("value", "answer"),
    [
        (STATE_OUTPUT, "Refunded."),
        ({"messages": [{"type": "ai", "data": {"content": "structured"}}]}, "structured"),
        (text({"messages": [{"type": "ai", "data": {"content": ""}}]}), None),
        (text({"messages": []}), None),
        (text({"state": "done"}), None),
        ("plain answer", None),
    ],
)
def test_langgraph_answer_is_the_last_ai_messages_text(value: Any, answer: str | None) -> None:
    assert langgraph_answer(value) == answer


# --- Google ADK ------------------------------------------------------------------------------


def adk_tool(span_id: str, name: str, start: int, **attributes: Any) -> RawSpan:
    return raw(
        span_id,
        {
            semconv.GEN_AI_OPERATION_NAME: "execute_tool",
            semconv.GEN_AI_TOOL_NAME: name,
            **attributes,
        },
        name=f"execute_tool {name}",
        start=start,
    )


def test_adks_merged_tools_span_is_not_a_call() -> None:
    merged = mapped(adk_tool("merged", "(merged tools)", 40))
    assert (merged.kind, merged.tool) == ("other", None)
    trace = assemble_trace(
        [
            agent_root(),
            adk_tool("a", "lookup_order", 20, **{semconv.GEN_AI_TOOL_CALL_ID: "adk-1"}),
            adk_tool("b", "verify_identity", 21, **{semconv.GEN_AI_TOOL_CALL_ID: "adk-2"}),
            adk_tool("merged", "(merged tools)", 40),
        ],
        SOURCE,
    )
    assert [(c.call_id, c.name) for c in trace.tool_calls] == [
        ("adk-1", "lookup_order"),
        ("adk-2", "verify_identity"),
    ]


def test_adks_unspecified_call_id_is_no_call_id() -> None:
    span = mapped(
        adk_tool("t", "lookup_order", 20, **{semconv.GEN_AI_TOOL_CALL_ID: "<not specified>"})
    )
    assert span.tool is not None
    assert span.tool.call_id is None


def test_adk_v1_tool_attributes_give_arguments_and_result() -> None:
    span = mapped(
        adk_tool(
            "t",
            "lookup_order",
            20,
            **{
                semconv.GEN_AI_TOOL_CALL_ID: "adk-1",
                ADK_TOOL_CALL_ARGS: '{"order_id": "A-1"}',
                ADK_TOOL_RESPONSE: '{"status": "delivered"}',
            },
        )
    )
    assert span.tool is not None
    assert (span.tool.arguments, span.tool.result) == (
        {"order_id": "A-1"},
        '{"status": "delivered"}',
    )


@pytest.mark.parametrize("elided", ["{}", "N/A"])
def test_adk_v1_tool_attributes_without_content_record_nothing(elided: str) -> None:
    span = mapped(
        adk_tool("t", "lookup_order", 20, **{ADK_TOOL_CALL_ARGS: elided, ADK_TOOL_RESPONSE: elided})
    )
    assert span.tool is not None
    assert (span.tool.arguments, span.tool.result) == ({}, None)


def test_adk_v1_tool_arguments_that_are_not_an_object_are_rejected() -> None:
    with pytest.raises(RecordError) as caught:
        mapped(adk_tool("t", "lookup_order", 20, **{ADK_TOOL_CALL_ARGS: '["A-1"]'}))
    assert caught.value.field == f"attributes.{ADK_TOOL_CALL_ARGS}"
    assert caught.value.span_id == "t"


LLM_REQUEST = {
    "model": "gemini-2.5-flash",
    "config": {"system_instruction": "Verify identity before refunds."},
    "contents": [
        {"role": "user", "parts": [{"text": "Refund A-1"}]},
        {
            "role": "model",
            "parts": [
                {"text": "Looking it up."},
                {"function_call": {"id": "adk-1", "name": "lookup_order", "args": {"o": "A-1"}}},
            ],
        },
        {
            "role": "user",
            "parts": [
                {
                    "function_response": {
                        "id": "adk-1",
                        "name": "lookup_order",
                        "response": {"status": "delivered"},
                    }
                }
            ],
        },
    ],
}
LLM_RESPONSE = {"content": {"role": "model", "parts": [{"text": "It was delivered."}]}}


def call_llm(request: Any = None, response: Any = None) -> RawSpan:
    attributes: dict[str, Any] = {}
    if request is not None:
        attributes[ADK_LLM_REQUEST] = request if isinstance(request, str) else text(request)
    if response is not None:
        attributes[ADK_LLM_RESPONSE] = response if isinstance(response, str) else text(response)
    return raw("llm", attributes, name="call_llm", start=5)


def test_adk_v1_call_llm_is_an_llm_span_with_its_gemini_messages() -> None:
    span = mapped(call_llm(LLM_REQUEST, LLM_RESPONSE))
    assert span.kind == "llm"
    assert span.llm is not None
    assert span.llm.input_messages == [
        Message(role="system", content="Verify identity before refunds."),
        Message(role="user", content="Refund A-1"),
        Message(
            role="assistant",
            content="Looking it up.",
            tool_calls=[MessageToolCall(id="adk-1", name="lookup_order", arguments={"o": "A-1"})],
        ),
        Message(
            role="tool",
            content=[
                {"type": "tool_call_response", "id": "adk-1", "response": {"status": "delivered"}}
            ],
            tool_call_id="adk-1",
        ),
    ]
    assert span.llm.output_messages == [Message(role="assistant", content="It was delivered.")]


def test_adk_v1_messages_give_the_traces_calls_input_and_answer() -> None:
    trace = assemble_trace([agent_root(), call_llm(LLM_REQUEST, LLM_RESPONSE)], SOURCE)
    [call] = trace.tool_calls
    assert (call.call_id, call.name, call.arguments, call.result, call.source) == (
        "adk-1",
        "lookup_order",
        {"o": "A-1"},
        {"status": "delivered"},
        "message",
    )
    assert trace.input == [Message(role="user", content="Refund A-1")]
    assert trace.final_output == "It was delivered."


def test_adk_v1_content_capture_off_records_no_messages() -> None:
    assert adk_messages({ADK_LLM_REQUEST: "{}", ADK_LLM_RESPONSE: "{}"}) == (None, None)
    assert adk_messages({}) == (None, None)
    span = mapped(call_llm("{}", "{}"))
    assert span.kind == "llm"
    assert span.llm is not None
    assert (span.llm.input_messages, span.llm.output_messages) == (None, None)


def test_an_adk_request_without_contents_gives_only_its_system_instruction() -> None:
    request = {"config": {"system_instruction": "Be brief."}}
    assert adk_messages({ADK_LLM_REQUEST: text(request)}) == (
        [Message(role="system", content="Be brief.")],
        None,
    )
    assert adk_messages({ADK_LLM_REQUEST: text({"model": "m"})}) == (None, None)


def test_other_gemini_parts_are_kept_typed_by_their_key() -> None:
    blob = {"inline_data": {"mime_type": "image/png", "data": "AAAA"}}
    request = {"contents": [{"role": "user", "parts": [{"text": "See"}, blob]}]}
    inputs, _ = adk_messages({ADK_LLM_REQUEST: text(request)})
    assert inputs == [
        Message(
            role="user",
            content=[{"type": "text", "content": "See"}, {"type": "inline_data", **blob}],
        )
    ]


@pytest.mark.parametrize(
    ("attribute", "value", "field"),
    [
        (
            ADK_LLM_REQUEST,
            {"contents": [{"role": "user", "parts": [{"text": "a"}]}, {"role": "model"}]},
            f"attributes.{ADK_LLM_REQUEST}.contents[1]",
        ),
        (
            ADK_LLM_REQUEST,
            {"contents": [{"role": "user", "parts": "Refund A-1"}]},
            f"attributes.{ADK_LLM_REQUEST}.contents[0]",
        ),
        (
            ADK_LLM_REQUEST,
            {"contents": [{"role": "user", "parts": [{"text": "a"}, 42]}]},
            f"attributes.{ADK_LLM_REQUEST}.contents[0].parts[1]",
        ),
        (
            ADK_LLM_RESPONSE,
            {"content": "It was delivered."},
            f"attributes.{ADK_LLM_RESPONSE}.content",
        ),
        (ADK_LLM_REQUEST, '["not", "an object"]', f"attributes.{ADK_LLM_REQUEST}"),
    ],
)
def test_a_malformed_adk_model_call_is_rejected_naming_the_field(
    attribute: str, value: Any, field: str
) -> None:
    span = raw(
        "llm", {attribute: value if isinstance(value, str) else text(value)}, name="call_llm"
    )
    if attribute == ADK_LLM_RESPONSE:
        span.attributes[ADK_LLM_REQUEST] = "{}"  # what makes it ADK's call_llm span
    with pytest.raises(RecordError) as caught:
        mapped(span)
    assert caught.value.field == field
    assert caught.value.span_id == "llm"


def test_a_malformed_adk_model_call_is_kept_uninterpreted_and_named() -> None:
    bad = call_llm({"contents": [{"role": "user", "parts": "x"}]})
    trace = assemble_trace([agent_root(), bad], SOURCE)
    [part] = trace.metadata["trailcheck.unread"]
    assert (part["span_id"], part["field"]) == (
        bad.span_id,
        f"attributes.{ADK_LLM_REQUEST}.contents[0]",
    )
    llm = trace.tree.get(bad.span_id).llm
    assert llm is not None
    assert llm.input_messages is None
