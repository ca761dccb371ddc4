"""What ``trailcheck import`` does (its options: :mod:`trailcheck.commands.import_`): traces from
other formats into trailcheck JSONL, written atomically; the rejected records listed."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import typer

from trailcheck.bulk import default_workers
from trailcheck.bulk.importing import imported_lines
from trailcheck.commands.import_ import ImportRequest
from trailcheck.commands.import_summary import (
    counted,
    incomplete_words,
    print_rejections,
    read_words,
    rejected_words,
)
from trailcheck.commands.output import stderr
from trailcheck.errors import EXIT_FAILED, UsageError
from trailcheck.importing.formats import reads_as_trailcheck
from trailcheck.importing.importer import ImportSummary, capture_warnings, iter_import
from trailcheck.trace.jsonl import dump_trace, write_lines

__all__ = ["import_command"]


@contextmanager
def _atomic_output(out: Path) -> Iterator[IO[bytes]]:
    """A temporary file beside ``out`` that replaces it only when the block succeeds."""
    if out.is_dir():
        raise UsageError(f"{out}: is a directory; name the output file")
    directory = out.parent if str(out.parent) else Path(".")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd, temp_name = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=directory)
    except OSError as error:
        raise UsageError(f"{out}: cannot write: {error.strerror or error}") from None
    try:
        with os.fdopen(fd, "wb") as stream:
            yield stream
        os.replace(temp_name, out)
    finally:
        if os.path.exists(temp_name):
            os.unlink(temp_name)


class _DiscardOutputError(Exception):
    """Raised inside the output block to discard it under --strict."""


def _print_summary(summary: ImportSummary, out: str, *, written: bool) -> None:
    print_rejections(summary.rejections)
    target = f"written to {out}" if written else f"nothing written to {out} (--strict)"
    stderr.print(
        f"{read_words(summary)} → {counted(summary.imported, 'trace')} imported,"
        f" {rejected_words(summary)}{incomplete_words(summary)}; {target}",
        markup=False,
    )
    for line in capture_warnings(summary):
        stderr.print(line, style="yellow", markup=False, highlight=False)


def import_command(request: ImportRequest) -> None:
    """The body of :func:`trailcheck.commands.import_.import_command`. Files that are all
    trailcheck JSONL are read over ``--workers`` processes (default: every
    core), with the same output and rejections; any other format, in this process."""
    sources, out, format_name, strict = (
        request.sources,
        request.out,
        request.format_name,
        request.strict,
    )
    summary = ImportSummary()
    if all(reads_as_trailcheck(source, format_name) for source in sources):
        chosen = request.workers or default_workers()
        lines: Iterable[bytes] = imported_lines(sources, summary, workers=chosen)
    else:
        traces = iter_import(
            sources,
            format_name=format_name,
            summary=summary,
            ids=request.ids,
            keep_incomplete=request.keep_incomplete,
        )
        lines = map(dump_trace, traces)
    if str(out) == "-":
        written = True
        if strict:
            # Under --strict nothing may reach stdout before every record has been read.
            lines = list(lines)
            written = summary.ok
        write_lines(lines if written else (), sys.stdout.buffer)
        sys.stdout.buffer.flush()
        _print_summary(summary, "stdout", written=written)
    else:
        try:
            with _atomic_output(out) as stream:
                write_lines(lines, stream)
                if strict and not summary.ok:
                    raise _DiscardOutputError
            written = True
        except _DiscardOutputError:
            written = False
        _print_summary(summary, str(out), written=written)
    if not summary.ok:
        raise typer.Exit(EXIT_FAILED)
