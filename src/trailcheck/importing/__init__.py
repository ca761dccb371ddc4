"""Import traces from other formats: Traces, or Rejections that name the file, line (or span id)
and field of every bad record.

Three layers, each a package, read a span-based source; each imports only those below it
(import-linter contracts in pyproject.toml):

- :mod:`~trailcheck.importing.transport`: bytes to records. OTLP/JSON and protobuf trace and log
  exports, ids and values, JSON record framing, and the Rejection of a part that cannot be read.
- :mod:`~trailcheck.importing.conventions`: the shared ways of recording messages and calls
  (OpenTelemetry GenAI attributes and events, OpenInference's flattened messages, the indexed
  ``gen_ai.prompt.N`` shape, OpenAI chat messages, Bedrock Converse blocks, vendor fields).
- :mod:`~trailcheck.importing.shapes`: what one framework or instrumentation records its own way,
  as rows keyed by instrumentation scope (:mod:`~trailcheck.importing.shapes.rows`) or a reader of
  its own beside them.

Above them, :mod:`~trailcheck.importing.spans` maps each span (kind, tool call, model call: the
conventions, then the shapes), :mod:`~trailcheck.importing.assemble` builds the trace and its
trace-level fields, :mod:`~trailcheck.importing.complete_traces` withholds a trace with a span
missing, and :mod:`~trailcheck.importing.importer` pools the files of one import
(:mod:`~trailcheck.importing.formats` names the readers: OTLP, span JSONL, trailcheck's own JSONL
and Parquet, OpenAI message logs, tau-bench results, Who&When failure logs). A part no reader
understands is kept verbatim and named in the trace's reading report
(:mod:`~trailcheck.importing.unread`), never a reason to reject the trace.

Adding a framework is one local change. Record it from the real library into
``tests/fixtures/real/`` (a recorder in its ``recorders/`` folder), add its row to the corpus
table (``tests/conformance/corpus.py``) and run the corpus test. Where it shapes something the
conventions leave open (an argument envelope, a result wrapper, its own final-answer tool, the
run's input or answer inside a framework object, messages kept in its own objects), add a row
for its instrumentation scope to :mod:`~trailcheck.importing.shapes.rows`; what a row cannot say
gets a reader of its own in :mod:`~trailcheck.importing.shapes`, named by a row. A new shared
convention (an attribute family many libraries write) is a module in
:mod:`~trailcheck.importing.conventions`, consulted by :mod:`~trailcheck.importing.spans`; a new
transport is a module in :mod:`~trailcheck.importing.transport` and a format in
:mod:`~trailcheck.importing.formats`. Then regenerate docs/frameworks.md
(``python -m tests.conformance.matrix``).
"""

from trailcheck.importing.assemble import assemble_trace, assemble_traces
from trailcheck.importing.formats import (
    FORMAT_NAMES,
    FORMATS,
    TraceFormat,
    detect_format,
    get_format,
)
from trailcheck.importing.importer import ImportSummary, import_traces, iter_import
from trailcheck.importing.message_logs import read_openai_messages, trace_from_messages
from trailcheck.importing.otlp import (
    decode_otlp_json,
    decode_otlp_proto,
    read_otlp_json,
    read_otlp_proto,
)
from trailcheck.importing.records import ImportItem, RawSpan, Rejection
from trailcheck.importing.span_jsonl import read_span_jsonl
from trailcheck.importing.trailcheck_jsonl import read_trailcheck_jsonl
from trailcheck.trace.jsonl import dump_trace, trace_json_schema, write_traces

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
