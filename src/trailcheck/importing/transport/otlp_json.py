"""OTLP/JSON traces: one ``ExportTraceServiceRequest`` document (what OTLP/HTTP posts with
``Content-Type: application/json``), or the collector's file exporter output (JSON Lines, one
such document per line). Which of the two an input is, and where each document starts, is
:func:`~trailcheck.importing.transport.json_records.read_json_records`' rule, shared with the other
JSON readers: a broken line of JSON Lines is rejected with its own line number, the others are read.

Spans decode into :class:`~trailcheck.importing.records.RawSpan` values following the OTLP/JSON
rules: lowerCamelCase field names (a snake_case key is an error, not an unknown field to
ignore), trace and span ids in hex, 64-bit integers as decimal strings or numbers,
omitted fields meaning their protobuf default, other unknown fields ignored. What OTLP records
beside the attributes (span kind, trace state, flags, links, dropped counts, scope version and
attributes, schema URLs) is kept on the RawSpan too. ``assemble_traces`` then groups them into
Traces.

Protobuf-to-JSON tools (``MessageToJson``) write ids in base64, as the protobuf JSON mapping
writes every bytes field: read with ``ids="base64"``, such a file's trace, span, parent span and
link ids (and its log records') are decoded from base64; the encoding holds for the whole file,
and an id in the other one is rejected (:mod:`~trailcheck.importing.transport.otlp_ids`). The hint
saying what a rejected id looks like is kept on the first such rejection of each file, not repeated.

A document without ``resourceSpans`` (a metrics or logs export in the same collector file, an
empty ``{}``) is a Rejection naming its line; an explicitly empty ``{"resourceSpans": []}`` is
an export with nothing in it.

A span that cannot be read is a Rejection naming the source, line, field path and span id; the
other spans of its trace are withheld with a Rejection of their own, so no trace is ever imported
with a span silently missing (:func:`assemble_complete_traces`, which the protobuf reader shares).

A line (or document) that is not JSON may have held spans of any trace, even when it is only cut
short at the end of the input: an export records no span count, so what was cut off may hold
spans of traces its readable prefix does not show. It withholds every trace; each span trace id
its prefix shows (``resourceSpans[i].scopeSpans[j].spans[k].traceId``, not a link's) names a trace
that certainly lost a span there, withheld even where the others are kept
(:mod:`trailcheck.importing.transport.cut_json`,
:func:`~trailcheck.importing.complete_traces.shown_spans`).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterable, Iterator
from typing import Any, BinaryIO, Final

from trailcheck.errors import RecordError
from trailcheck.importing.records import (
    IgnoredLogs,
    LogEvent,
    RawSpan,
    Rejection,
    SpanItem,
    SpanLink,
)
from trailcheck.importing.transport import otlp_json_fields as fields
from trailcheck.importing.transport.cut_json import (
    ANY_INDEX,
    ShownString,
    readable_prefix,
    shown_strings,
)
from trailcheck.importing.transport.json_records import (
    JsonRecord,
    RejectBroken,
    read_json_file_records,
    read_json_records,
)
from trailcheck.importing.transport.lost_spans import lost_spans, shown_spans
from trailcheck.importing.transport.otel_attributes import event_attributes
from trailcheck.importing.transport.otlp_ids import IdEncoding, hint_once, json_id
from trailcheck.importing.transport.otlp_logs import decode_otlp_logs_json
from trailcheck.importing.transport.otlp_values import (
    SPAN_ID_BYTES,
    TRACE_ID_BYTES,
    SpanOrigin,
    field_error,
    json_list,
    json_object,
    lower_camel,
    otel_span_kind,
    shown,
    span_times,
    status_code,
    storable_time,
)
from trailcheck.importing.transport.record_stream import MAX_RECORD_BYTES
from trailcheck.trace import SpanEvent

__all__ = [
    "decode_otlp_json_items",
    "decode_otlp_json_spans",
    "looks_like_otlp_json",
    "read_otlp_json_items",
]

# The top-level fields of the other OTLP signals' export requests: a document with only these
# holds no spans, so rejecting it withholds no trace.
_OTHER_SIGNALS: Final = frozenset(
    {"resourceMetrics", "resourceLogs", "resourceProfiles", "dictionary"}
)
# Where a span's trace id sits in an export (a link's traceId, one level down, does not match).
_SPAN_TRACE_ID: Final = (
    "resourceSpans",
    ANY_INDEX,
    "scopeSpans",
    ANY_INDEX,
    "spans",
    ANY_INDEX,
    "traceId",
)


def looks_like_otlp_json(head: bytes) -> bool:
    """True when the first bytes of an input look like OTLP/JSON trace or log export(s)."""
    return head.lstrip()[:1] == b"{" and (b'"resourceSpans"' in head or b'"resourceLogs"' in head)


def read_otlp_json_items(
    stream: BinaryIO, source: str, *, ids: IdEncoding = "hex", limit: int = MAX_RECORD_BYTES
) -> Iterator[SpanItem]:
    """The spans and GenAI log events of an OTLP/JSON file, as :func:`decode_otlp_json_items`
    gives them for its bytes, holding one record at a time: a file over ``limit`` bytes is read
    line by line as JSON Lines, or refused as one document too large to read
    (:func:`~trailcheck.importing.transport.json_records.read_json_file_records`)."""
    records = read_json_file_records(
        stream, source, array_is_one_record=_always, reject_broken=_rejecter(ids), limit=limit
    )
    return hint_once(_decode_records(records, source, logs=True, ids=ids))


def decode_otlp_json_spans(
    data: bytes, source: str, *, ids: IdEncoding = "hex"
) -> Iterator[RawSpan | Rejection]:
    """Every span of OTLP/JSON trace export bytes (such as the body of an OTLP/HTTP request to
    ``/v1/traces``), in input order, or a Rejection where one cannot be read. Each RawSpan
    carries ``source`` and its line. A logs document is rejected as not a trace export.

    A Rejection's ``trace_id`` names the trace that lost the span(s); it is ``None`` when the
    lost spans' traces cannot be known (an unreadable line, an unreadable trace id).
    """
    for item in _decode(data, source, logs=False, ids=ids):
        assert not isinstance(item, LogEvent | IgnoredLogs)  # logs=False decodes no logs
        yield item


def decode_otlp_json_items(
    data: bytes, source: str, *, ids: IdEncoding = "hex"
) -> Iterator[SpanItem]:
    """Every span of OTLP/JSON bytes, and the GenAI log events of any logs export among them
    (a collector file may hold both signals, one document per line;
    :mod:`trailcheck.importing.transport.otlp_logs`)."""
    return _decode(data, source, logs=True, ids=ids)


def _decode(data: bytes, source: str, *, logs: bool, ids: IdEncoding) -> Iterator[SpanItem]:
    records = read_json_records(
        data, source, array_is_one_record=_always, reject_broken=_rejecter(ids)
    )
    return hint_once(_decode_records(records, source, logs=logs, ids=ids))


def _rejecter(ids: IdEncoding) -> RejectBroken:
    return functools.partial(_broken_part, ids=ids)


def _decode_records(
    records: Iterable[JsonRecord | Rejection], source: str, *, logs: bool, ids: IdEncoding
) -> Iterator[SpanItem]:
    for record in records:
        if isinstance(record, Rejection):
            yield record
        elif logs and isinstance(record.value, dict) and _is_logs_export(record.value):
            yield from decode_otlp_logs_json(record.value, source, record.start_line(), ids=ids)
        else:
            yield from _decode_document(record, source, ids)


def _broken_part(broken: Rejection, text: bytes, *, ids: IdEncoding) -> Iterator[Rejection]:
    """A part that is not JSON withholds every trace; the traces whose spans its readable prefix
    shows certainly lost one (see the module docstring)."""
    yield broken
    shown: list[ShownString] = []
    for found in shown_strings(readable_prefix(text).text, _SPAN_TRACE_ID):
        try:
            trace_id = json_id(found.value, TRACE_ID_BYTES, found.path, ids)
        except RecordError:
            continue  # not a trace id: that span would not have been read either
        shown.append(ShownString(found.path, trace_id))
    yield from shown_spans(broken, shown)


def _is_logs_export(document: dict[str, Any]) -> bool:
    return "resourceLogs" in document and "resourceSpans" not in document


def _always(_: list[Any]) -> bool:
    # An array is not an OTLP export: read it as one document, so it is rejected as one.
    return True


def _decode_document(
    record: JsonRecord, source: str, ids: IdEncoding
) -> Iterator[RawSpan | Rejection]:
    document, line = record.value, record.start_line()
    if not isinstance(document, dict):
        message = f"an OTLP/JSON export is an object, got {type(document).__name__}"
        yield Rejection(source, message, line=line)
        return
    if "resourceSpans" not in document:
        yield _not_a_trace_export(document, source, line)
        return
    try:
        json_object(document, "")
        resource_spans = json_list(document["resourceSpans"], "resourceSpans")
    except RecordError as error:
        trace_ids = _peek_trace_ids(document, ids, "resourceSpans", "scopeSpans", "spans")
        yield from lost_spans(error, trace_ids, source, line)
        return
    for index, entry in enumerate(resource_spans):
        yield from _decode_resource_spans(entry, f"resourceSpans[{index}]", source, line, ids)


def _not_a_trace_export(document: dict[str, Any], source: str, line: int | None) -> Rejection:
    """Why a JSON object without ``resourceSpans`` is not imported: it would import nothing."""
    keys = list(document)
    found = "it is an empty object" if not keys else "found keys " + ", ".join(map(shown, keys))
    if any(lower_camel(key) == "resourceSpans" for key in keys):
        found += "; OTLP/JSON spells field names in lowerCamelCase ('resourceSpans')"
    return Rejection(
        source,
        f"not an OTLP trace export: no resourceSpans; {found}",
        line=line,
        # Only a document of another signal is known to hold no spans; any other may hold spans
        # under a name this reader does not know, and they may belong to any trace.
        spans_lost=not all(lower_camel(key) in _OTHER_SIGNALS for key in keys),
    )


def _decode_resource_spans(
    value: object, path: str, source: str, line: int | None, ids: IdEncoding
) -> Iterator[RawSpan | Rejection]:
    try:
        entry = json_object(value, path)
        if "instrumentationLibrarySpans" in entry:
            # OTLP before 1.0 named scopeSpans so; ignoring it as unknown would drop every span.
            raise field_error(
                f"{path}.instrumentationLibrarySpans",
                "is the pre-1.0 OTLP name of scopeSpans; export with a current collector or SDK",
            )
        resource = fields.optional_object(entry, "resource", path)
        origin = SpanOrigin(
            resource=fields.attributes(resource, f"{path}.resource"),
            resource_dropped_attributes_count=fields.count(resource, f"{path}.resource"),
            resource_schema_url=fields.optional_str(entry, "schemaUrl", path) or None,
        )
        scope_spans = json_list(entry.get("scopeSpans"), f"{path}.scopeSpans")
    except RecordError as error:
        trace_ids = _peek_trace_ids(value, ids, "scopeSpans", "spans")
        yield from lost_spans(error, trace_ids, source, line)
        return
    for index, scope_entry in enumerate(scope_spans):
        scope_path = f"{path}.scopeSpans[{index}]"
        yield from _decode_scope_spans(scope_entry, scope_path, origin, source, line, ids)


def _decode_scope_spans(
    value: object,
    path: str,
    resource: SpanOrigin,
    source: str,
    line: int | None,
    ids: IdEncoding,
) -> Iterator[RawSpan | Rejection]:
    try:
        entry = json_object(value, path)
        scope = fields.optional_object(entry, "scope", path)
        scope_path = f"{path}.scope"
        origin = dataclasses.replace(
            resource,
            scope_name=fields.optional_str(scope, "name", scope_path) or None,
            scope_version=fields.optional_str(scope, "version", scope_path) or None,
            scope_attributes=fields.attributes(scope, scope_path),
            scope_dropped_attributes_count=fields.count(scope, scope_path),
            scope_schema_url=fields.optional_str(entry, "schemaUrl", path) or None,
        )
        spans = json_list(entry.get("spans"), f"{path}.spans")
    except RecordError as error:
        yield from lost_spans(error, _peek_trace_ids(value, ids, "spans"), source, line)
        return
    for index, span in enumerate(spans):
        span_path = f"{path}.spans[{index}]"
        try:
            yield origin.stamp(_decode_span(span, span_path, source, line, ids))
        except RecordError as error:
            yield Rejection(
                source,
                error.message,
                line=line,
                span_id=_peek_id(span, "spanId", SPAN_ID_BYTES, ids),
                field=error.field,
                trace_id=_peek_id(span, "traceId", TRACE_ID_BYTES, ids),
                hint=error.hint,
            )


def _decode_span(
    value: object, path: str, source: str, line: int | None, ids: IdEncoding
) -> RawSpan:
    span = json_object(value, path)
    trace_id = fields.id_field(span, "traceId", TRACE_ID_BYTES, path, ids)
    span_id = fields.id_field(span, "spanId", SPAN_ID_BYTES, path, ids)
    parent = fields.optional_str(span, "parentSpanId", path)
    start_ns, end_ns = span_times(
        fields.timestamp(span, "startTimeUnixNano", path),
        fields.timestamp(span, "endTimeUnixNano", path),
        path,
    )
    status = fields.optional_object(span, "status", path)
    code = status.get("code")  # null or omitted: the protobuf default, unset
    kind = span.get("kind")
    events = json_list(span.get("events"), f"{path}.events")
    links = json_list(span.get("links"), f"{path}.links")
    return RawSpan(
        trace_id=trace_id,
        span_id=span_id,
        # An empty parentSpanId is how OTLP writes "no parent".
        parent_id=json_id(parent, SPAN_ID_BYTES, f"{path}.parentSpanId", ids) if parent else None,
        name=fields.optional_str(span, "name", path),
        start_ns=start_ns,
        end_ns=end_ns,
        status_code=status_code(0 if code is None else code, f"{path}.status.code"),
        status_message=fields.optional_str(status, "message", f"{path}.status") or None,
        attributes=fields.attributes(span, path),
        events=[_decode_event(event, f"{path}.events[{i}]") for i, event in enumerate(events)],
        line=line,
        otel_kind=otel_span_kind(0 if kind is None else kind, f"{path}.kind"),
        trace_state=fields.optional_str(span, "traceState", path) or None,
        flags=fields.uint32(span, "flags", path),
        links=[_decode_link(link, f"{path}.links[{i}]", ids) for i, link in enumerate(links)],
        dropped_attributes_count=fields.count(span, path),
        dropped_events_count=fields.uint32(span, "droppedEventsCount", path),
        dropped_links_count=fields.uint32(span, "droppedLinksCount", path),
        source=source,
    )


def _decode_link(value: object, path: str, ids: IdEncoding) -> SpanLink:
    link = json_object(value, path)
    return SpanLink(
        trace_id=fields.id_field(link, "traceId", TRACE_ID_BYTES, path, ids),
        span_id=fields.id_field(link, "spanId", SPAN_ID_BYTES, path, ids),
        trace_state=fields.optional_str(link, "traceState", path) or None,
        attributes=fields.attributes(link, path),
        flags=fields.uint32(link, "flags", path),
        dropped_attributes_count=fields.count(link, path),
    )


def _decode_event(value: object, path: str) -> SpanEvent:
    event = json_object(value, path)
    return SpanEvent(
        name=fields.optional_str(event, "name", path),
        time_ns=storable_time(
            fields.timestamp(event, "timeUnixNano", path), f"{path}.timeUnixNano"
        ),
        attributes=event_attributes(
            fields.attributes(event, path), fields.count(event, path), f"{path}.attributes"
        ),
    )


def _peek_id(span: object, key: str, size: int, ids: IdEncoding) -> str | None:
    """The id at ``key`` of a span that failed to decode, when it is itself readable."""
    if not isinstance(span, dict) or not isinstance(span.get(key), str):
        return None
    try:
        return json_id(span[key], size, key, ids)
    except RecordError:
        return None


def _peek_trace_ids(value: object, ids: IdEncoding, *levels: str) -> list[str | None] | None:
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
    return [_peek_id(span, "traceId", TRACE_ID_BYTES, ids) for span in items]
