"""OTLP protobuf traces: the bytes of an ``ExportTraceServiceRequest`` (what OTLP/HTTP posts with
``Content-Type: application/x-protobuf``), into Traces.

Ids become lowercase hex, AnyValues plain values, and the span kind, links, trace state, flags,
dropped counts and scope details RawSpan fields, exactly as from OTLP/JSON (the value rules
are shared in :mod:`~trailcheck.importing.transport.otlp_values`), and field paths in errors use the
OTLP/JSON names, so the same content gives the same Traces and the same Rejections in either
encoding.
A payload that does not parse is one Rejection. The generated protobuf classes are untyped; they
are only touched here and in ``otlp_values.ProtoSyntax``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any, Final

# protobuf ships no type stubs, and pyproject only waives them for opentelemetry.proto.*.
from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from trailcheck.errors import RecordError
from trailcheck.importing.records import RawSpan, Rejection, SpanItem, SpanLink
from trailcheck.importing.transport.lost_spans import lost_spans
from trailcheck.importing.transport.otel_attributes import event_attributes
from trailcheck.importing.transport.otlp_ids import bytes_id
from trailcheck.importing.transport.otlp_json import looks_like_otlp_json
from trailcheck.importing.transport.otlp_logs import decode_otlp_logs_proto
from trailcheck.importing.transport.otlp_record_kind import first_record_kind
from trailcheck.importing.transport.otlp_values import (
    PROTO_SYNTAX,
    SPAN_ID_BYTES,
    TRACE_ID_BYTES,
    SpanOrigin,
    decode_key_values,
    otel_span_kind,
    span_times,
    status_code,
    storable_time,
)
from trailcheck.trace import SpanEvent

__all__ = [
    "decode_otlp_proto_items",
    "decode_otlp_proto_spans",
    "decode_resource_spans",
    "holds_log_records",
    "looks_like_otlp_proto",
]

# Protobuf tags (field number << 3 | wire type 2, length-delimited): ExportTraceServiceRequest has
# only resource_spans = 1; a ResourceSpans holds resource = 1, scope_spans = 2, schema_url = 3.
_RESOURCE_SPANS_TAG: Final = 0x0A
_RESOURCE_SPANS_FIELD_TAGS: Final = frozenset({0x0A, 0x12, 0x1A})


def looks_like_otlp_proto(head: bytes) -> bool:
    """True when the first bytes of an input walk like an ``ExportTraceServiceRequest``: not
    OTLP/JSON, a sequence of resource_spans fields, each starting with ResourceSpans fields. The
    last field may be cut off where ``head`` ends."""
    if not head or looks_like_otlp_json(head):
        return False
    position = 0
    while position < len(head):
        if head[position] != _RESOURCE_SPANS_TAG:
            return False
        found = _varint(head, position + 1)
        if found is None:
            return position > 0
        length, start = found
        if not _fields_fit(head[start : start + length], _RESOURCE_SPANS_FIELD_TAGS):
            return False
        position = start + length
    return True


def decode_otlp_proto_items(data: bytes, source: str) -> Iterator[SpanItem]:
    """The spans of an ``ExportTraceServiceRequest``, or the GenAI log events of an
    ``ExportLogsServiceRequest`` (:mod:`trailcheck.importing.transport.otlp_logs`), told apart by
    the first
    record's first field: a span starts with its trace id, a log record never does."""
    if holds_log_records(data):
        return decode_otlp_logs_proto(data, source)
    return decode_otlp_proto_spans(data, source)


def holds_log_records(data: bytes) -> bool:
    """Whether protobuf bytes of an OTLP export hold log records rather than spans: whether
    their first record is a log record
    (:func:`~trailcheck.importing.transport.otlp_record_kind.first_record_kind`). Bytes that are
    not whole protobuf (a file cut off mid-write) are walked field by field up to where they
    are cut, so a cut logs file is still read, and refused, as logs."""
    kind = first_record_kind(data)
    if kind != "unreadable":
        return kind == "log"
    for resource in _fields(data, 0x0A):
        for scope in _fields(resource, 0x12):
            for record in _fields(scope, 0x12):
                return record[:1] != b"\x0a"
    return False


def decode_otlp_proto_spans(data: bytes, source: str) -> Iterator[RawSpan | Rejection]:
    """Every span of the payload, in order (each carrying ``source``), or a Rejection where one
    cannot be read (its ``trace_id`` names the trace that lost the span; ``None`` when that
    cannot be known)."""
    try:
        request: Any = ExportTraceServiceRequest.FromString(data)
    except DecodeError as error:
        yield Rejection(source, f"not an OTLP protobuf ExportTraceServiceRequest: {error}")
        return
    for index, resource_spans in enumerate(request.resource_spans):
        yield from decode_resource_spans(resource_spans, f"resourceSpans[{index}]", source)


def decode_resource_spans(entry: Any, path: str, source: str) -> Iterator[RawSpan | Rejection]:
    """The spans of one parsed ``ResourceSpans`` found at ``path`` (``resourceSpans[3]``), or
    the Rejections of those that cannot be read."""
    try:
        resource = SpanOrigin(
            resource=_attributes(entry.resource, f"{path}.resource"),
            resource_dropped_attributes_count=int(entry.resource.dropped_attributes_count),
            resource_schema_url=str(entry.schema_url) or None,
        )
    except RecordError as error:
        trace_ids = [
            _peek_trace_id(span) for scope_spans in entry.scope_spans for span in scope_spans.spans
        ]
        yield from lost_spans(error, trace_ids, source, None)
        return
    for scope_index, scope_spans in enumerate(entry.scope_spans):
        scope_path = f"{path}.scopeSpans[{scope_index}]"
        yield from _decode_scope_spans(scope_spans, scope_path, resource, source)


def _decode_scope_spans(
    entry: Any, path: str, resource: SpanOrigin, source: str
) -> Iterator[RawSpan | Rejection]:
    scope = entry.scope
    try:
        origin = dataclasses.replace(
            resource,
            scope_name=str(scope.name) or None,
            scope_version=str(scope.version) or None,
            scope_attributes=_attributes(scope, f"{path}.scope"),
            scope_dropped_attributes_count=int(scope.dropped_attributes_count),
            scope_schema_url=str(entry.schema_url) or None,
        )
    except RecordError as error:
        yield from lost_spans(error, [_peek_trace_id(span) for span in entry.spans], source, None)
        return
    for span_index, span in enumerate(entry.spans):
        try:
            yield origin.stamp(_decode_span(span, f"{path}.spans[{span_index}]", source))
        except RecordError as error:
            yield Rejection(
                source,
                error.message,
                span_id=_peek_id(span.span_id, SPAN_ID_BYTES),
                field=error.field,
                trace_id=_peek_trace_id(span),
            )


def _decode_span(span: Any, path: str, source: str) -> RawSpan:
    start_ns, end_ns = span_times(
        int(span.start_time_unix_nano), int(span.end_time_unix_nano), path
    )
    parent = bytes(span.parent_span_id)
    return RawSpan(
        trace_id=bytes_id(bytes(span.trace_id), TRACE_ID_BYTES, f"{path}.traceId"),
        span_id=bytes_id(bytes(span.span_id), SPAN_ID_BYTES, f"{path}.spanId"),
        # Empty bytes are how OTLP writes "no parent".
        parent_id=bytes_id(parent, SPAN_ID_BYTES, f"{path}.parentSpanId") if parent else None,
        name=str(span.name),
        start_ns=start_ns,
        end_ns=end_ns,
        status_code=status_code(int(span.status.code), f"{path}.status.code"),
        status_message=str(span.status.message) or None,
        attributes=_attributes(span, path),
        events=[_decode_event(event, f"{path}.events[{i}]") for i, event in enumerate(span.events)],
        otel_kind=otel_span_kind(int(span.kind), f"{path}.kind"),
        trace_state=str(span.trace_state) or None,
        flags=int(span.flags),
        links=[_decode_link(link, f"{path}.links[{i}]") for i, link in enumerate(span.links)],
        dropped_attributes_count=int(span.dropped_attributes_count),
        dropped_events_count=int(span.dropped_events_count),
        dropped_links_count=int(span.dropped_links_count),
        source=source,
    )


def _decode_event(event: Any, path: str) -> SpanEvent:
    return SpanEvent(
        name=str(event.name),
        time_ns=storable_time(int(event.time_unix_nano), f"{path}.timeUnixNano"),
        attributes=event_attributes(
            _attributes(event, path), int(event.dropped_attributes_count), f"{path}.attributes"
        ),
    )


def _decode_link(link: Any, path: str) -> SpanLink:
    return SpanLink(
        trace_id=bytes_id(bytes(link.trace_id), TRACE_ID_BYTES, f"{path}.traceId"),
        span_id=bytes_id(bytes(link.span_id), SPAN_ID_BYTES, f"{path}.spanId"),
        trace_state=str(link.trace_state) or None,
        attributes=_attributes(link, path),
        flags=int(link.flags),
        dropped_attributes_count=int(link.dropped_attributes_count),
    )


def _attributes(owner: Any, path: str) -> dict[str, Any]:
    """The ``attributes`` of a span, event, link, scope or resource."""
    return decode_key_values(PROTO_SYNTAX, list(owner.attributes), f"{path}.attributes")


def _peek_trace_id(span: Any) -> str | None:
    return _peek_id(span.trace_id, TRACE_ID_BYTES)


def _peek_id(raw: Any, size: int) -> str | None:
    """The id of a span that failed to decode, when the id itself is valid."""
    try:
        return bytes_id(bytes(raw), size, "")
    except RecordError:
        return None


def _varint(data: bytes, position: int) -> tuple[int, int] | None:
    """``(value, position after it)`` of the varint at ``position``; ``None`` if cut off."""
    value = shift = 0
    while position < len(data) and shift < 64:
        byte = data[position]
        position += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, position
        shift += 7
    return None


def _fields(data: bytes, tag: int) -> Iterator[bytes]:
    """The bytes of each length-delimited field with ``tag``, in order, up to where the data is
    cut off. Fields of other wire types are skipped."""
    position = 0
    while position < len(data):
        header = _varint(data, position)
        if header is None:
            return
        key, position = header
        wire_type = key & 0x7
        if wire_type == 0:
            found = _varint(data, position)
            if found is None:
                return
            position = found[1]
        elif wire_type in (1, 5):
            position += 8 if wire_type == 1 else 4
        elif wire_type == 2:
            found = _varint(data, position)
            if found is None:
                return
            length, start = found
            if key == tag:
                yield data[start : start + length]
            position = start + length
        else:
            return


def _fields_fit(data: bytes, tags: frozenset[int]) -> bool:
    """Every field of ``data`` is length-delimited with one of ``tags``; the last may be cut off."""
    position = 0
    while position < len(data):
        if data[position] not in tags:
            return False
        found = _varint(data, position + 1)
        if found is None:
            return True
        length, start = found
        position = start + length
    return True
