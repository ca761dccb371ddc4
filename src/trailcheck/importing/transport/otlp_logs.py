"""OTLP log records (``ExportLogsServiceRequest``, protobuf or OTLP/JSON ``resourceLogs``): the
GenAI events among them, as events of the spans they name.

GenAI instrumentations put message content in log records: the official OpenAI instrumentation
by default (``gen_ai.user.message``, ``gen_ai.choice``, ...; or one
``gen_ai.client.inference.operation.details`` per model call), Google ADK likewise. A record
whose event name (the ``EventName`` field, else the ``event.name`` attribute) starts with
``gen_ai.`` and that names a trace and span becomes a
:class:`~trailcheck.importing.records.LogEvent`:
a :class:`~trailcheck.trace.SpanEvent` with the record's name, time (``timeUnixNano``, else
``observedTimeUnixNano``) and attributes, plus its body and severity under reserved ``otel.log.*``
names. It is joined to its span before assembly, and the conventions read messages from it
(:mod:`trailcheck.importing.conventions.genai_events`).

Other records are not trailcheck's business: they are counted (:class:`IgnoredLogs`), not
rejected (a record whose ``EventName`` is not a GenAI one is not even decoded); so is a GenAI
record that names no span, since there is nothing to join it to. A GenAI record that cannot be
read is a Rejection naming its field; when its trace id is readable, that
trace is withheld (its messages would be incomplete), otherwise no trace is. An OTLP/JSON
record's trace and span ids are read in the file's id encoding, as its spans' are
(:mod:`~trailcheck.importing.transport.otlp_ids`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest

from trailcheck.errors import RecordError
from trailcheck.importing.records import IgnoredLogs, LogEvent, Rejection
from trailcheck.importing.transport.otel_attributes import with_reserved
from trailcheck.importing.transport.otlp_ids import IdEncoding, bytes_id, json_id
from trailcheck.importing.transport.otlp_values import (
    JSON_SYNTAX,
    PROTO_SYNTAX,
    SPAN_ID_BYTES,
    TRACE_ID_BYTES,
    UINT32_MAX,
    UINT64_MAX,
    decode_any_value,
    decode_key_values,
    field_error,
    json_integer,
    json_list,
    json_object,
    storable_time,
)
from trailcheck.trace import SpanEvent, semconv

LogItem = LogEvent | IgnoredLogs | Rejection

__all__ = [
    "LogItem",
    "decode_otlp_logs_json",
    "decode_otlp_logs_proto",
    "decode_resource_logs_proto",
]


def decode_otlp_logs_proto(data: bytes, source: str) -> Iterator[LogItem]:
    """The GenAI events of a protobuf ``ExportLogsServiceRequest``, and a count of the rest."""
    try:
        request: Any = ExportLogsServiceRequest.FromString(data)
    except DecodeError as error:
        yield Rejection(source, f"not an OTLP protobuf ExportLogsServiceRequest: {error}")
        return
    ignored = IgnoredLogs(source)
    for r_index, resource_logs in enumerate(request.resource_logs):
        for item in decode_resource_logs_proto(resource_logs, r_index, source):
            if isinstance(item, IgnoredLogs):
                ignored = _add(ignored, item)
            else:
                yield item
    if ignored.other or ignored.unlinked:
        yield ignored


def decode_resource_logs_proto(resource_logs: Any, r_index: int, source: str) -> Iterator[LogItem]:
    """The GenAI events of ``resourceLogs[r_index]`` of a protobuf export (a parsed
    ``ResourceLogs``), and, last, one count of the rest (a file read record by record:
    :mod:`~trailcheck.importing.transport.proto_stream`)."""
    ignored = IgnoredLogs(source)
    for s_index, scope_logs in enumerate(resource_logs.scope_logs):
        for index, record in enumerate(scope_logs.log_records):
            path = f"resourceLogs[{r_index}].scopeLogs[{s_index}].logRecords[{index}]"
            item = _proto_record(record, path, source)
            if isinstance(item, IgnoredLogs):
                ignored = _add(ignored, item)
            else:
                yield item
    if ignored.other or ignored.unlinked:
        yield ignored


def decode_otlp_logs_json(
    document: dict[str, Any], source: str, line: int | None, *, ids: IdEncoding = "hex"
) -> Iterator[LogItem]:
    """The GenAI events of an OTLP/JSON logs export (a document with ``resourceLogs``), its
    records' trace and span ids written in ``ids``."""
    ignored = IgnoredLogs(source)
    try:
        resources = json_list(document["resourceLogs"], "resourceLogs")
        for r_index, resource_value in enumerate(resources):
            r_path = f"resourceLogs[{r_index}]"
            resource = json_object(resource_value, r_path)
            scopes = json_list(resource.get("scopeLogs"), f"{r_path}.scopeLogs")
            for s_index, scope_value in enumerate(scopes):
                s_path = f"{r_path}.scopeLogs[{s_index}]"
                scope = json_object(scope_value, s_path)
                records = json_list(scope.get("logRecords"), f"{s_path}.logRecords")
                for index, record in enumerate(records):
                    r_path = f"{s_path}.logRecords[{index}]"
                    item = _json_record(record, r_path, source, line, ids)
                    if isinstance(item, IgnoredLogs):
                        ignored = _add(ignored, item)
                    else:
                        yield item
    except RecordError as error:
        # The nesting itself is unreadable: which records (and traces) it held is unknown.
        yield Rejection(source, error.message, line=line, field=error.field, spans_lost=False)
        return
    if ignored.other or ignored.unlinked:
        yield ignored


def _add(total: IgnoredLogs, more: IgnoredLogs) -> IgnoredLogs:
    return IgnoredLogs(total.source, total.other + more.other, total.unlinked + more.unlinked)


def _proto_record(record: Any, path: str, source: str) -> LogItem:
    attributes_path = f"{path}.attributes"
    trace_bytes, span_bytes = bytes(record.trace_id), bytes(record.span_id)
    event_name = str(record.event_name)
    if event_name and not event_name.startswith(semconv.GEN_AI_EVENT_PREFIX):
        return IgnoredLogs(source, other=1)  # not read at all: a bad attribute is not ours
    try:
        attributes = decode_key_values(PROTO_SYNTAX, list(record.attributes), attributes_path)
        name = _event_name(event_name, attributes, f"{path}.eventName")
        if not name.startswith(semconv.GEN_AI_EVENT_PREFIX):
            return IgnoredLogs(source, other=1)
        if not trace_bytes or not span_bytes:
            return IgnoredLogs(source, unlinked=1)
        trace_id = bytes_id(trace_bytes, TRACE_ID_BYTES, f"{path}.traceId")
        span_id = bytes_id(span_bytes, SPAN_ID_BYTES, f"{path}.spanId")
        body = (
            decode_any_value(PROTO_SYNTAX, record.body, f"{path}.body")
            if record.HasField("body")
            else None
        )
        event = _event(
            name,
            storable_time(int(record.time_unix_nano), f"{path}.timeUnixNano")
            or storable_time(int(record.observed_time_unix_nano), f"{path}.observedTimeUnixNano"),
            attributes,
            body,
            (int(record.severity_number), str(record.severity_text)),
            attributes_path,
        )
    except RecordError as error:
        return _unreadable(error, source, None, _peek(trace_bytes, TRACE_ID_BYTES))
    return LogEvent(trace_id, span_id, event, source)


def _json_record(
    value: object, path: str, source: str, line: int | None, ids: IdEncoding
) -> LogItem:
    record: dict[str, Any] = value if isinstance(value, dict) else {}
    event_name = record.get("eventName")
    if (
        isinstance(event_name, str)
        and event_name
        and not event_name.startswith(semconv.GEN_AI_EVENT_PREFIX)
    ):
        return IgnoredLogs(source, other=1)  # not read at all: a bad attribute is not ours
    try:
        record = json_object(value, path)
        attributes_path = f"{path}.attributes"
        items = json_list(record.get("attributes"), attributes_path)
        attributes = decode_key_values(JSON_SYNTAX, items, attributes_path)
        name = _event_name(_text(record, "eventName", path), attributes, f"{path}.eventName")
        if not name.startswith(semconv.GEN_AI_EVENT_PREFIX):
            return IgnoredLogs(source, other=1)
        trace_text, span_text = _text(record, "traceId", path), _text(record, "spanId", path)
        if not trace_text or not span_text:
            return IgnoredLogs(source, unlinked=1)
        trace_id = json_id(trace_text, TRACE_ID_BYTES, f"{path}.traceId", ids)
        span_id = json_id(span_text, SPAN_ID_BYTES, f"{path}.spanId", ids)
        body = (
            decode_any_value(JSON_SYNTAX, record["body"], f"{path}.body")
            if record.get("body") is not None
            else None
        )
        time_ns = _time(record, "timeUnixNano", path) or _time(record, "observedTimeUnixNano", path)
        severity = (
            _uint(record, "severityNumber", path, UINT32_MAX),
            _text(record, "severityText", path),
        )
        event = _event(name, time_ns, attributes, body, severity, attributes_path)
    except RecordError as error:
        trace_id_text = record.get("traceId")
        peeked = _peek_json(trace_id_text, ids) if isinstance(trace_id_text, str) else None
        return _unreadable(error, source, line, peeked)
    return LogEvent(trace_id, span_id, event, source, line)


def _event_name(field_value: str, attributes: dict[str, Any], path: str) -> str:
    if field_value:
        return field_value
    name = attributes.get(semconv.EVENT_NAME, "")
    if not isinstance(name, str):
        raise field_error(path, f"the {semconv.EVENT_NAME} attribute must be a string")
    return name


def _event(
    name: str,
    time_ns: int,
    attributes: dict[str, Any],
    body: Any,
    severity: tuple[int, str],
    path: str,
) -> SpanEvent:
    if time_ns == 0:
        # 0 is OTLP's "unset" for both times; an event placed at 1970 would reorder messages.
        raise field_error(
            f"{path.removesuffix('.attributes')}.timeUnixNano",
            "it needs a time: timeUnixNano or observedTimeUnixNano",
        )
    reserved: dict[str, Any] = {}
    if body is not None:
        reserved[semconv.OTEL_LOG_BODY] = body
    if severity[0]:
        reserved[semconv.OTEL_LOG_SEVERITY_NUMBER] = severity[0]
    if severity[1]:
        reserved[semconv.OTEL_LOG_SEVERITY_TEXT] = severity[1]
    return SpanEvent(
        name=name, time_ns=time_ns, attributes=with_reserved(attributes, reserved, path)
    )


def _unreadable(
    error: RecordError, source: str, line: int | None, trace_id: str | None
) -> Rejection:
    return Rejection(
        source,
        f"a GenAI log record cannot be read: {error.message}",
        line=line,
        field=error.field,
        trace_id=trace_id,
        # A record known to belong to a trace withholds that trace; one whose trace is unknown
        # withholds none (a log record holds no span).
        spans_lost=trace_id is not None,
        hint=error.hint,
    )


def _text(record: dict[str, Any], key: str, path: str) -> str:
    value = record.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise field_error(f"{path}.{key}", f"must be a string, got {type(value).__name__}")
    return value


def _time(record: dict[str, Any], key: str, path: str) -> int:
    return storable_time(_uint(record, key, path, UINT64_MAX), f"{path}.{key}")


def _uint(record: dict[str, Any], key: str, path: str, maximum: int) -> int:
    value = record.get(key)
    if value is None:
        return 0
    return json_integer(value, f"{path}.{key}", name=key, minimum=0, maximum=maximum)


def _peek(raw: bytes, size: int) -> str | None:
    try:
        return bytes_id(raw, size, "traceId") if raw else None
    except RecordError:
        return None


def _peek_json(text: str, ids: IdEncoding) -> str | None:
    try:
        return json_id(text, TRACE_ID_BYTES, "traceId", ids)
    except RecordError:
        return None
