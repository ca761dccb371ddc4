"""Import traces from other formats: one module per format, each producing Traces or Rejections
that name the file, line (or span id) and field of every bad record."""

from trailcheck.ingest.assemble import assemble_trace, assemble_traces
from trailcheck.ingest.formats import FORMAT_NAMES, FORMATS, TraceFormat, detect_format, get_format
from trailcheck.ingest.importer import ImportSummary, import_traces, iter_import
from trailcheck.ingest.openai_messages import read_openai_messages, trace_from_messages
from trailcheck.ingest.otlp_json import decode_otlp_json, read_otlp_json
from trailcheck.ingest.otlp_proto import decode_otlp_proto, read_otlp_proto
from trailcheck.ingest.records import ImportItem, RawSpan, Rejection
from trailcheck.ingest.span_jsonl import read_span_jsonl
from trailcheck.ingest.trailcheck_jsonl import (
    dump_trace,
    read_trailcheck_jsonl,
    trace_json_schema,
    write_traces,
)

__all__ = [
    "FORMATS",
    "FORMAT_NAMES",
    "ImportItem",
    "ImportSummary",
    "RawSpan",
    "Rejection",
    "TraceFormat",
    "assemble_trace",
    "assemble_traces",
    "decode_otlp_json",
    "decode_otlp_proto",
    "detect_format",
    "dump_trace",
    "get_format",
    "import_traces",
    "iter_import",
    "read_openai_messages",
    "read_otlp_json",
    "read_otlp_proto",
    "read_span_jsonl",
    "read_trailcheck_jsonl",
    "trace_from_messages",
    "trace_json_schema",
    "write_traces",
]
