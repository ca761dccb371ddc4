"""OTLP exports read as traces: the spans and GenAI log events transport decodes
(:mod:`trailcheck.importing.transport.otlp_json`, :mod:`trailcheck.importing.transport.otlp_proto`),
the events joined to their spans (:mod:`trailcheck.importing.log_join`), and the spans assembled
into traces, none with a span missing (:mod:`trailcheck.importing.complete_traces`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO

from trailcheck.importing.complete_traces import assemble_complete_traces
from trailcheck.importing.log_join import join_log_events
from trailcheck.importing.records import Rejection
from trailcheck.importing.transport.otlp_ids import IdEncoding
from trailcheck.importing.transport.otlp_json import decode_otlp_json_items
from trailcheck.importing.transport.otlp_proto import decode_otlp_proto_items
from trailcheck.trace import Trace


def read_otlp_json(
    stream: BinaryIO, source: str, *, ids: IdEncoding = "hex"
) -> Iterator[Trace | Rejection]:
    """The traces of an OTLP/JSON file (one document, or one document per line)."""
    return decode_otlp_json(stream.read(), source, ids=ids)


def decode_otlp_json(
    data: bytes, source: str, *, ids: IdEncoding = "hex"
) -> Iterator[Trace | Rejection]:
    """The traces of OTLP/JSON bytes, with the GenAI log events among them joined to their
    spans. ``ids``: how the input writes trace and span ids
    (:mod:`trailcheck.importing.transport.otlp_json`)."""
    items = decode_otlp_json_items(data, source, ids=ids)
    return assemble_complete_traces(join_log_events(items), source)


def read_otlp_proto(stream: BinaryIO, source: str) -> Iterator[Trace | Rejection]:
    """The traces of a file holding one serialized ``ExportTraceServiceRequest`` (a file of log
    records alone holds none)."""
    return decode_otlp_proto(stream.read(), source)


def decode_otlp_proto(data: bytes, source: str) -> Iterator[Trace | Rejection]:
    """The traces of protobuf bytes, such as the body of an OTLP/HTTP request."""
    return assemble_complete_traces(join_log_events(decode_otlp_proto_items(data, source)), source)
