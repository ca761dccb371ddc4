"""map_span: kinds, tool calls and model calls from GenAI, OpenInference and vendor attributes."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from trailcheck.errors import RecordError
from trailcheck.importing.records import RawSpan
from trailcheck.importing.spans import OPENINFERENCE_KINDS, OPERATION_KINDS, map_span
from trailcheck.trace import Message, MessageToolCall, Span, StatusCode, Trace, Usage, semconv

SOURCE = "spans.jsonl"


def raw(
    attributes: dict[str, Any] | None = None,
    *,
    name: str = "span",
    span_id: str = "s1",
    status_code: StatusCode = "unset",
    status_message: str | None = None,
    start_ns: int = 1_000,
    end_ns: int | None = 2_000,
    line: int | None = 7,
) -> RawSpan:
    return RawSpan(
        trace_id="t1",
        span_id=span_id,
        parent_id=None,
        name=name,
        start_ns=start_ns,
        end_ns=end_ns,
        status_code=status_code,
        status_message=status_message,
        attributes=attributes or {},
        line=line,
    )


def tool_raw(attributes: dict[str, Any], **kw: Any) -> RawSpan:
    return raw({semconv.GEN_AI_OPERATION_NAME: "execute_tool", **attributes}, **kw)


def mapped(span: RawSpan) -> Span:
    return map_span(span, SOURCE)


def rejected(span: RawSpan) -> RecordError:
    with pytest.raises(RecordError) as caught:
        map_span(span, SOURCE)
    return caught.value


# --- kinds -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("operation", "kind"),
    [
        ("invoke_agent", "agent"),
        ("create_agent", "agent"),
        ("chat", "llm"),
        ("text_completion", "llm"),
        ("generate_content", "llm"),
        ("embeddings", "llm"),
        ("execute_tool", "tool"),
        ("retrieval", "retriever"),
        ("a_future_operation", "other"),
    ],
)
def test_kind_follows_the_genai_operation_name(operation: str, kind: str) -> None:
    attributes = {
        semconv.GEN_AI_OPERATION_NAME: operation,
        semconv.GEN_AI_TOOL_NAME: "lookup_order",
    }
    assert mapped(raw(attributes)).kind == kind


@pytest.mark.parametrize(
    ("openinference_kind", "kind"),
    [
        ("AGENT", "agent"),
        ("CHAIN", "other"),
        ("LLM", "llm"),
        ("EMBEDDING", "llm"),
        ("TOOL", "tool"),
        ("RETRIEVER", "retriever"),
        ("RERANKER", "retriever"),
        ("GUARDRAIL", "guard"),
        ("EVALUATOR", "other"),
        ("PROMPT", "other"),
    ],
)
def test_kind_follows_the_openinference_span_kind(openinference_kind: str, kind: str) -> None:
    attributes = {semconv.OPENINFERENCE_SPAN_KIND: openinference_kind, semconv.TOOL_NAME: "search"}
    assert mapped(raw(attributes)).kind == kind


def test_every_named_operation_and_openinference_kind_has_a_mapping() -> None:
    operations = {value for name, value in vars(semconv).items() if name.startswith("OPERATION_")}
    openinference_kinds = {
        value for name, value in vars(semconv).items() if name.startswith("SPAN_KIND_")
    }
    assert operations == set(OPERATION_KINDS)
    assert openinference_kinds == set(OPENINFERENCE_KINDS)


def test_genai_operation_wins_over_openinference_kind_and_no_convention_means_other() -> None:
    both = {semconv.GEN_AI_OPERATION_NAME: "chat", semconv.OPENINFERENCE_SPAN_KIND: "AGENT"}
    assert mapped(raw(both)).kind == "llm"
    assert mapped(raw({"http.method": "GET"})).kind == "other"


def test_an_openllmetry_tool_entity_is_a_tool_call_read_from_its_entity_attributes() -> None:
    entity = raw(
        {
            semconv.TRACELOOP_SPAN_KIND: "tool",
            semconv.TRACELOOP_ENTITY_NAME: "lookup_order",
            semconv.TRACELOOP_ENTITY_INPUT: '{"order_id": "A-1"}',
            semconv.TRACELOOP_ENTITY_OUTPUT: '{"status": "delivered"}',
        },
        name="lookup_order.tool",
    )
    span = mapped(entity)
    assert span.kind == "tool"
    assert span.tool is not None
    assert (span.tool.name, span.tool.arguments, span.tool.result) == (
        "lookup_order",
        {"order_id": "A-1"},
        '{"status": "delivered"}',
    )
    # Its workflow and task entities are a framework's steps; a convention above it wins.
    assert mapped(raw({semconv.TRACELOOP_SPAN_KIND: "task"})).kind == "other"
    both = {semconv.TRACELOOP_SPAN_KIND: "tool", semconv.GEN_AI_OPERATION_NAME: "chat"}
    assert mapped(raw(both)).kind == "llm"


def test_an_operation_name_that_is_not_text_is_rejected() -> None:
    error = rejected(raw({semconv.GEN_AI_OPERATION_NAME: 3}))
    assert error.field == "attributes.gen_ai.operation.name"


# --- the span itself -------------------------------------------------------------------------


def test_span_fields_and_attributes_are_kept_verbatim() -> None:
    attributes = {
        semconv.GEN_AI_OPERATION_NAME: "invoke_agent",
        "custom.nested": {"a": [1, 2]},
        "custom.flag": True,
    }
    span = mapped(raw(attributes, status_code="error", status_message="boom", name="invoke_agent"))
    assert span.attributes == attributes
    assert (span.trace_id, span.span_id, span.name) == ("t1", "s1", "invoke_agent")
    assert (span.start_ns, span.end_ns) == (1_000, 2_000)
    assert (span.status.code, span.status.message) == ("error", "boom")
    assert span.tool is None
    assert span.llm is None


def test_a_span_ending_before_it_starts_is_a_record_error_not_a_validation_traceback() -> None:
    error = rejected(raw({}, start_ns=5_000, end_ns=4_000))
    assert (error.source, error.line, error.span_id) == (SOURCE, 7, "s1")
    assert "end_ns 4000 < start_ns 5000" in error.message


# --- tool spans ------------------------------------------------------------------------------


def test_genai_tool_span_gives_name_call_id_arguments_and_the_result_as_recorded() -> None:
    span = mapped(
        tool_raw(
            {
                semconv.GEN_AI_TOOL_NAME: "issue_refund",
                semconv.GEN_AI_TOOL_CALL_ID: "call_7",
                semconv.GEN_AI_TOOL_CALL_ARGUMENTS: '{"order_id": "A-1", "amount": 129.0}',
                semconv.GEN_AI_TOOL_CALL_RESULT: '{"refunded": true}',
                semconv.TRAILCHECK_SEQUENCE: 3,
            }
        )
    )
    assert span.kind == "tool"
    assert span.tool is not None
    assert span.tool.name == "issue_refund"
    assert span.tool.call_id == "call_7"
    assert span.tool.arguments == {"order_id": "A-1", "amount": 129.0}
    assert span.tool.result == '{"refunded": true}'  # text stays text; ToolCall parses it
    assert span.tool.sequence == 3
    assert span.tool.error is None


def test_structured_arguments_are_taken_as_they_are_and_absent_arguments_are_empty() -> None:
    structured = mapped(
        tool_raw({semconv.GEN_AI_TOOL_NAME: "t", semconv.GEN_AI_TOOL_CALL_ARGUMENTS: {"q": 1}})
    )
    absent = mapped(tool_raw({semconv.GEN_AI_TOOL_NAME: "t"}))
    assert structured.tool is not None
    assert structured.tool.arguments == {"q": 1}
    assert absent.tool is not None
    assert absent.tool.arguments == {}


def test_the_execute_tool_span_name_supplies_a_missing_tool_name() -> None:
    span = mapped(tool_raw({}, name="execute_tool lookup_order"))
    assert span.tool is not None
    assert span.tool.name == "lookup_order"


@pytest.mark.parametrize("span_name", ["execute_tool", "execute_tool  ", "lookup_order"])
def test_a_tool_span_without_any_name_is_rejected_with_where(span_name: str) -> None:
    error = rejected(tool_raw({}, name=span_name))
    assert (error.source, error.line, error.span_id) == (SOURCE, 7, "s1")
    assert error.field == "attributes.gen_ai.tool.name"
    assert "needs a tool name" in error.message
    assert str(error).startswith("spans.jsonl:7: span 's1': field 'attributes.gen_ai.tool.name'")


def test_an_empty_tool_name_attribute_is_rejected_not_replaced() -> None:
    error = rejected(tool_raw({semconv.GEN_AI_TOOL_NAME: ""}, name="execute_tool lookup_order"))
    assert error.field == "attributes.gen_ai.tool.name"


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ("{order_id: A-1}", "not valid JSON"),
        ("", "not valid JSON"),
        ('["A-1", 129.0]', "must be a JSON object, not an array"),
        ("42", "must be a JSON object, not a number"),
        ('"A-1"', "must be a JSON object, not a string"),
        (["A-1"], "must be a JSON object, not an array"),
    ],
)
def test_arguments_that_are_not_a_json_object_are_rejected(arguments: Any, expected: str) -> None:
    error = rejected(
        tool_raw({semconv.GEN_AI_TOOL_NAME: "t", semconv.GEN_AI_TOOL_CALL_ARGUMENTS: arguments})
    )
    assert error.field == "attributes.gen_ai.tool.call.arguments"
    assert expected in error.message
    assert error.span_id == "s1"
    assert error.line == 7


def test_a_status_error_gives_the_tool_its_message_and_keeps_the_result() -> None:
    span = mapped(
        tool_raw(
            {
                semconv.GEN_AI_TOOL_NAME: "issue_refund",
                semconv.GEN_AI_TOOL_CALL_RESULT: '{"error": "denied"}',
                semconv.ERROR_TYPE: "PermissionError",
            },
            status_code="error",
            status_message="identity not verified",
        )
    )
    assert span.tool is not None
    assert span.tool.error == "identity not verified"
    assert span.tool.result == '{"error": "denied"}'
    assert span.failed


def test_error_type_names_the_error_when_there_is_no_status_message() -> None:
    with_status = mapped(
        tool_raw(
            {semconv.GEN_AI_TOOL_NAME: "t", semconv.ERROR_TYPE: "TimeoutError"}, status_code="error"
        )
    )
    without_status = mapped(
        tool_raw({semconv.GEN_AI_TOOL_NAME: "t", semconv.ERROR_TYPE: "TimeoutError"})
    )
    assert with_status.tool is not None
    assert with_status.tool.error == "TimeoutError"
    assert without_status.tool is not None
    assert without_status.tool.error == "TimeoutError"


def test_a_bare_status_error_leaves_the_wording_to_the_tool_call() -> None:
    span = mapped(tool_raw({semconv.GEN_AI_TOOL_NAME: "t"}, status_code="error"))
    assert span.tool is not None
    assert span.tool.error is None
    call = Trace(trace_id="t1", spans=[span]).tool_calls[0]
    assert call.error == "tool span has status error"
    assert not call.succeeded


def test_a_sequence_that_is_not_an_integer_is_rejected() -> None:
    error = rejected(tool_raw({semconv.GEN_AI_TOOL_NAME: "t", semconv.TRAILCHECK_SEQUENCE: "2"}))
    assert error.field == "attributes.trailcheck.sequence"


def test_openinference_tool_span_takes_arguments_from_input_value_not_the_schema() -> None:
    span = mapped(
        raw(
            {
                semconv.OPENINFERENCE_SPAN_KIND: "TOOL",
                semconv.TOOL_NAME: "get_weather",
                semconv.TOOL_CALL_ID: "call_w1",
                semconv.TOOL_PARAMETERS: '{"type": "object", "properties": {"city": {}}}',
                semconv.INPUT_VALUE: '{"city": "Paris"}',
                semconv.INPUT_MIME_TYPE: "application/json",
                semconv.OUTPUT_VALUE: "18 degrees",
            }
        )
    )
    assert span.tool is not None
    assert (span.tool.name, span.tool.call_id) == ("get_weather", "call_w1")
    assert span.tool.arguments == {"city": "Paris"}
    assert span.tool.result == "18 degrees"


def test_openinference_tool_input_as_plain_text_records_no_arguments_and_keeps_it() -> None:
    # LangChain's instrumentation writes a one-parameter tool's bare argument ("Paris"): it names
    # no parameter, so the span records no arguments object; the model's request supplies them.
    attributes = {
        semconv.OPENINFERENCE_SPAN_KIND: "TOOL",
        semconv.TOOL_NAME: "search",
        semconv.INPUT_VALUE: "Paris",
    }
    span = mapped(raw(attributes))
    assert span.tool is not None
    assert span.tool.arguments == {}
    assert span.attributes[semconv.INPUT_VALUE] == "Paris"


def test_openinference_tool_input_declared_json_but_not_json_is_rejected() -> None:
    error = rejected(
        raw(
            {
                semconv.OPENINFERENCE_SPAN_KIND: "TOOL",
                semconv.TOOL_NAME: "search",
                semconv.INPUT_VALUE: "Paris",
                semconv.INPUT_MIME_TYPE: semconv.MIME_TYPE_JSON,
            }
        )
    )
    assert error.field == "attributes.input.value"
    assert "not valid JSON" in error.message


# --- trace2evals vendor attributes ----------------------------------------------------------


def vendor_call(**fields: Any) -> str:
    call = {"name": "lookup_order", "arguments": {"order_id": "A-1003"}, "result": "{}"}
    return orjson.dumps({**call, "is_error": False, **fields}).decode()


def test_trace2evals_call_supplies_a_tool_call_the_genai_attributes_lack() -> None:
    span = mapped(
        tool_raw(
            {
                "trace2evals.call": vendor_call(result='{"status": "in_transit"}'),
                "trace2evals.sequence": 4,
            },
            name="execute_tool lookup_order",
        )
    )
    assert span.tool is not None
    assert span.tool.name == "lookup_order"
    assert span.tool.arguments == {"order_id": "A-1003"}
    assert span.tool.result == '{"status": "in_transit"}'
    assert span.tool.sequence == 4
    assert span.tool.error is None


def test_a_trace2evals_call_marked_is_error_takes_its_error_from_the_result() -> None:
    failing = vendor_call(result='{"error": "order not found"}', is_error=True)
    no_text = vendor_call(result="boom", is_error=True)
    span = mapped(tool_raw({"trace2evals.call": failing}, status_code="error"))
    bare = mapped(tool_raw({"trace2evals.call": no_text}))
    assert span.tool is not None
    assert span.tool.error == "order not found"
    assert span.tool.result == '{"error": "order not found"}'
    assert bare.tool is not None
    assert bare.tool.error == "trace2evals.call marks the call as failed (is_error)"


def test_genai_attributes_take_precedence_over_the_vendor_object() -> None:
    span = mapped(
        tool_raw(
            {
                semconv.GEN_AI_TOOL_NAME: "issue_refund",
                semconv.GEN_AI_TOOL_CALL_ARGUMENTS: '{"order_id": "A-9"}',
                "trace2evals.call": vendor_call(),
                semconv.TRAILCHECK_SEQUENCE: 1,
                "trace2evals.sequence": 9,
            }
        )
    )
    assert span.tool is not None
    assert (span.tool.name, span.tool.arguments, span.tool.sequence) == (
        "issue_refund",
        {"order_id": "A-9"},
        1,
    )


@pytest.mark.parametrize(
    ("value", "field"),
    [
        ("{not json", "attributes.trace2evals.call"),
        ('["lookup_order"]', "attributes.trace2evals.call"),
        (vendor_call(arguments="A-1003"), "attributes.trace2evals.call.arguments"),
        (vendor_call(name=""), "attributes.trace2evals.call.name"),
        (vendor_call(is_error="no"), "attributes.trace2evals.call.is_error"),
    ],
)
def test_a_bad_trace2evals_call_is_rejected_naming_the_field(value: str, field: str) -> None:
    assert rejected(tool_raw({"trace2evals.call": value})).field == field


# --- llm spans -------------------------------------------------------------------------------


def test_genai_llm_span_gives_model_provider_usage_and_messages() -> None:
    span = mapped(
        raw(
            {
                semconv.GEN_AI_OPERATION_NAME: "chat",
                semconv.GEN_AI_REQUEST_MODEL: "gpt-4o",
                semconv.GEN_AI_RESPONSE_MODEL: "gpt-4o-2024-08-06",
                semconv.GEN_AI_PROVIDER_NAME: "openai",
                semconv.GEN_AI_USAGE_INPUT_TOKENS: 120,
                semconv.GEN_AI_USAGE_OUTPUT_TOKENS: 30,
                semconv.GEN_AI_SYSTEM_INSTRUCTIONS: '[{"type": "text", "content": "Be brief."}]',
                semconv.GEN_AI_INPUT_MESSAGES: '[{"role": "user", "content": "Hi"}]',
                semconv.GEN_AI_OUTPUT_MESSAGES: (
                    '[{"role": "assistant", "parts": [{"type": "text", "content": "Hello"}],'
                    ' "finish_reason": "stop"}]'
                ),
            }
        )
    )
    assert span.llm is not None
    assert span.tool is None
    assert span.llm.model == "gpt-4o-2024-08-06"  # the model that answered
    assert span.llm.provider == "openai"
    assert span.llm.usage == Usage(input_tokens=120, output_tokens=30)
    assert span.llm.input_messages == [
        Message(role="system", content="Be brief."),
        Message(role="user", content="Hi"),
    ]
    assert span.llm.output_messages == [Message(role="assistant", content="Hello")]


def test_deprecated_gen_ai_system_names_the_provider_and_usage_is_absent_without_tokens() -> None:
    span = mapped(raw({semconv.GEN_AI_OPERATION_NAME: "chat", semconv.GEN_AI_SYSTEM: "anthropic"}))
    assert span.llm is not None
    assert (span.llm.provider, span.llm.model, span.llm.usage) == ("anthropic", None, None)
    assert span.llm.input_messages is None
    assert span.llm.output_messages is None


def test_openinference_llm_span_with_flattened_messages() -> None:
    span = mapped(
        raw(
            {
                semconv.OPENINFERENCE_SPAN_KIND: "LLM",
                semconv.LLM_MODEL_NAME: "claude-sonnet",
                semconv.LLM_PROVIDER: "anthropic",
                semconv.LLM_TOKEN_COUNT_PROMPT: 40,
                semconv.LLM_TOKEN_COUNT_COMPLETION: 9,
                "llm.input_messages.0.message.role": "user",
                "llm.input_messages.0.message.content": "Weather in Paris?",
                "llm.output_messages.0.message.role": "assistant",
                "llm.output_messages.0.message.tool_calls.0.tool_call.id": "c1",
                "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "weather",
                "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments": (
                    '{"city": "Paris"}'
                ),
            }
        )
    )
    assert span.llm is not None
    assert (span.llm.model, span.llm.provider) == ("claude-sonnet", "anthropic")
    assert span.llm.usage == Usage(input_tokens=40, output_tokens=9)
    assert span.llm.input_messages == [Message(role="user", content="Weather in Paris?")]
    assert span.llm.output_messages == [
        Message(
            role="assistant",
            tool_calls=[MessageToolCall(id="c1", name="weather", arguments={"city": "Paris"})],
        )
    ]


@pytest.mark.parametrize("count", [-1, "12", 1.5, True])
def test_a_token_count_that_is_not_a_non_negative_integer_is_rejected(count: Any) -> None:
    error = rejected(
        raw({semconv.GEN_AI_OPERATION_NAME: "chat", semconv.GEN_AI_USAGE_INPUT_TOKENS: count})
    )
    assert error.field == "attributes.gen_ai.usage.input_tokens"


def test_unreadable_messages_reject_a_span_of_any_kind() -> None:
    agent = raw(
        {semconv.GEN_AI_OPERATION_NAME: "invoke_agent", semconv.GEN_AI_INPUT_MESSAGES: "[{"}
    )
    error = rejected(agent)
    assert error.field == "attributes.gen_ai.input.messages"
    assert "not valid JSON" in error.message


def test_agent_span_messages_are_read_but_only_an_llm_span_carries_them() -> None:
    agent = raw(
        {
            semconv.GEN_AI_OPERATION_NAME: "invoke_agent",
            semconv.GEN_AI_INPUT_MESSAGES: '[{"role": "user", "content": "Hi"}]',
        }
    )
    span = mapped(agent)
    assert span.kind == "agent"
    assert span.llm is None
    assert span.attributes[semconv.GEN_AI_INPUT_MESSAGES] == '[{"role": "user", "content": "Hi"}]'
