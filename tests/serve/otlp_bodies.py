"""OTLP export bodies for the endpoint tests: protobuf built with the generated classes, and the
same content as OTLP/JSON; log records (GenAI events and others) likewise; and the real
recordings of ``tests/fixtures/real`` with what ``trailcheck import`` makes of them."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import orjson
from google.protobuf import json_format
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue, KeyValueList
from opentelemetry.proto.logs.v1.logs_pb2 import LogRecord
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from trailcheck.importing import import_traces
from trailcheck.trace import Trace

TRACE_A = "0af7651916cd43dd8448eb211c80319c"
TRACE_B = "5b8efff798038103d269b633813fc60c"
ROOT = "b7ad6b7169203331"
TOOL = "c1d2e3f405060708"
LLM = "d1d2d3d4d5d6d7d8"


def string(key: str, value: str) -> Any:
    return KeyValue(key=key, value=AnyValue(string_value=value))


def agent_span(trace_id: str = TRACE_A, *, end: int | None = 9000) -> Any:
    """The root: an agent run that has ended (``end=None``: still running)."""
    return Span(
        trace_id=bytes.fromhex(trace_id),
        span_id=bytes.fromhex(ROOT),
        name="invoke_agent support",
        start_time_unix_nano=1000,
        end_time_unix_nano=end or 0,
        attributes=[
            string("gen_ai.operation.name", "invoke_agent"),
            string("gen_ai.agent.name", "support"),
            string("input.value", "refund order 42"),
        ],
    )


def tool_span(trace_id: str = TRACE_A, *, span_id: str = TOOL, tool: str = "lookup") -> Any:
    """A tool call under the root."""
    return Span(
        trace_id=bytes.fromhex(trace_id),
        span_id=bytes.fromhex(span_id),
        parent_span_id=bytes.fromhex(ROOT),
        name=f"execute_tool {tool}",
        start_time_unix_nano=2000,
        end_time_unix_nano=3000,
        attributes=[
            string("gen_ai.operation.name", "execute_tool"),
            string("gen_ai.tool.name", tool),
            string("gen_ai.tool.call.id", f"call-{span_id}"),
        ],
    )


def llm_span(trace_id: str = TRACE_A) -> Any:
    """A model call under the root, whose messages are in log records (:func:`log_record`)."""
    return Span(
        trace_id=bytes.fromhex(trace_id),
        span_id=bytes.fromhex(LLM),
        parent_span_id=bytes.fromhex(ROOT),
        name="chat shop-model",
        start_time_unix_nano=1500,
        end_time_unix_nano=1900,
        attributes=[
            string("gen_ai.operation.name", "chat"),
            string("gen_ai.request.model", "shop-model"),
        ],
    )


def log_record(
    trace_id: str | None = TRACE_A,
    span_id: str | None = LLM,
    *,
    event: str = "gen_ai.user.message",
    content: str = "refund order 42",
    time: int = 1600,
) -> Any:
    """A log record: by default a GenAI user message of the model call; ``trace_id`` and
    ``span_id`` None leave the ids out, as a record emitted outside a span has none."""
    body = AnyValue(
        kvlist_value=KeyValueList(
            values=[KeyValue(key="content", value=AnyValue(string_value=content))]
        )
    )
    return LogRecord(
        time_unix_nano=time,
        event_name=event,
        body=body,
        attributes=[string("gen_ai.system", "openai")],
        trace_id=bytes.fromhex(trace_id) if trace_id else b"",
        span_id=bytes.fromhex(span_id) if span_id else b"",
    )


def app_log(text: str = "request handled") -> Any:
    """An application's own log record: no event name, not a GenAI event."""
    return LogRecord(
        time_unix_nano=1700,
        severity_text="INFO",
        body=AnyValue(string_value=text),
        trace_id=bytes.fromhex(TRACE_A),
        span_id=bytes.fromhex(ROOT),
    )


def logs_body(*records: Any) -> bytes:
    request = ExportLogsServiceRequest()
    entry = request.resource_logs.add()
    entry.resource.attributes.extend([string("service.name", "shop-agent")])
    scope = entry.scope_logs.add()
    scope.scope.name = "tests"
    scope.log_records.extend(records)
    return bytes(request.SerializeToString())


def protobuf_body(*spans: Any) -> bytes:
    request = ExportTraceServiceRequest()
    entry = request.resource_spans.add()
    entry.resource.attributes.extend([string("service.name", "shop-agent")])
    scope = entry.scope_spans.add()
    scope.scope.name = "tests"
    scope.spans.extend(spans)
    return bytes(request.SerializeToString())


def _json_span(span: Any) -> dict[str, Any]:
    document: dict[str, Any] = {
        "traceId": span.trace_id.hex(),
        "spanId": span.span_id.hex(),
        "name": span.name,
        "startTimeUnixNano": str(span.start_time_unix_nano),
        "endTimeUnixNano": str(span.end_time_unix_nano),
        "attributes": [
            {"key": a.key, "value": {"stringValue": a.value.string_value}} for a in span.attributes
        ],
    }
    if span.parent_span_id:
        document["parentSpanId"] = span.parent_span_id.hex()
    return document


def json_body(*spans: Any) -> bytes:
    """The OTLP/JSON form of :func:`protobuf_body`'s request (hex ids, as OTLP/JSON spells)."""
    resource = {"attributes": [{"key": "service.name", "value": {"stringValue": "shop-agent"}}]}
    return orjson.dumps(
        {
            "resourceSpans": [
                {
                    "resource": resource,
                    "scopeSpans": [
                        {"scope": {"name": "tests"}, "spans": [_json_span(s) for s in spans]}
                    ],
                }
            ]
        }
    )


REAL = Path(__file__).resolve().parent.parent / "fixtures" / "real"
# The official OpenAI instrumentation's default mode: messages in log records (one per message).
REAL_PAIR = "openai-v2-2.4b0-legacy-events"
REFUND_INPUT = "Please refund order A-1001, I'm ana@example.com"
REFUND_ANSWER = "Refund R-77 of $129.00 has been issued for order A-1001."


def real_body(signal: str, encoding: str = "protobuf", name: str = REAL_PAIR) -> bytes:
    """The recorded export of ``signal`` (``traces`` or ``logs``) as a request body, in
    protobuf as recorded, or in OTLP/JSON (``encoding="json"``)."""
    recorded = (REAL / f"{name}.{signal}.pb").read_bytes()
    if encoding == "protobuf":
        return recorded
    request = ExportTraceServiceRequest if signal == "traces" else ExportLogsServiceRequest
    return otlp_json(request.FromString(recorded))


_ID_FIELDS = frozenset({"traceId", "spanId", "parentSpanId"})


def _hex_ids(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            key: base64.b64decode(item).hex() if key in _ID_FIELDS else _hex_ids(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_hex_ids(item) for item in value]
    return value


def otlp_json(message: Any) -> bytes:
    """An export request as OTLP/JSON: protobuf's JSON mapping, with enums as integers and
    trace and span ids in hex (where protobuf's mapping writes base64)."""
    document = json_format.MessageToDict(message, use_integers_for_enums=True)
    return orjson.dumps(_hex_ids(document))


def imported_traces(
    directory: Path = REAL, suffix: str = "pb", name: str = REAL_PAIR
) -> dict[str, Trace]:
    """What ``trailcheck import`` makes of the recorded pair (or of the pair of files
    ``<name>.traces.<suffix>`` and ``<name>.logs.<suffix>`` in ``directory``), by trace id."""
    found: list[Trace] = []
    files = [directory / f"{name}.{signal}.{suffix}" for signal in ("traces", "logs")]
    summary = import_traces(files, found.append)
    assert summary.rejections == []
    assert summary.logs.joined > 0
    return {trace.trace_id: trace for trace in found}


def refund_of(traces: dict[str, Trace]) -> Trace:
    """The refund conversation among the recorded traces."""
    [refund] = [trace for trace in traces.values() if trace.input_text == REFUND_INPUT]
    return refund
