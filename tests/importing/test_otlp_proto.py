"""OTLP protobuf payloads into RawSpans and Traces, equal to the same content as OTLP/JSON."""

from __future__ import annotations

import base64
import dataclasses
import io
from pathlib import Path
from typing import Any

import orjson
import pytest
from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, Span, Status

from trailcheck.importing.otlp import decode_otlp_json, decode_otlp_proto, read_otlp_proto
from trailcheck.importing.records import RawSpan, Rejection
from trailcheck.importing.transport.otlp_json import decode_otlp_json_spans
from trailcheck.importing.transport.otlp_proto import decode_otlp_proto_spans, looks_like_otlp_proto
from trailcheck.trace import Trace

TRACE_A = bytes.fromhex("0af7651916cd43dd8448eb211c80319c")
TRACE_B = bytes.fromhex("5b8efff798038103d269b633813fc60c")
ROOT = bytes.fromhex("b7ad6b7169203331")
CHILD = bytes.fromhex("c1d2e3f405060708")
ROOT_DETAILS = "a1a2a3a4a5a6a7a8"
_ID_KEYS = ("traceId", "spanId", "parentSpanId")


def from_otlp_json(document: bytes) -> Any:
    """An OTLP/JSON document as a protobuf request, read by protobuf's own JSON parser. That
    parser follows the generic mapping, whose ids are base64, so the hex ids are converted."""

    def base64_ids(node: Any) -> Any:
        if isinstance(node, list):
            return [base64_ids(item) for item in node]
        if not isinstance(node, dict):
            return node
        return {
            key: (
                base64.b64encode(bytes.fromhex(value)).decode()
                if key in _ID_KEYS
                else base64_ids(value)
            )
            for key, value in node.items()
        }

    request = ExportTraceServiceRequest()
    json_format.ParseDict(base64_ids(orjson.loads(document)), request)
    return request


def string(key: str, value: str) -> Any:
    return KeyValue(key=key, value=AnyValue(string_value=value))


def span(trace_id: bytes = TRACE_A, span_id: bytes = ROOT, **fields: Any) -> Any:
    values: dict[str, Any] = {
        "trace_id": trace_id,
        "span_id": span_id,
        "name": "invoke_agent a",
        "start_time_unix_nano": 1000,
        "end_time_unix_nano": 2000,
        "attributes": [string("gen_ai.operation.name", "invoke_agent")],
    }
    values.update(fields)
    return Span(**values)


def payload(*spans: Any, resource: list[Any] | None = None) -> bytes:
    request = ExportTraceServiceRequest()
    entry = request.resource_spans.add()
    entry.resource.attributes.extend(resource or [])
    scope = entry.scope_spans.add()
    scope.scope.name = "agent"
    scope.spans.extend(spans)
    return bytes(request.SerializeToString())


def split(items: list[Any]) -> tuple[list[Any], list[Rejection]]:
    kept = [item for item in items if not isinstance(item, Rejection)]
    return kept, [item for item in items if isinstance(item, Rejection)]


def without_line(spans: list[RawSpan]) -> list[RawSpan]:
    return [dataclasses.replace(s, line=None) for s in spans]


# --- the same content in both encodings gives the same spans and traces ----------------------


@pytest.mark.parametrize(
    "name", ["genai_agent_run.json", "openinference_run.json", "span_details.json"]
)
def test_fixture_equals_its_json(fixtures: Path, name: str) -> None:
    document = (fixtures / "otlp" / name).read_bytes()
    data = from_otlp_json(document).SerializeToString()
    json_spans, json_rejections = split(list(decode_otlp_json_spans(document, name)))
    proto_spans, proto_rejections = split(list(decode_otlp_proto_spans(data, name)))
    assert json_rejections == proto_rejections == []
    assert proto_spans == without_line(json_spans)
    json_traces = list(decode_otlp_json(document, name))
    proto_traces = list(decode_otlp_proto(data, name))
    assert proto_traces == json_traces
    assert proto_traces[0].tool_calls


def test_concatenated_requests_equal_the_collector_jsonl(fixtures: Path) -> None:
    # Serialized protobuf messages concatenate into one: repeated fields append.
    lines = (fixtures / "otlp" / "collector_file_export.jsonl").read_bytes().splitlines()
    data = b"".join(from_otlp_json(line).SerializeToString() for line in lines)
    proto_traces = list(decode_otlp_proto(data, "x"))
    assert proto_traces == list(decode_otlp_json(b"\n".join(lines), "x"))
    assert [len(trace.spans) for trace in proto_traces] == [3, 2]
    weather = proto_traces[0]
    assert [(c.name, c.call_id, c.arguments) for c in weather.tool_calls] == [
        ("get_weather", "t1", {"city": "Oslo", "days": 3})
    ]


def test_span_fields() -> None:
    child = span(
        span_id=CHILD,
        parent_span_id=ROOT,
        name="execute_tool lookup",
        status=Status(code=Status.STATUS_CODE_ERROR, message="timeout"),
        attributes=[
            string("gen_ai.operation.name", "execute_tool"),
            string("gen_ai.tool.name", "lookup"),
            KeyValue(key="blob", value=AnyValue(bytes_value=b"\x00\xff")),
            KeyValue(key="empty"),
        ],
        events=[Span.Event(time_unix_nano=1500, name="exception", attributes=[string("a", "b")])],
    )
    root = span(end_time_unix_nano=0)
    spans, rejections = split(list(decode_otlp_proto_spans(payload(root, child), "p")))
    assert rejections == []
    first, second = spans
    assert (first.parent_id, first.end_ns, first.status_code, first.scope_name) == (
        None,
        None,
        "unset",
        "agent",
    )
    assert (second.trace_id, second.span_id, second.parent_id) == (
        TRACE_A.hex(),
        CHILD.hex(),
        ROOT.hex(),
    )
    assert (second.status_code, second.status_message) == ("error", "timeout")
    assert second.attributes["blob"] == "AP8="
    assert second.attributes["empty"] is None
    assert [(e.name, e.time_ns, e.attributes) for e in second.events] == [
        ("exception", 1500, {"a": "b"})
    ]
    (trace,), _ = split(list(decode_otlp_proto(payload(span(), child), "p")))
    assert [(c.name, c.error) for c in trace.tool_calls] == [("lookup", "timeout")]


# --- bad payloads and bad spans -------------------------------------------------------------


@pytest.mark.parametrize("data", [b"\xff\xff\xff", payload(span())[:-3]])
def test_unparseable_payload_is_one_rejection(data: bytes) -> None:
    (rejection,) = decode_otlp_proto(data, "p.bin")
    assert isinstance(rejection, Rejection)
    assert rejection.source == "p.bin"
    assert "not an OTLP protobuf ExportTraceServiceRequest" in rejection.message


def test_empty_payload_is_an_empty_request() -> None:
    assert list(decode_otlp_proto(b"", "p")) == []


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"span_id": b"\x01\x02"}, "spanId", "must be 8 bytes, got 2"),
        ({"parent_span_id": bytes(8)}, "parentSpanId", "all zeros"),
        ({"start_time_unix_nano": 0}, "startTimeUnixNano", "no start time"),
        ({"status": Status(code=5)}, "status.code", "must be 0, 1, 2"),
        (
            {"attributes": [KeyValue(key="x", value=AnyValue(double_value=float("nan")))]},
            "attributes[0].value",
            "not finite",
        ),
        ({"attributes": [string("x", "1"), string("x", "2")]}, "attributes[1].key", "duplicate"),
        (
            {"events": [Span.Event(name="e", attributes=[KeyValue(key="")])]},
            "events[0].attributes[0].key",
            "non-empty key",
        ),
    ],
)
def test_bad_span_withholds_its_trace_only(
    fields: dict[str, Any], field: str, message: str
) -> None:
    good = span(trace_id=TRACE_B)
    traces, rejections = split(list(decode_otlp_proto(payload(good, span(**fields)), "p")))
    assert [trace.trace_id for trace in traces] == [TRACE_B.hex()]
    (rejection,) = rejections
    assert rejection.field == f"resourceSpans[0].scopeSpans[0].spans[1].{field}"
    assert message in rejection.message
    assert rejection.trace_id == TRACE_A.hex()
    assert rejection.span_id == (None if field == "spanId" else ROOT.hex())
    assert rejection.line is None


def test_span_of_a_complete_trace_is_withheld_with_the_bad_one() -> None:
    data = payload(span(), span(span_id=CHILD, parent_span_id=ROOT, start_time_unix_nano=0))
    traces, (bad, withheld) = split(list(decode_otlp_proto(data, "p")))
    assert traces == []
    assert (bad.span_id, withheld.trace_id) == (CHILD.hex(), TRACE_A.hex())
    assert "1 readable span(s)" in withheld.message


def test_unreadable_trace_id_withholds_every_trace() -> None:
    data = payload(span(trace_id=TRACE_B), span(trace_id=b"\x01\x02\x03", span_id=CHILD))
    traces, rejections = split(list(decode_otlp_proto(data, "p")))
    assert traces == []
    assert [(r.trace_id, r.span_id) for r in rejections] == [(None, CHILD.hex()), (None, None)]
    assert rejections[0].field == "resourceSpans[0].scopeSpans[0].spans[1].traceId"
    assert rejections[1].message.startswith(
        "1 trace withheld because part of the input"
        " (resourceSpans[0].scopeSpans[0].spans[1].traceId) could not be read"
    )


def test_bad_resource_rejects_each_trace_under_it() -> None:
    resource = [string("service.name", "a"), string("service.name", "b")]
    data = payload(span(), span(trace_id=TRACE_B), resource=resource)
    traces, rejections = split(list(decode_otlp_proto(data, "p")))
    assert traces == []
    assert [r.trace_id for r in rejections] == [TRACE_A.hex(), TRACE_B.hex()]
    assert {r.field for r in rejections} == {"resourceSpans[0].resource.attributes[1].key"}


# --- content detection and the stream entry point ---------------------------------------------


def test_looks_like_otlp_proto(fixtures: Path) -> None:
    document = (fixtures / "otlp" / "genai_agent_run.json").read_bytes()
    data = from_otlp_json(document).SerializeToString()
    assert looks_like_otlp_proto(data)
    for cut in (3, 10, 100, len(data) // 2):  # two bytes could still be a cut-off varint
        assert looks_like_otlp_proto(data[:cut]), cut
    jsonl = (fixtures / "otlp" / "collector_file_export.jsonl").read_bytes()
    for text in (document, jsonl, b'\n{"trace_id": "a"}\n', b"\n\nhello", b"\n", b""):
        assert not looks_like_otlp_proto(text), text[:20]


def test_a_resource_spans_of_123_bytes_is_still_protobuf() -> None:
    # 123 is "{" in ASCII: the payload starts b"\n{", like JSON after a newline.
    for length in range(200):
        entry = ResourceSpans()
        entry.resource.attributes.append(string("k", "v" * length))
        if entry.ByteSize() == 123:
            break
    request = ExportTraceServiceRequest(resource_spans=[entry])
    data = request.SerializeToString()
    assert data[:2] == b"\n{"
    assert looks_like_otlp_proto(data)


def test_read_matches_decode() -> None:
    data = payload(span(), span(trace_id=TRACE_B))
    assert list(read_otlp_proto(io.BytesIO(data), "p")) == list(decode_otlp_proto(data, "p"))


def test_span_details_are_kept_as_from_json(fixtures: Path) -> None:
    document = (fixtures / "otlp" / "span_details.json").read_bytes()
    data = from_otlp_json(document).SerializeToString()
    (root, tool, step), rejections = split(list(decode_otlp_proto_spans(data, "p")))
    assert rejections == []
    assert (root.otel_kind, tool.otel_kind, step.otel_kind) == ("server", "client", None)
    assert (root.trace_state, root.flags, root.source) == ("vendor=abc,other=1", 769, "p")
    assert (root.dropped_attributes_count, root.dropped_events_count) == (4, 5)
    assert root.dropped_links_count == 6
    assert [(link.span_id, link.trace_state, link.flags) for link in root.links] == [
        ("b7ad6b7169203331", "k=v", 1),
        ("c1c2c3c4c5c6c7c8", None, 0),
    ]
    assert (root.scope_name, root.scope_version, root.scope_attributes) == (
        "openai.agents",
        "0.4.2",
        {"instrumentation.mode": "auto"},
    )
    assert (root.scope_dropped_attributes_count, root.resource_dropped_attributes_count) == (2, 1)
    assert (root.scope_schema_url, root.resource_schema_url) == (
        "https://opentelemetry.io/schemas/1.27.0",
        "https://opentelemetry.io/schemas/1.26.0",
    )
    (trace,) = decode_otlp_proto(data, "p")
    assert isinstance(trace, Trace)
    assert trace.tree.get(ROOT_DETAILS).attributes["otel.span.kind"] == "server"


def test_an_unknown_span_kind_rejects_the_span() -> None:
    # Protobuf enums are open: a kind from a newer OTLP arrives as its number.
    (rejection,) = split(list(decode_otlp_proto_spans(payload(span(kind=9)), "p")))[1]
    assert rejection.field == "resourceSpans[0].scopeSpans[0].spans[0].kind"
    assert "must be 0 to 5" in rejection.message
