"""``trailcheck import``: its options, declared once in :class:`ImportRequest`. What it does is in
:mod:`trailcheck.commands.import_impl`, imported when the command runs."""

from pathlib import Path
from typing import Annotated, NamedTuple

import typer

from trailcheck.commands.declare import command, implementation
from trailcheck.commands.options import FormatOption, IdsOption, KeepIncompleteOption

__all__ = ["ImportRequest", "import_command"]


class ImportRequest(NamedTuple):
    """What ``trailcheck import`` was asked."""

    sources: Annotated[list[Path], typer.Argument(metavar="FILES", help="Trace files to import.")]
    out: Annotated[
        Path,
        typer.Option(
            "--out", "-o", metavar="FILE", help="The trailcheck JSONL file to write (`-`: stdout)."
        ),
    ]
    format_name: FormatOption = None
    strict: Annotated[
        bool, typer.Option("--strict", help="Write nothing when any record is rejected.")
    ] = False
    ids: IdsOption = "hex"
    keep_incomplete: KeepIncompleteOption = False
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            min=1,
            metavar="N",
            help="Processes reading trailcheck JSONL (default: every core); the output is the"
            " same.",
        ),
    ] = None


@command(ImportRequest)
def import_command(request: ImportRequest) -> None:
    """Import traces from other formats into trailcheck JSONL.

    Bad records are rejected (each named with its file, line and field) and the rest are
    imported; exit 1 when any record was rejected.
    """
    implementation("trailcheck.commands.import_impl:import_command", ImportRequest)(request)
