"""The options several commands share, declared with cheap imports only: typer reads every
command's signature at each start, ``trailcheck --help`` included, so nothing here may import
the importers, the store or the runner.

The values spelled out here (the format names, the id encodings) are the library's, pinned
equal to it by ``tests/test_cli_startup.py``.
"""

from typing import Annotated, Final, Literal

import typer

__all__ = [
    "FORMAT_NAMES",
    "DbOption",
    "EmitOtelHeaderOption",
    "EmitOtelOption",
    "FormatOption",
    "IdEncoding",
    "IdsOption",
    "JsonOption",
    "KeepIncompleteOption",
    "LabelFilterOption",
    "SessionFilterOption",
    "SinceOption",
    "ToolFilterOption",
    "UntilOption",
]

FORMAT_NAMES: Final = (
    "trailcheck-parquet",
    "trailcheck",
    "spans",
    "otlp-json",
    "tau-bench",
    "openai",
    "otlp-proto",
)
""":data:`trailcheck.ingest.formats.FORMAT_NAMES`, in its order."""

IdEncoding = Literal["hex", "base64"]
""":data:`trailcheck.ingest.transport.otlp_ids.IdEncoding`."""

DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        help="The store's URL (default: $TRAILCHECK_DB, else .trailcheck/trailcheck.db).",
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON.")]

# Which stored traces a command reads (``traces list``; ``score`` over the store).
LabelFilterOption = Annotated[
    str | None, typer.Option("--label", help="Only traces with a finding of this label.")
]
SinceOption = Annotated[
    str | None,
    typer.Option("--since", help="Only traces started at or after this ISO date/time (UTC)."),
]
UntilOption = Annotated[
    str | None,
    typer.Option("--until", help="Only traces started before this ISO date/time (UTC)."),
]
ToolFilterOption = Annotated[
    str | None, typer.Option("--tool", help="Only traces that called this tool.")
]
SessionFilterOption = Annotated[
    str | None,
    typer.Option("--session", help="Only traces of this session (see traces sessions)."),
]

FormatOption = Annotated[
    str | None,
    typer.Option(
        "--format",
        "-f",
        help=f"Input format ({', '.join(FORMAT_NAMES)}); detected from the content when omitted.",
    ),
]

IdsOption = Annotated[
    IdEncoding,
    typer.Option(
        "--ids",
        help=(
            "How OTLP/JSON files write trace and span ids: hex, as OTLP/JSON does, or base64, as"
            " protobuf-to-JSON tools (MessageToJson) write them. One encoding for every such"
            " file; an id in the other is rejected. Only OTLP/JSON is affected: protobuf"
            " carries raw bytes."
        ),
    ),
]

KeepIncompleteOption = Annotated[
    bool,
    typer.Option(
        "--keep-incomplete",
        help=(
            "Import the traces withheld only because a part of the input could not be read (a"
            " truncated line) and may have held one of their spans, each marked in metadata"
            " 'trailcheck.incomplete'; grading and detection give no verdict on them. A trace"
            " known to have lost a span stays withheld."
        ),
    ),
]

EmitOtelOption = Annotated[
    str | None,
    typer.Option(
        "--emit-otel",
        metavar="ENDPOINT",
        help="Send one gen_ai.evaluation.result log record per score to this OTLP/HTTP endpoint"
        " (e.g. http://127.0.0.1:4318); best effort, off by default.",
    ),
]
EmitOtelHeaderOption = Annotated[
    list[str] | None,
    typer.Option(
        "--emit-otel-header",
        metavar="KEY=VALUE",
        help="A header for --emit-otel (repeatable); OTEL_EXPORTER_OTLP_HEADERS is read too.",
    ),
]
