"""The GenAI log records of one OTLP logs export request, all of them or none.

A request is decoded with the ingest decoders (:mod:`trailcheck.importing.transport.otlp_logs`). A
GenAI record (``gen_ai.*``) that cannot be read is a Rejection, and any Rejection refuses the whole
request with 400 and its reason naming the record's field, so nothing of the request is kept:
keeping the rest would store a model call with a message missing. Records that are not GenAI
events, and GenAI records that name no span, are read and set aside, counted (``other``,
``unlinked``), never refused: an application's own log records share the exporter with the
instrumentation's.

A trace export sent to the logs endpoint is refused by name rather than read as log records
(both requests nest alike, so protobuf would parse one as the other and find nothing to keep).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Final

from trailcheck.importing.records import IgnoredLogs, LogEvent, RawSpan, Rejection
from trailcheck.importing.transport.json_records import read_json_records
from trailcheck.importing.transport.otlp_logs import (
    LogItem,
    decode_otlp_logs_json,
    decode_otlp_logs_proto,
)
from trailcheck.importing.transport.otlp_proto import decode_otlp_proto_spans
from trailcheck.importing.transport.otlp_record_kind import first_record_kind
from trailcheck.serve.body import BodyEncoding
from trailcheck.serve.refusal import BAD_REQUEST, RequestRefused

__all__ = ["LOGS_EXPORT_SOURCE", "DecodedLogs", "decode_logs_export"]

# What errors name as the source of a log record received by the endpoint.
LOGS_EXPORT_SOURCE: Final = "POST /v1/logs"
_TRACES_INSTEAD: Final = "send trace exports to /v1/traces (gRPC: TraceService)"


@dataclass
class DecodedLogs:
    """The GenAI events of a request, in order, and how many records were set aside: ``other``
    (not GenAI events) and ``unlinked`` (GenAI events naming no span)."""

    events: list[LogEvent] = field(default_factory=list)
    other: int = 0
    unlinked: int = 0


def decode_logs_export(
    body: bytes, encoding: BodyEncoding, source: str = LOGS_EXPORT_SOURCE
) -> DecodedLogs:
    """Every GenAI event of the request body; RequestRefused (400) naming the first unreadable
    record and field, and how many other problems there were."""
    items = _proto_items(body, source) if encoding == "protobuf" else _json_items(body, source)
    decoded = DecodedLogs()
    rejections: list[Rejection] = []
    for item in items:
        if isinstance(item, Rejection):
            rejections.append(item)
        elif isinstance(item, IgnoredLogs):
            decoded.other += item.other
            decoded.unlinked += item.unlinked
        else:
            decoded.events.append(item)
    if rejections:
        more = len(rejections) - 1
        suffix = f" (and {more} more problem(s))" if more else ""
        raise RequestRefused(BAD_REQUEST, f"{rejections[0]}{suffix}; nothing was stored")
    return decoded


def _proto_items(body: bytes, source: str) -> Iterable[LogItem]:
    if _holds_spans(body, source):
        return [Rejection(source, f"the payload holds spans, not log records: {_TRACES_INSTEAD}")]
    return decode_otlp_logs_proto(body, source)


def _holds_spans(body: bytes, source: str) -> bool:
    """Whether the bytes are an ``ExportTraceServiceRequest`` with a span in it: their first
    record starts as a span does (told in one pass by protobuf's parser, never by a walk in
    Python), and a span decodes from them (a log record never does: it writes no trace id where
    a span has one). Bytes that are not whole protobuf hold no span, the trace request not
    parsing from them either: the logs decoder says what is wrong with them."""
    if first_record_kind(body) != "span":
        return False
    return any(isinstance(item, RawSpan) for item in decode_otlp_proto_spans(body, source))


def _json_items(body: bytes, source: str) -> Iterator[LogItem]:
    for record in read_json_records(body, source, array_is_one_record=_always):
        if isinstance(record, Rejection):
            yield record
        elif isinstance(record.value, dict) and "resourceLogs" in record.value:
            yield from decode_otlp_logs_json(record.value, source, record.start_line())
        else:
            yield _not_a_logs_export(record.value, source, record.start_line())


def _not_a_logs_export(document: Any, source: str, line: int | None) -> Rejection:
    if not isinstance(document, dict):
        reason = f"an OTLP/JSON logs export is an object, got {type(document).__name__}"
        return Rejection(source, reason, line=line)
    if "resourceSpans" in document:
        reason = f"a trace export (resourceSpans), not log records: {_TRACES_INSTEAD}"
        return Rejection(source, reason, line=line, field="resourceSpans")
    reason = "an OTLP/JSON logs export has resourceLogs; this document has none"
    return Rejection(source, reason, line=line, field="resourceLogs")


def _always(_: list[Any]) -> bool:
    # An array is not an OTLP export: read it as one document, so it is refused as one.
    return True
