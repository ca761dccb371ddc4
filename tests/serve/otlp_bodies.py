"""OTLP export bodies for the endpoint tests: protobuf built with the generated classes, and the
same content as OTLP/JSON."""

from __future__ import annotations

from typing import Any

import orjson
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span

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
