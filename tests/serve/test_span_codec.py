"""The pending payload codec: every RawSpan the decoders yield comes back equal."""

from __future__ import annotations

import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from trailcheck.errors import RecordError
from trailcheck.importing.records import RawSpan, SpanLink
from trailcheck.importing.transport.otlp_json import decode_otlp_json_spans
from trailcheck.importing.transport.otlp_proto import decode_otlp_proto_spans
from trailcheck.serve import decode_span, encode_span, encode_span_parts, pending_span
from trailcheck.trace import SpanEvent

_INT64 = st.integers(min_value=-(2**63), max_value=2**63 - 1)
_SCALARS = st.none() | st.booleans() | _INT64 | st.floats(allow_nan=False, allow_infinity=False)
_VALUES: Any = st.recursive(
    _SCALARS | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)
_ATTRIBUTES = st.dictionaries(st.text(), _VALUES, max_size=4)


@pytest.mark.parametrize(
    "name", ["genai_agent_run.json", "openinference_run.json", "span_details.json"]
)
def test_decoded_fixture_spans_round_trip(fixtures: Path, name: str) -> None:
    spans = list(decode_otlp_json_spans((fixtures / "otlp" / name).read_bytes(), name))
    assert spans
    assert all(isinstance(span, RawSpan) for span in spans)
    for span in spans:
        assert isinstance(span, RawSpan)
        assert decode_span(encode_span(span)) == span


@given(
    attributes=_ATTRIBUTES,
    resource=_ATTRIBUTES,
    end_ns=st.none() | st.integers(min_value=0, max_value=2**64 - 1),
    kind=st.sampled_from([None, "internal", "server", "client", "producer", "consumer"]),
    event_attributes=_ATTRIBUTES,
    link_attributes=_ATTRIBUTES,
)
def test_any_span_round_trips(
    attributes: dict[str, Any],
    resource: dict[str, Any],
    end_ns: int | None,
    kind: Any,
    event_attributes: dict[str, Any],
    link_attributes: dict[str, Any],
) -> None:
    span = RawSpan(
        trace_id="t" * 32,
        span_id="s" * 16,
        parent_id=None,
        name="n",
        start_ns=0,
        end_ns=end_ns,
        status_code="error",
        status_message="boom",
        attributes=attributes,
        events=[SpanEvent(name="e", time_ns=5, attributes=event_attributes)],
        resource=resource,
        otel_kind=kind,
        links=[SpanLink(trace_id="a" * 32, span_id="b" * 16, attributes=link_attributes)],
        line=3,
        source="f.json",
    )
    assert decode_span(encode_span(span)) == span


def _span(**fields: Any) -> RawSpan:
    return RawSpan(
        trace_id="t", span_id="s", parent_id="p", name="n", start_ns=1, end_ns=2, **fields
    )


def test_a_value_json_cannot_hold_is_a_record_error_naming_the_span() -> None:
    with pytest.raises(RecordError, match="span 's'") as raised:
        encode_span(_span(attributes={"big": 2**70}))
    assert "64-bit" in str(raised.value)


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        (b'{"version": 9, "span": {}}', "version"),
        (b"[]", None),
        (b"not json", None),
    ],
)
def test_a_payload_that_is_not_one_is_a_record_error(payload: bytes, field: str | None) -> None:
    with pytest.raises(RecordError, match="not a pending span payload") as raised:
        decode_span(payload)
    assert raised.value.field == field


def test_a_damaged_field_is_named_and_not_coerced() -> None:
    payload = encode_span(_span()).replace(b'"start_ns":1', b'"start_ns":"1"')
    with pytest.raises(RecordError) as raised:
        decode_span(payload)
    assert raised.value.field == "span.start_ns"


def test_the_parts_round_trip_and_the_span_leaves_its_defaults_and_origin_out() -> None:
    span = _span(resource={"service.name": "shop"}, scope_name="tests", source="POST /v1/traces")
    payload, origin = encode_span_parts(span)
    assert origin is not None
    assert decode_span(payload, origin) == span
    assert b"shop" not in payload
    assert b"status_message" not in payload  # a default: left out
    assert encode_span_parts(_span()) == (encode_span(_span()), None)


def test_a_tiny_span_is_held_in_a_few_times_its_protobuf_size() -> None:
    """The pending row of the smallest span an exporter sends (ids, a name, two times) is a
    small multiple of its OTLP encoding, not kilobytes."""
    otlp = Span(
        trace_id=bytes(range(1, 17)),
        span_id=bytes(range(1, 9)),
        parent_span_id=bytes(range(2, 10)),
        name="s",
        start_time_unix_nano=1_000,
        end_time_unix_nano=2_000,
    )
    body = ExportTraceServiceRequest()
    body.resource_spans.add().scope_spans.add().spans.append(otlp)
    [raw] = decode_otlp_proto_spans(body.SerializeToString(), "POST /v1/traces")
    assert isinstance(raw, RawSpan)
    row = pending_span(raw, 1)
    held = len(row.payload) + len(row.trace_id) + len(row.span_id)
    assert held <= 5 * len(otlp.SerializeToString())
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        rows = [pending_span(raw, 1) for _ in range(100)]
        per_row = (tracemalloc.get_traced_memory()[0] - before) / len(rows)
    finally:
        tracemalloc.stop()
    assert per_row < 1024  # orjson's 4 KiB output buffer is not kept
