"""The options several commands share, declared with cheap imports only: typer reads every
command's signature at each start, ``trailcheck --help`` included, so nothing here may import
the importers, the store or the runner.

The values spelled out here (the format names, the id encodings) are the library's, pinned
equal to it by ``tests/test_cli_startup.py``. Each option's help is one sentence; what there is
to say beyond it is in ``docs/``.
"""

from typing import Annotated, Final, Literal

import typer

__all__ = [
    "FILTER_PANEL",
    "FORMAT_NAMES",
    "TELEMETRY_PANEL",
    "DbOption",
    "EmitOtelHeaderOption",
    "EmitOtelOption",
    "FormatOption",
    "IdEncoding",
    "IdsOption",
    "JsonOption",
    "KeepIncompleteOption",
    "LabelFilterOption",
    "RedactOption",
    "SessionFilterOption",
    "SinceOption",
    "ToolFilterOption",
    "UntilOption",
]

FILTER_PANEL: Final = "Which traces"
TELEMETRY_PANEL: Final = "Telemetry"

FORMAT_NAMES: Final = (
    "trailcheck-parquet",
    "trailcheck",
    "spans",
    "otlp-json",
    "who-and-when",
    "tau-bench",
    "openai",
    "otlp-proto",
)
""":data:`trailcheck.importing.formats.FORMAT_NAMES`, in its order."""

IdEncoding = Literal["hex", "base64"]
""":data:`trailcheck.importing.transport.otlp_ids.IdEncoding`."""

DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        metavar="URL",
        help="The store's URL (default: `$TRAILCHECK_DB`, else `.trailcheck/trailcheck.db`).",
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON.")]
# ``serve`` and ``ingest``: what is redacted before anything is stored (docs/redaction.md).
RedactOption = Annotated[
    str | None,
    typer.Option(
        "--redact",
        metavar="FILE|builtin",
        show_default=False,
        help="Redact secrets and personal data before anything is stored: by this rules file,"
        " or `builtin` for the built-in detectors alone.",
    ),
]

# Which stored traces a command reads (``traces list``; ``score`` over the store).
LabelFilterOption = Annotated[
    str | None,
    typer.Option(
        "--label",
        metavar="LABEL",
        rich_help_panel=FILTER_PANEL,
        help="Only traces with a finding of this label.",
    ),
]
SinceOption = Annotated[
    str | None,
    typer.Option(
        "--since",
        metavar="ISO-TIME",
        rich_help_panel=FILTER_PANEL,
        help="Only traces started at or after this date or time (UTC).",
    ),
]
UntilOption = Annotated[
    str | None,
    typer.Option(
        "--until",
        metavar="ISO-TIME",
        rich_help_panel=FILTER_PANEL,
        help="Only traces started before this date or time (UTC).",
    ),
]
ToolFilterOption = Annotated[
    str | None,
    typer.Option(
        "--tool",
        metavar="NAME",
        rich_help_panel=FILTER_PANEL,
        help="Only traces that called this tool.",
    ),
]
SessionFilterOption = Annotated[
    str | None,
    typer.Option(
        "--session",
        metavar="ID",
        rich_help_panel=FILTER_PANEL,
        help="Only traces of this session (see `traces sessions`).",
    ),
]

FormatOption = Annotated[
    str | None,
    typer.Option(
        "--format",
        "-f",
        metavar="NAME",
        help=f"Input format, one of {', '.join(FORMAT_NAMES)}; detected when omitted.",
    ),
]

IdsOption = Annotated[
    IdEncoding,
    typer.Option(
        "--ids",
        help="How OTLP/JSON files write trace and span ids: hex, as OTLP/JSON does, or base64,"
        " as protobuf-to-JSON tools do; other formats are not affected.",
    ),
]

KeepIncompleteOption = Annotated[
    bool,
    typer.Option(
        "--keep-incomplete",
        help="Import the traces withheld only because a part of the input could not be read,"
        " marked incomplete (docs/traces.md).",
    ),
]

EmitOtelOption = Annotated[
    str | None,
    typer.Option(
        "--emit-otel",
        metavar="ENDPOINT",
        rich_help_panel=TELEMETRY_PANEL,
        help="Send each score as a log record to this OTLP/HTTP endpoint, best effort.",
    ),
]
EmitOtelHeaderOption = Annotated[
    list[str] | None,
    typer.Option(
        "--emit-otel-header",
        metavar="KEY=VALUE",
        rich_help_panel=TELEMETRY_PANEL,
        help="A header for `--emit-otel` (repeatable; `OTEL_EXPORTER_OTLP_HEADERS` is read too).",
    ),
]
