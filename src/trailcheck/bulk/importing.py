"""``trailcheck import`` of trailcheck JSONL over every core: each line read as every reader
reads it (:func:`~trailcheck.importing.trailcheck_jsonl.parse_trace_line`) and written back by
:func:`~trailcheck.trace.jsonl.dump_trace`. Lines come back in input order; a trace id seen
before is rejected as :func:`~trailcheck.importing.iter_import` rejects it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from trailcheck.bulk.chunks import DEFAULT_CHUNK_BYTES
from trailcheck.bulk.trace_files import trace_files_results
from trailcheck.importing.importer import ImportSummary
from trailcheck.trace.jsonl import dump_trace

__all__ = ["imported_lines"]


def imported_lines(
    paths: Sequence[Path],
    summary: ImportSummary,
    *,
    workers: int,
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
) -> Iterator[bytes]:
    """The trailcheck JSONL line (without its newline) of each valid trace of ``paths``, all
    trailcheck JSONL, in input order, over ``workers`` processes; the rest in ``summary``."""
    return trace_files_results(paths, dump_trace, summary, workers=workers, chunk_bytes=chunk_bytes)
