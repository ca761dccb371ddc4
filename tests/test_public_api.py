"""The public surface is explicit: these lists change only on purpose."""

from __future__ import annotations

import trailcheck
import trailcheck.ingest
import trailcheck.report
import trailcheck.trace


def test_top_level_exports() -> None:
    assert sorted(trailcheck.__all__) == [
        "InputError",
        "Message",
        "RecordError",
        "Span",
        "ToolCall",
        "Trace",
        "TrailcheckError",
        "UsageError",
        "__version__",
    ]


def test_trace_exports() -> None:
    assert sorted(trailcheck.trace.__all__) == [
        "Finding",
        "LeanTrace",
        "Message",
        "MessageToolCall",
        "ModelInvocation",
        "Role",
        "Severity",
        "Span",
        "SpanEvent",
        "SpanKind",
        "SpanTree",
        "Status",
        "StatusCode",
        "ToolCall",
        "ToolInvocation",
        "Trace",
        "TraceView",
        "Usage",
        "canonical_json",
        "decode_lean_trace",
        "parse_json_text",
        "summed_usage",
    ]


def test_ingest_exports() -> None:
    assert sorted(trailcheck.ingest.__all__) == [
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


def test_report_exports() -> None:
    assert trailcheck.report.__all__ == [
        "ProgressObserver",
        "render_comparison",
        "render_html",
        "render_run",
        "render_trace",
        "write_run",
    ]


def test_every_exported_name_exists() -> None:
    for module in (trailcheck, trailcheck.ingest, trailcheck.report, trailcheck.trace):
        for name in module.__all__:
            assert hasattr(module, name), f"{module.__name__}.{name}"
