"""OTLP/JSON traces: one ``ExportTraceServiceRequest`` document (what OTLP/HTTP posts with
``Content-Type: application/json``), or the collector's file exporter output (JSON Lines, one
such document per line).

Spans decode into :class:`~trailcheck.ingest.records.RawSpan` values following the OTLP/JSON
rules: lowerCamelCase field names, trace and span ids in hex (not base64), 64-bit integers as
decimal strings or numbers, omitted fields meaning their protobuf default, unknown fields
ignored. ``assemble_traces`` then groups them into Traces.

A span that cannot be read is a Rejection naming the source, line, field path and span id; the
other spans of its trace are withheld with a Rejection of their own, so no trace is ever imported
with a span silently missing (:func:`assemble_complete_traces`, which the protobuf reader shares).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, BinaryIO

import orjson

from trailcheck.errors import RecordError
from trailcheck.ingest.complete_traces import assemble_complete_traces, lost_spans
from trailcheck.ingest.otlp_values import (
    JSON_SYNTAX,
    SPAN_ID_BYTES,
    TRACE_ID_BYTES,
    UINT64_MAX,
    decode_key_values,
    field_error,
    hex_id,
    json_integer,
    json_list,
    json_object,
    span_times,
    status_code,
)
from trailcheck.ingest.records import RawSpan, Rejection
from trailcheck.trace import SpanEvent, Trace

__all__ = [
    "decode_otlp_json",
    "decode_otlp_json_spans",
    "looks_like_otlp_json",
    "read_otlp_json",
]


def looks_like_otlp_json(head: bytes) -> bool:
    """True when the first bytes of an input look like OTLP/JSON trace export(s)."""
    return head.lstrip()[:1] == b"{" and b'"resourceSpans"' in head


def read_otlp_json(stream: BinaryIO, source: str) -> Iterator[Trace | Rejection]:
    """The traces of an OTLP/JSON file (one document, or one document per line)."""
    return decode_otlp_json(stream.read(), source)


def decode_otlp_json(data: bytes, source: str) -> Iterator[Trace | Rejection]:
    """The traces of OTLP/JSON bytes, such as the body of an OTLP/HTTP request."""
    return assemble_complete_traces(decode_otlp_json_spans(data, source), source)


def decode_otlp_json_spans(data: bytes, source: str) -> Iterator[RawSpan | Rejection]:
    """Every span of OTLP/JSON bytes, in input order, or a Rejection where one cannot be read.

    A Rejection's ``trace_id`` names the trace that lost the span(s); it is ``None`` when the
    lost spans' traces cannot be known (an unreadable line, an unreadable trace id).
    """
    for item in _documents(data, source):
        if isinstance(item, Rejection):
            yield item
        else:
            line, document = item
            yield from _decode_document(document, source, line)


def _documents(data: bytes, source: str) -> Iterator[tuple[int, object] | Rejection]:
    """``(line, document)`` for one whole-input document, else for each line of JSON Lines."""
    try:
        whole = orjson.loads(data)
    except orjson.JSONDecodeError as whole_error:
        error = whole_error
    else:
        yield _first_line(data), whole
        return
    lines = [(n, text) for n, text in enumerate(data.split(b"\n"), start=1) if text.strip()]
    for index, (number, text) in enumerate(lines):
        try:
            document = orjson.loads(text)
        except orjson.JSONDecodeError as line_error:
            if index == 0:
                # Not JSON Lines either: report where the whole document breaks.
                yield Rejection(source, f"not valid JSON: {error.msg}", line=error.lineno)
                return
            yield Rejection(source, f"not valid JSON: {line_error.msg}", line=number)
            continue
        yield number, document


def _first_line(data: bytes) -> int:
    return 1 + data[: len(data) - len(data.lstrip())].count(b"\n")


def _decode_document(document: object, source: str, line: int) -> Iterator[RawSpan | Rejection]:
    if not isinstance(document, dict):
        message = f"an OTLP/JSON export is an object, got {type(document).__name__}"
        yield Rejection(source, message, line=line)
        return
    try:
        resource_spans = json_list(document.get("resourceSpans"), "resourceSpans")
    except RecordError as error:
        yield from lost_spans(error, None, source, line)
        return
    for index, entry in enumerate(resource_spans):
        yield from _decode_resource_spans(entry, f"resourceSpans[{index}]", source, line)


def _decode_resource_spans(
    value: object, path: str, source: str, line: int
) -> Iterator[RawSpan | Rejection]:
    try:
        entry = json_object(value, path)
        if "instrumentationLibrarySpans" in entry:
            # OTLP before 1.0 named scopeSpans so; ignoring it as unknown would drop every span.
            raise field_error(
                f"{path}.instrumentationLibrarySpans",
                "is the pre-1.0 OTLP name of scopeSpans; export with a current collector or SDK",
            )
        resource = _optional_object(entry, "resource", path)
        attributes = _attributes(resource, f"{path}.resource")
        scope_spans = json_list(entry.get("scopeSpans"), f"{path}.scopeSpans")
    except RecordError as error:
        yield from lost_spans(error, _peek_trace_ids(value, "scopeSpans", "spans"), source, line)
        return
    for index, scope_entry in enumerate(scope_spans):
        scope_path = f"{path}.scopeSpans[{index}]"
        yield from _decode_scope_spans(scope_entry, scope_path, attributes, source, line)


def _decode_scope_spans(
    value: object, path: str, resource: dict[str, Any], source: str, line: int
) -> Iterator[RawSpan | Rejection]:
    try:
        entry = json_object(value, path)
        scope_name = _optional_str(_optional_object(entry, "scope", path), "name", f"{path}.scope")
        spans = json_list(entry.get("spans"), f"{path}.spans")
    except RecordError as error:
        yield from lost_spans(error, _peek_trace_ids(value, "spans"), source, line)
        return
    for index, span in enumerate(spans):
        span_path = f"{path}.spans[{index}]"
        try:
            yield _decode_span(span, span_path, resource, scope_name or None, line)
        except RecordError as error:
            yield Rejection(
                source,
                error.message,
                line=line,
                span_id=_peek_id(span, "spanId", SPAN_ID_BYTES),
                field=error.field,
                trace_id=_peek_id(span, "traceId", TRACE_ID_BYTES),
            )


def _decode_span(
    value: object, path: str, resource: dict[str, Any], scope_name: str | None, line: int
) -> RawSpan:
    span = json_object(value, path)
    trace_id = hex_id(_required_str(span, "traceId", path), TRACE_ID_BYTES, f"{path}.traceId")
    span_id = hex_id(_required_str(span, "spanId", path), SPAN_ID_BYTES, f"{path}.spanId")
    parent = _optional_str(span, "parentSpanId", path)
    start_ns, end_ns = span_times(
        _timestamp(span, "startTimeUnixNano", path), _timestamp(span, "endTimeUnixNano", path), path
    )
    status = _optional_object(span, "status", path)
    code = status.get("code")  # null or omitted: the protobuf default, unset
    events = json_list(span.get("events"), f"{path}.events")
    return RawSpan(
        trace_id=trace_id,
        span_id=span_id,
        # An empty parentSpanId is how OTLP writes "no parent".
        parent_id=hex_id(parent, SPAN_ID_BYTES, f"{path}.parentSpanId") if parent else None,
        name=_optional_str(span, "name", path),
        start_ns=start_ns,
        end_ns=end_ns,
        status_code=status_code(0 if code is None else code, f"{path}.status.code"),
        status_message=_optional_str(status, "message", f"{path}.status") or None,
        attributes=_attributes(span, path),
        events=[_decode_event(event, f"{path}.events[{i}]") for i, event in enumerate(events)],
        resource=dict(resource),
        scope_name=scope_name,
        line=line,
    )


def _decode_event(value: object, path: str) -> SpanEvent:
    event = json_object(value, path)
    return SpanEvent(
        name=_optional_str(event, "name", path),
        time_ns=_timestamp(event, "timeUnixNano", path),
        attributes=_attributes(event, path),
    )


def _attributes(owner: dict[str, Any], path: str) -> dict[str, Any]:
    items = json_list(owner.get("attributes"), f"{path}.attributes")
    return decode_key_values(JSON_SYNTAX, items, f"{path}.attributes")


def _timestamp(owner: dict[str, Any], key: str, path: str) -> int:
    value = owner.get(key)
    if value is None:
        return 0
    return json_integer(value, f"{path}.{key}", name=key, minimum=0, maximum=UINT64_MAX)


def _required_str(owner: dict[str, Any], key: str, path: str) -> str:
    if owner.get(key) is None:
        raise field_error(f"{path}.{key}", "is missing")
    return _optional_str(owner, key, path)


def _optional_str(owner: dict[str, Any], key: str, path: str) -> str:
    """The string at ``key``; omitted or null is the protobuf default, the empty string."""
    value = owner.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise field_error(f"{path}.{key}", f"must be a string, got {type(value).__name__}")
    return value


def _optional_object(owner: dict[str, Any], key: str, path: str) -> dict[str, Any]:
    value = owner.get(key)
    return {} if value is None else json_object(value, f"{path}.{key}")


def _peek_id(span: object, key: str, size: int) -> str | None:
    """The id at ``key`` of a span that failed to decode, when it is itself readable."""
    if not isinstance(span, dict) or not isinstance(span.get(key), str):
        return None
    try:
        return hex_id(span[key], size, key)
    except RecordError:
        return None


def _peek_trace_ids(value: object, *levels: str) -> list[str | None] | None:
    """The trace ids of the spans nested under ``value`` through ``levels``; ``None`` when the
    nesting itself cannot be read, so which traces lost spans is unknown."""
    items = [value]
    for level in levels:
        nested: list[object] = []
        for item in items:
            if not isinstance(item, dict):
                return None
            children = item.get(level)
            if not isinstance(children, list | None):
                return None
            nested.extend(children or ())
        items = nested
    return [_peek_id(span, "traceId", TRACE_ID_BYTES) for span in items]
