"""``trailcheck import``: its options. What it does is in :mod:`trailcheck.commands.import_impl`,
imported when the command runs."""

from pathlib import Path
from typing import Annotated

import typer

from trailcheck.commands.options import FormatOption, IdsOption, KeepIncompleteOption

__all__ = ["import_command"]


def import_command(
    sources: Annotated[list[Path], typer.Argument(help="Trace files to import.")],
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Output trailcheck JSONL file ('-' for stdout).")
    ],
    format_name: FormatOption = None,
    strict: Annotated[
        bool, typer.Option("--strict", help="Write nothing when any record is rejected.")
    ] = False,
    ids: IdsOption = "hex",
    keep_incomplete: KeepIncompleteOption = False,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            min=1,
            help="Processes reading trailcheck JSONL (default: every core; 1 reads in this"
            " process); the output is the same. Other formats are read in this process.",
        ),
    ] = None,
) -> None:
    """Import traces from other formats into trailcheck JSONL.

    Bad records are rejected (each named with its file, line and field) and the rest are
    imported; exit 1 when any record was rejected.
    """
    from trailcheck.commands.import_impl import import_command as body

    body(
        sources=sources,
        out=out,
        format_name=format_name,
        strict=strict,
        ids=ids,
        keep_incomplete=keep_incomplete,
        workers=workers,
    )
