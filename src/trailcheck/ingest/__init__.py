"""Import traces from other formats: one module per format, each producing Traces or Rejections
that name the file, line (or span id) and field of every bad record.

Span-based formats meet in :mod:`~trailcheck.ingest.assemble`, which maps each span through the
conventions (:mod:`~trailcheck.ingest.conventions`: GenAI, OpenInference, vendors) and then the
framework shapes (:mod:`~trailcheck.ingest.framework_shapes`). A part no reader understands is
kept verbatim and named in the trace's reading report (:mod:`~trailcheck.ingest.unread`), never
a reason to reject the trace.

Adding a framework: record it from the real library into ``tests/fixtures/real/`` (a recorder
in its ``recorders/`` folder), add its row to the corpus table
(``tests/conformance/corpus.py``) and run the corpus test; where it shapes something the
conventions leave open (an argument envelope, a result wrapper, its own final-answer tool, the
run's input or answer inside a framework object), add a row for its instrumentation scope to
:mod:`~trailcheck.ingest.framework_shapes`; a content encoding of a provider (Bedrock Converse
blocks) gets a module of its own beside :mod:`~trailcheck.ingest.converse_blocks`. Then
regenerate docs/frameworks.md (``python -m tests.conformance.matrix``).
"""

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
