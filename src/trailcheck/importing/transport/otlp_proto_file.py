"""An OTLP protobuf file read one record at a time: the spans (or GenAI log events) that
:func:`~trailcheck.importing.transport.otlp_proto.decode_otlp_proto_items` gives for the file's
bytes, with memory that follows the largest record, not the file.

A file is one ``ExportTraceServiceRequest`` (or ``ExportLogsServiceRequest``), possibly of
gigabytes. Its records, the top-level ``resourceSpans`` (``resourceLogs``) entries, are taken
one by one (:mod:`~trailcheck.importing.transport.proto_stream`) and each parsed by the generated
class; one over the bound is a Rejection naming its offset and size
(:mod:`~trailcheck.importing.transport.record_stream`).

Before the first span is read, the file is walked twice: to tell spans from log records (by the
first record, as the bytes would be told), and to parse every record, so that a file that does
not parse anywhere is one Rejection with protobuf's own message and yields no span, exactly as
its bytes decoded whole would.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any, BinaryIO, Final

# protobuf ships no type stubs, and pyproject only waives them for opentelemetry.proto.*.
from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.logs.v1.logs_pb2 import ResourceLogs
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans

from trailcheck.importing.records import Rejection, SpanItem
from trailcheck.importing.transport.otlp_logs import decode_resource_logs_proto
from trailcheck.importing.transport.otlp_proto import decode_resource_spans, holds_log_records
from trailcheck.importing.transport.otlp_record_kind import first_record_kind
from trailcheck.importing.transport.proto_stream import BrokenWire, FieldBytes, message_fields
from trailcheck.importing.transport.record_stream import MAX_RECORD_BYTES, oversized_record

__all__ = ["read_otlp_proto_items"]

# The tag of a request's records: field 1, length-delimited.
_RECORD_TAG: Final = 0x0A
# What is parsed of a file from a field whose framing breaks, for protobuf's own message.
_FRAMING_SAMPLE: Final = 64


def read_otlp_proto_items(
    stream: BinaryIO, source: str, *, limit: int = MAX_RECORD_BYTES
) -> Iterator[SpanItem]:
    """The spans, or GenAI log events, of a protobuf file from where ``stream`` is, one record
    at a time; a record over ``limit`` bytes is a Rejection (see the module docstring)."""
    start = stream.tell()
    logs = _holds_log_records(stream, limit)
    stream.seek(start)
    request: Any = ExportLogsServiceRequest if logs else ExportTraceServiceRequest
    unparsed = _first_parse_error(stream, request, limit)
    stream.seek(start)
    if unparsed is not None:
        yield Rejection(source, f"not an OTLP protobuf {request.DESCRIPTOR.name}: {unparsed}")
        return
    for field in message_fields(stream, 1, limit=limit):
        assert isinstance(field, FieldBytes)  # the framing was read whole above
        if field.data is None:
            yield _oversized(field, source, logs=logs, limit=limit)
        elif logs:
            entry: Any = ResourceLogs.FromString(field.data)
            yield from decode_resource_logs_proto(entry, field.index, source)
        else:
            entry = ResourceSpans.FromString(field.data)
            yield from decode_resource_spans(entry, f"resourceSpans[{field.index}]", source)


def _holds_log_records(stream: BinaryIO, limit: int) -> bool:
    """:func:`~trailcheck.importing.transport.otlp_proto.holds_log_records` of the file: the kind
    of its first record, reading its records one by one until one holds a record."""
    for field in message_fields(stream, 1, limit=limit):
        if isinstance(field, BrokenWire):
            # Cut off, or not protobuf from here: walked as far as it goes, as bytes would be.
            stream.seek(field.offset)
            return holds_log_records(stream.read(limit))
        if field.data is None:
            continue
        data = _as_request(field.data)
        kind = first_record_kind(data)
        if kind == "unreadable":
            return holds_log_records(data)
        if kind != "none":
            return kind == "log"
    return False


def _first_parse_error(stream: BinaryIO, request: Any, limit: int) -> str | None:
    """What protobuf says of the first record (or framing) of the file that does not parse, as
    parsing the whole message would say it; ``None`` when every record parses."""
    record: Any = ResourceSpans if request is ExportTraceServiceRequest else ResourceLogs
    for field in message_fields(stream, 1, limit=limit):
        if isinstance(field, BrokenWire):
            stream.seek(field.offset)
            return _parse_error(request, stream.read(_FRAMING_SAMPLE))
        if field.data is None:
            continue
        try:
            record.FromString(field.data)
        except DecodeError:
            return _parse_error(request, _as_request(field.data))
    return None


def _parse_error(request: Any, data: bytes) -> str:
    try:
        request.FromString(data)
    except DecodeError as error:
        return str(error)
    return f"Error parsing message with type {request.DESCRIPTOR.full_name!r}"


def _as_request(record: bytes) -> bytes:
    """One record as the request that holds only it: its tag, its length, its bytes."""
    length = bytearray()
    size = len(record)
    while size > 0x7F:
        length.append(size & 0x7F | 0x80)
        size >>= 7
    length.append(size)
    return bytes([_RECORD_TAG]) + bytes(length) + record


def _oversized(field: FieldBytes, source: str, *, logs: bool, limit: int) -> Rejection:
    name = f"{'resourceLogs' if logs else 'resourceSpans'}[{field.index}]"
    rejection = oversized_record(
        source,
        what="a record",
        offset=field.offset,
        size=field.size,
        limit=limit,
        field=name,
        advice="; export in smaller batches (an SDK's batch processor writes one such record per"
        " batch)",
    )
    # A log record holds no span: one not read withholds no trace, as an unreadable logs
    # document does (otlp_logs).
    return dataclasses.replace(rejection, spans_lost=not logs)
