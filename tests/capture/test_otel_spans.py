"""What OTLP records beside a span's attributes is read from the SDK span as the OTLP importers
read it from an export, under the same reserved ``otel.*`` attributes."""

from __future__ import annotations

import json

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import SpanLimits, TracerProvider
from opentelemetry.trace import (
    Link,
    NonRecordingSpan,
    SpanContext,
    SpanKind,
    TraceFlags,
    set_span_in_context,
)
from opentelemetry.trace.span import TraceState

from trailcheck.capture import TraceCollector
from trailcheck.importing.otlp import decode_otlp_json
from trailcheck.trace import Trace, semconv

SCHEMA_URL = "https://opentelemetry.io/schemas/1.26.0"
LINKED = SpanContext(
    trace_id=0x99,
    span_id=0x42,
    is_remote=True,
    trace_flags=TraceFlags(TraceFlags.SAMPLED),
    trace_state=TraceState([("vendor", "v1")]),
)


def capture_a_detailed_span() -> Trace:
    collector = TraceCollector()
    provider = TracerProvider(
        resource=Resource({"service.name": "shop"}, schema_url=SCHEMA_URL),
        span_limits=SpanLimits(max_span_attributes=1, max_events=1, max_links=1),
    )
    provider.add_span_processor(collector)
    tracer = provider.get_tracer(
        "shop.instrumentation", "1.2.3", schema_url=SCHEMA_URL, attributes={"team": "support"}
    )
    with tracer.start_as_current_span(
        "invoke_agent a",
        kind=SpanKind.SERVER,
        links=[Link(LINKED), Link(LINKED, {"why": "retry"})],
        attributes={"a": 1, "b": 2},
    ) as span:
        span.add_event("first")
        span.add_event("kept", {"k": 1})
    assert collector.rejections == []
    [trace] = collector.traces
    return trace


def test_kind_links_flags_dropped_counts_and_scope_are_kept_as_otel_attributes() -> None:
    trace = capture_a_detailed_span()
    [span] = trace.spans
    assert span.attributes == {
        "b": 2,
        semconv.OTEL_SPAN_KIND: "server",
        semconv.OTEL_FLAGS: span.attributes[semconv.OTEL_FLAGS],
        semconv.OTEL_LINKS: [
            {
                "trace_id": f"{0x99:032x}",
                "span_id": f"{0x42:016x}",
                "trace_state": "vendor=v1",
                "attributes": {"why": "retry"},
                "flags": 0x301,  # sampled; whether remote is known (bit 8), and it is (bit 9)
            }
        ],
        semconv.OTEL_DROPPED_ATTRIBUTES_COUNT: 1,
        semconv.OTEL_DROPPED_EVENTS_COUNT: 1,
        semconv.OTEL_DROPPED_LINKS_COUNT: 1,
        semconv.OTEL_SCOPE_NAME: "shop.instrumentation",
        semconv.OTEL_SCOPE_VERSION: "1.2.3",
        semconv.OTEL_SCOPE_ATTRIBUTES: {"team": "support"},
        semconv.OTEL_SCOPE_SCHEMA_URL: SCHEMA_URL,
        semconv.OTEL_RESOURCE_SCHEMA_URL: SCHEMA_URL,
    }
    # A root span: the SDK's trace flags (sampled at least), bit 8 set, bit 9 (remote) clear.
    assert span.attributes[semconv.OTEL_FLAGS] & 0x301 == 0x101
    assert [(event.name, event.attributes) for event in span.events] == [("kept", {"k": 1})]


def test_a_captured_span_equals_the_same_span_imported_from_an_otlp_export() -> None:
    captured = capture_a_detailed_span()
    [span] = captured.spans
    assert span.end_ns is not None
    flags = span.attributes[semconv.OTEL_FLAGS]
    # The export an OTLP exporter writes for that span (OTLP/JSON).
    export = {
        "resourceSpans": [
            {
                "resource": {"attributes": [_text("service.name", "shop")]},
                "schemaUrl": SCHEMA_URL,
                "scopeSpans": [
                    {
                        "scope": {
                            "name": "shop.instrumentation",
                            "version": "1.2.3",
                            "attributes": [_text("team", "support")],
                        },
                        "schemaUrl": SCHEMA_URL,
                        "spans": [
                            {
                                "traceId": captured.trace_id,
                                "spanId": span.span_id,
                                "name": "invoke_agent a",
                                "kind": 2,  # SPAN_KIND_SERVER
                                "startTimeUnixNano": str(span.start_ns),
                                "endTimeUnixNano": str(span.end_ns),
                                "flags": flags,
                                "attributes": [{"key": "b", "value": {"intValue": "2"}}],
                                "droppedAttributesCount": 1,
                                "events": [
                                    {
                                        "name": "kept",
                                        "timeUnixNano": str(span.events[0].time_ns),
                                        "attributes": [{"key": "k", "value": {"intValue": "1"}}],
                                    }
                                ],
                                "droppedEventsCount": 1,
                                "links": [
                                    {
                                        "traceId": f"{0x99:032x}",
                                        "spanId": f"{0x42:016x}",
                                        "traceState": "vendor=v1",
                                        "attributes": [_text("why", "retry")],
                                        "flags": 0x301,
                                    }
                                ],
                                "droppedLinksCount": 1,
                            }
                        ],
                    }
                ],
            }
        ]
    }
    [imported] = decode_otlp_json(json.dumps(export).encode(), "export.json")
    assert imported == captured


def test_the_trace_state_comes_from_the_span_context() -> None:
    collector = TraceCollector()
    provider = TracerProvider()
    provider.add_span_processor(collector)
    remote = NonRecordingSpan(LINKED)  # a remote parent whose trace state the span inherits
    with provider.get_tracer("t").start_as_current_span(
        "invoke_agent a", context=set_span_in_context(remote)
    ):
        pass
    [trace] = collector.traces
    [span] = trace.spans
    assert span.attributes[semconv.OTEL_TRACE_STATE] == "vendor=v1"
    assert span.attributes[semconv.OTEL_FLAGS] & 0x300 == 0x300  # the parent is remote
    assert span.attributes[semconv.OTEL_SPAN_KIND] == "internal"


def _text(key: str, value: str) -> dict[str, object]:
    return {"key": key, "value": {"stringValue": value}}
