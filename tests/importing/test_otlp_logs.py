"""GenAI events in OTLP log records, joined to their spans and read as a model call's messages
(:mod:`trailcheck.importing.transport.otlp_logs`, :mod:`~trailcheck.importing.log_join`,
:mod:`~trailcheck.importing.conventions.genai_events`)."""

from __future__ import annotations

import base64
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson
from google.protobuf import json_format
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, ArrayValue, KeyValue, KeyValueList
from opentelemetry.proto.logs.v1.logs_pb2 import LogRecord
from opentelemetry.proto.trace.v1.trace_pb2 import Span as ProtoSpan

from trailcheck.importing import import_traces
from trailcheck.importing.importer import ImportSummary
from trailcheck.importing.log_join import LogTally
from trailcheck.importing.records import IgnoredLogs, LogEvent, Rejection
from trailcheck.importing.transport.otlp_logs import decode_otlp_logs_json, decode_otlp_logs_proto
from trailcheck.importing.transport.otlp_proto import holds_log_records
from trailcheck.trace import Message, MessageToolCall, SpanEvent, ToolCall, Trace, semconv

TRACE_A = bytes.fromhex("0af7651916cd43dd8448eb211c80319c")
TRACE_B = bytes.fromhex("5b8efff798038103d269b633813fc60c")
ROOT = bytes.fromhex("b7ad6b7169203331")
CHAT = bytes.fromhex("c1d2e3f405060708")
ABSENT = bytes.fromhex("dddddddddddddddd")
CHAT_START, CHAT_END = 1_100, 1_900
FIRST_RECORD = "resourceLogs[0].scopeLogs[0].logRecords[0]"

LOOKUP_CALL = {
    "id": "c1",
    "type": "function",
    "function": {"name": "lookup_order", "arguments": '{"order_id": "A-1"}'},
}
# One model call as the OpenAI instrumentation's per-message events record it.
CONVERSATION: list[tuple[str, dict[str, Any]]] = [
    ("gen_ai.system.message", {"content": "Be brief."}),
    ("gen_ai.user.message", {"content": "Refund A-1"}),
    ("gen_ai.assistant.message", {"tool_calls": [LOOKUP_CALL]}),
    ("gen_ai.tool.message", {"content": '{"status": "delivered"}', "id": "c1"}),
    (
        "gen_ai.choice",
        {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Done."}},
    ),
]
CONVERSATION_INPUT = [
    Message(role="system", content="Be brief."),
    Message(role="user", content="Refund A-1"),
    Message(
        role="assistant",
        tool_calls=[MessageToolCall(id="c1", name="lookup_order", arguments={"order_id": "A-1"})],
    ),
    Message(role="tool", content='{"status": "delivered"}', tool_call_id="c1"),
]
CONVERSATION_OUTPUT = [Message(role="assistant", content="Done.")]


# --- building OTLP payloads ------------------------------------------------------------------


def any_value(value: Any) -> Any:
    if isinstance(value, bool):
        return AnyValue(bool_value=value)
    if isinstance(value, int):
        return AnyValue(int_value=value)
    if isinstance(value, float):
        return AnyValue(double_value=value)
    if isinstance(value, str):
        return AnyValue(string_value=value)
    if isinstance(value, list):
        return AnyValue(array_value=ArrayValue(values=[any_value(item) for item in value]))
    return AnyValue(kvlist_value=KeyValueList(values=[kv(k, v) for k, v in value.items()]))


def kv(key: str, value: Any) -> Any:
    return KeyValue(key=key, value=any_value(value))


def record(
    event: str,
    body: Any = None,
    *,
    trace_id: bytes = TRACE_A,
    span_id: bytes = CHAT,
    attributes: list[Any] | None = None,
    time: int = 1_500,
    **fields: Any,
) -> Any:
    values: dict[str, Any] = {
        "event_name": event,
        "trace_id": trace_id,
        "span_id": span_id,
        "time_unix_nano": time,
        "attributes": attributes or [kv("gen_ai.system", "openai")],
    }
    if body is not None:
        values["body"] = any_value(body)
    values.update(fields)
    return LogRecord(**values)


def logs_request(*records: Any) -> Any:
    request = ExportLogsServiceRequest()
    scope = request.resource_logs.add().scope_logs.add()
    scope.scope.name = "opentelemetry.instrumentation.openai_v2"
    scope.log_records.extend(records)
    return request


def conversation_records(trace_id: bytes = TRACE_A, span_id: bytes = CHAT) -> list[Any]:
    return [
        record(name, body, trace_id=trace_id, span_id=span_id, time=1_200 + index)
        for index, (name, body) in enumerate(CONVERSATION)
    ]


def traces_request(*trace_ids: bytes) -> Any:
    """For each trace, an agent span and a chat span under it that records no messages."""
    request = ExportTraceServiceRequest()
    scope = request.resource_spans.add().scope_spans.add()
    for trace_id in trace_ids or (TRACE_A,):
        scope.spans.extend(
            [
                ProtoSpan(
                    trace_id=trace_id,
                    span_id=ROOT,
                    name="invoke_agent shop",
                    start_time_unix_nano=1_000,
                    end_time_unix_nano=2_000,
                    attributes=[kv(semconv.GEN_AI_OPERATION_NAME, "invoke_agent")],
                ),
                ProtoSpan(
                    trace_id=trace_id,
                    span_id=CHAT,
                    parent_span_id=ROOT,
                    name="chat gpt-4o",
                    start_time_unix_nano=CHAT_START,
                    end_time_unix_nano=CHAT_END,
                    attributes=[
                        kv(semconv.GEN_AI_OPERATION_NAME, "chat"),
                        kv(semconv.GEN_AI_REQUEST_MODEL, "gpt-4o"),
                    ],
                ),
            ]
        )
    return request


def otlp_json(request: Any) -> dict[str, Any]:
    """A request as OTLP/JSON: protobuf's JSON mapping, with ids in hex as OTLP/JSON has them."""

    def hex_ids(node: Any) -> Any:
        if isinstance(node, list):
            return [hex_ids(item) for item in node]
        if not isinstance(node, dict):
            return node
        return {
            key: base64.b64decode(value).hex()
            if key in ("traceId", "spanId", "parentSpanId")
            else hex_ids(value)
            for key, value in node.items()
        }

    document: dict[str, Any] = hex_ids(json_format.MessageToDict(request))
    return document


def imported(tmp_path: Path, *files: tuple[str, bytes]) -> tuple[list[Trace], ImportSummary]:
    paths = []
    for name, data in files:
        path = tmp_path / name
        path.write_bytes(data)
        paths.append(path)
    found: list[Trace] = []
    summary = import_traces(paths, found.append)
    return found, summary


def proto_files(traces: Any, logs: Any) -> tuple[tuple[str, bytes], tuple[str, bytes]]:
    return (
        ("traces.pb", traces.SerializeToString()),
        ("logs.pb", logs.SerializeToString()),
    )


def chat_span_messages(trace: Trace) -> tuple[list[Message] | None, list[Message] | None]:
    [chat] = [span for span in trace.spans if span.kind == "llm"]
    assert chat.llm is not None
    return chat.llm.input_messages, chat.llm.output_messages


def decoded(request: Any) -> list[Any]:
    return list(decode_otlp_logs_proto(request.SerializeToString(), "logs.pb"))


EXPECTED_CALL = ToolCall(
    call_id="c1",
    name="lookup_order",
    arguments={"order_id": "A-1"},
    recorded_result='{"status": "delivered"}',
    error=None,
    span_id=CHAT.hex(),
    start_ns=CHAT_START,  # asked for in the history the chat span was sent
    end_ns=None,
    source="message",
    from_messages=("arguments", "result"),
)


# --- per-message events joined to their span -------------------------------------------------


def test_per_message_log_records_become_the_chat_spans_messages_and_calls(tmp_path: Path) -> None:
    traces, summary = imported(
        tmp_path, *proto_files(traces_request(), logs_request(*conversation_records()))
    )
    assert summary.rejections == []
    assert summary.logs == LogTally(joined=5)
    [trace] = traces
    assert chat_span_messages(trace) == (CONVERSATION_INPUT, CONVERSATION_OUTPUT)
    assert trace.tool_calls == [EXPECTED_CALL]
    assert trace.tool_calls[0].result == {"status": "delivered"}
    assert trace.input == [Message(role="user", content="Refund A-1")]
    assert trace.final_output == "Done."
    [chat] = [span for span in trace.spans if span.kind == "llm"]
    assert [event.name for event in chat.events] == [name for name, _ in CONVERSATION]
    assert [event.time_ns for event in chat.events] == [1_200, 1_201, 1_202, 1_203, 1_204]


def test_the_same_records_in_otlp_json_give_the_same_trace(tmp_path: Path) -> None:
    logs = logs_request(*conversation_records())
    json_traces, json_summary = imported(
        tmp_path,
        ("traces.json", orjson.dumps(otlp_json(traces_request()))),
        ("logs.json", orjson.dumps(otlp_json(logs))),
    )
    proto_traces, _ = imported(tmp_path, *proto_files(traces_request(), logs))
    assert json_summary.rejections == []
    assert json_summary.logs == LogTally(joined=5)
    [trace] = json_traces
    assert chat_span_messages(trace) == (CONVERSATION_INPUT, CONVERSATION_OUTPUT)
    assert trace.tool_calls == [EXPECTED_CALL]
    assert json_traces == proto_traces


def test_log_records_are_joined_in_input_order_and_choices_sorted_by_index(
    tmp_path: Path,
) -> None:
    records = [
        record("gen_ai.user.message", {"content": "Two answers, please"}),
        record("gen_ai.choice", {"index": 1, "message": {"content": "second"}}),
        record("gen_ai.choice", {"index": 0, "message": {"content": "first"}}),
    ]
    [trace], _ = imported(tmp_path, *proto_files(traces_request(), logs_request(*records)))
    assert chat_span_messages(trace) == (
        [Message(role="user", content="Two answers, please")],
        [Message(role="assistant", content="first"), Message(role="assistant", content="second")],
    )


def test_the_event_name_attribute_names_a_record_whose_event_name_field_is_empty() -> None:
    older = record(
        "",
        {"content": "hi"},
        attributes=[kv(semconv.EVENT_NAME, "gen_ai.user.message")],
        time=0,
        observed_time_unix_nano=777,
        severity_number=9,
        severity_text="INFO",
    )
    assert decoded(logs_request(older)) == [
        LogEvent(
            trace_id=TRACE_A.hex(),
            span_id=CHAT.hex(),
            event=SpanEvent(
                name="gen_ai.user.message",
                time_ns=777,  # no time: the observed time
                attributes={
                    semconv.EVENT_NAME: "gen_ai.user.message",
                    semconv.OTEL_LOG_BODY: {"content": "hi"},
                    semconv.OTEL_LOG_SEVERITY_NUMBER: 9,
                    semconv.OTEL_LOG_SEVERITY_TEXT: "INFO",
                },
            ),
            source="logs.pb",
        )
    ]


def test_a_record_with_neither_time_is_unreadable_naming_the_field() -> None:
    timeless = record("gen_ai.user.message", {"content": "hi"}, time=0)
    [item] = decoded(logs_request(timeless))
    assert isinstance(item, Rejection), item
    assert item.field == "resourceLogs[0].scopeLogs[0].logRecords[0].timeUnixNano"
    assert item.message.endswith(
        "cannot be read: it needs a time: timeUnixNano or observedTimeUnixNano"
    )


def test_the_event_name_attribute_is_read_in_otlp_json_too() -> None:
    document = otlp_json(
        logs_request(
            record(
                "", {"content": "hi"}, attributes=[kv(semconv.EVENT_NAME, "gen_ai.user.message")]
            )
        )
    )
    [event] = decode_otlp_logs_json(document, "logs.json", 1)
    assert isinstance(event, LogEvent)
    assert (event.trace_id, event.span_id, event.line) == (TRACE_A.hex(), CHAT.hex(), 1)
    assert event.event.name == "gen_ai.user.message"
    assert event.event.attributes[semconv.OTEL_LOG_BODY] == {"content": "hi"}


# --- records set aside: counted, never rejected ----------------------------------------------


def set_aside_records() -> list[Any]:
    return [
        record("gen_ai.user.message", {"content": "joined"}),
        record("app.request", {"path": "/refund"}),  # not a GenAI event
        record("", "a plain log line", attributes=[kv("logger", "app")]),  # no event name
        record("gen_ai.user.message", {"content": "x"}, trace_id=b"", span_id=b""),  # no span
        record("gen_ai.user.message", {"content": "y"}, span_id=ABSENT),  # span not in input
    ]


def test_other_unlinked_and_unjoined_records_are_counted_not_rejected(tmp_path: Path) -> None:
    traces, summary = imported(
        tmp_path, *proto_files(traces_request(), logs_request(*set_aside_records()))
    )
    assert summary.rejections == []
    assert summary.logs == LogTally(joined=1, unjoined=1, unlinked=1, other=2)
    assert summary.logs.read == 5
    assert (summary.imported, summary.rejected) == (1, 0)
    [trace] = traces
    assert chat_span_messages(trace) == ([Message(role="user", content="joined")], None)


def test_the_decoder_yields_one_count_of_the_records_set_aside() -> None:
    items = decoded(logs_request(*set_aside_records()))
    assert [type(item) for item in items] == [LogEvent, LogEvent, IgnoredLogs]
    assert items[-1] == IgnoredLogs("logs.pb", other=2, unlinked=1)
    assert [item.span_id for item in items[:2]] == [CHAT.hex(), ABSENT.hex()]


def test_otlp_json_counts_the_same_records_the_same_way() -> None:
    document = otlp_json(logs_request(*set_aside_records()))
    items = list(decode_otlp_logs_json(document, "logs.json", 1))
    assert items[-1] == IgnoredLogs("logs.json", other=2, unlinked=1)
    assert len(items) == 3


# --- unreadable GenAI records ----------------------------------------------------------------


def test_a_genai_record_with_a_duplicate_attribute_key_withholds_its_trace(
    tmp_path: Path,
) -> None:
    bad = record(
        "gen_ai.user.message",
        {"content": "hi"},
        attributes=[kv("gen_ai.system", "openai"), kv("gen_ai.system", "openai")],
    )
    [rejection] = decoded(logs_request(bad))
    assert isinstance(rejection, Rejection)
    assert rejection.field == f"{FIRST_RECORD}.attributes[1].key"
    assert "duplicate key" in rejection.message
    assert rejection.message.startswith("a GenAI log record cannot be read")
    assert (rejection.trace_id, rejection.spans_lost) == (TRACE_A.hex(), True)

    traces, summary = imported(
        tmp_path,
        *proto_files(
            traces_request(TRACE_A, TRACE_B),
            logs_request(bad, *conversation_records(trace_id=TRACE_B)),
        ),
    )
    assert [trace.trace_id for trace in traces] == [TRACE_B.hex()]
    assert summary.rejections[0] == replace(rejection, source=str(tmp_path / "logs.pb"))
    assert {r.trace_id for r in summary.rejections} == {TRACE_A.hex()}
    assert summary.rejected == 1


def test_a_genai_record_with_a_trace_id_of_the_wrong_length_withholds_no_trace(
    tmp_path: Path,
) -> None:
    bad = record("gen_ai.user.message", {"content": "hi"}, trace_id=b"\x01" * 8)
    [rejection] = decoded(logs_request(bad))
    assert isinstance(rejection, Rejection)
    assert rejection.field == f"{FIRST_RECORD}.traceId"
    assert "must be 16 bytes, got 8" in rejection.message
    assert (rejection.trace_id, rejection.spans_lost) == (None, False)

    traces, summary = imported(
        tmp_path, *proto_files(traces_request(), logs_request(bad, *conversation_records()))
    )
    assert summary.rejections == [replace(rejection, source=str(tmp_path / "logs.pb"))]
    [trace] = traces
    assert chat_span_messages(trace) == (CONVERSATION_INPUT, CONVERSATION_OUTPUT)


def test_an_otlp_json_record_with_a_bad_trace_id_names_the_field() -> None:
    document = otlp_json(logs_request(record("gen_ai.user.message", {"content": "hi"})))
    document["resourceLogs"][0]["scopeLogs"][0]["logRecords"][0]["traceId"] = "abc"
    [rejection] = decode_otlp_logs_json(document, "logs.json", 3)
    assert isinstance(rejection, Rejection)
    assert (rejection.field, rejection.line, rejection.trace_id) == (
        f"{FIRST_RECORD}.traceId",
        3,
        None,
    )
    assert not rejection.spans_lost


def test_an_otlp_json_record_with_a_bad_body_withholds_its_readable_trace() -> None:
    document = otlp_json(logs_request(record("gen_ai.user.message", {"content": "hi"})))
    document["resourceLogs"][0]["scopeLogs"][0]["logRecords"][0]["body"] = {"noSuchValue": 1}
    [rejection] = decode_otlp_logs_json(document, "logs.json", 1)
    assert isinstance(rejection, Rejection)
    assert rejection.field is not None
    assert rejection.field.startswith(f"{FIRST_RECORD}.body")
    assert (rejection.trace_id, rejection.spans_lost) == (TRACE_A.hex(), True)


def test_a_non_genai_record_with_a_duplicate_attribute_key_is_counted_not_rejected(
    tmp_path: Path,
) -> None:
    # Other records are "not trailcheck's business": an application log line with a malformed
    # attribute list must neither be rejected nor withhold the trace it was logged in.
    app_log = record(
        "app.request", "GET /refund", attributes=[kv("http.route", "/a"), kv("http.route", "/b")]
    )
    assert decoded(logs_request(app_log)) == [IgnoredLogs("logs.pb", other=1)]
    traces, summary = imported(
        tmp_path, *proto_files(traces_request(), logs_request(app_log, *conversation_records()))
    )
    assert summary.rejections == []
    assert len(traces) == 1


# --- one event per model call, and content not captured --------------------------------------


def test_an_operation_details_record_with_structured_messages(tmp_path: Path) -> None:
    details = record(
        "gen_ai.client.inference.operation.details",
        attributes=[
            kv(semconv.GEN_AI_OPERATION_NAME, "chat"),
            kv(semconv.GEN_AI_SYSTEM_INSTRUCTIONS, [{"type": "text", "content": "Be brief."}]),
            kv(
                semconv.GEN_AI_INPUT_MESSAGES,
                [{"role": "user", "parts": [{"type": "text", "content": "Refund A-1"}]}],
            ),
            kv(
                semconv.GEN_AI_OUTPUT_MESSAGES,
                [
                    {
                        "role": "assistant",
                        "finish_reason": "tool_call",
                        "parts": [
                            {
                                "type": "tool_call",
                                "id": "c1",
                                "name": "lookup_order",
                                "arguments": {"order_id": "A-1"},
                            }
                        ],
                    }
                ],
            ),
        ],
    )
    [trace], summary = imported(tmp_path, *proto_files(traces_request(), logs_request(details)))
    assert summary.rejections == []
    assert chat_span_messages(trace) == (
        [Message(role="system", content="Be brief."), Message(role="user", content="Refund A-1")],
        [
            Message(
                role="assistant",
                tool_calls=[
                    MessageToolCall(id="c1", name="lookup_order", arguments={"order_id": "A-1"})
                ],
            )
        ],
    )
    [call] = trace.tool_calls
    assert (call.call_id, call.arguments, call.recorded_result, call.start_ns) == (
        "c1",
        {"order_id": "A-1"},
        None,
        CHAT_END,
    )


def test_content_not_captured_gives_messages_without_content(tmp_path: Path) -> None:
    no_arguments = {"id": "c1", "type": "function", "function": {"name": "lookup_order"}}
    records = [
        record("gen_ai.user.message"),  # no body at all
        record("gen_ai.assistant.message", {"tool_calls": [no_arguments]}),
        record("gen_ai.tool.message", {"id": "c1"}),
        record("gen_ai.choice", {"index": 0, "finish_reason": "stop"}),
    ]
    [trace], summary = imported(tmp_path, *proto_files(traces_request(), logs_request(*records)))
    assert summary.rejections == []
    assert chat_span_messages(trace) == (
        [
            Message(role="user"),
            Message(role="assistant", tool_calls=[MessageToolCall(id="c1", name="lookup_order")]),
            Message(role="tool", tool_call_id="c1"),
        ],
        [Message(role="assistant")],
    )
    [call] = trace.tool_calls
    assert (call.call_id, call.arguments, call.recorded_result) == ("c1", {}, None)


def test_adks_elided_content_is_read_as_absent(tmp_path: Path) -> None:
    # The bodies Google ADK writes when it does not capture content.
    records = [
        record("gen_ai.system.message", {"content": "<elided>"}),
        record("gen_ai.user.message", {"content": "<elided>"}),
        record("gen_ai.choice", {"content": "<elided>", "index": 0, "finish_reason": "STOP"}),
    ]
    [trace], summary = imported(tmp_path, *proto_files(traces_request(), logs_request(*records)))
    assert summary.rejections == []
    assert chat_span_messages(trace) == (
        [Message(role="system"), Message(role="user")],
        [Message(role="assistant")],
    )


def test_an_adk_content_object_is_kept_as_one_part(tmp_path: Path) -> None:
    gemini = {"role": "user", "parts": [{"text": "Refund A-1"}]}
    records = [record("gen_ai.user.message", {"content": gemini})]
    [trace], _ = imported(tmp_path, *proto_files(traces_request(), logs_request(*records)))
    assert chat_span_messages(trace) == ([Message(role="user", content=[gemini])], None)


# --- telling a logs payload from a traces payload --------------------------------------------


def test_holds_log_records_tells_logs_from_traces() -> None:
    assert holds_log_records(logs_request(*conversation_records()).SerializeToString())
    assert holds_log_records(logs_request(record("", "line", trace_id=b"")).SerializeToString())
    assert not holds_log_records(traces_request().SerializeToString())


def test_an_empty_request_holds_no_log_records() -> None:
    assert not holds_log_records(b"")
    assert not holds_log_records(ExportLogsServiceRequest().SerializeToString())
    assert not holds_log_records(logs_request().SerializeToString())  # a scope, no records
