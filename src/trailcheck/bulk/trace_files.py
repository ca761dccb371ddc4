"""trailcheck JSONL (or Parquet of traces) read in chunks by worker processes, each line (row)
as the bulk reader reads it (:func:`~trailcheck.importing.trailcheck_jsonl.parse_trace_line`), in
the order of the file. A JSONL chunk is whole lines; a Parquet chunk is a row group.

What a worker does with each trace is the caller's (grading it, writing it out): the worker
returns one small :class:`LineResult` per line, never the trace, so nothing large crosses a
process boundary. The parent then does what needs the whole input in order: a worker numbers
its chunk's lines from 1, and a rejection's line is moved on by the lines of the chunks before
it; a trace id seen twice is rejected as :func:`~trailcheck.importing.importer.iter_import`
rejects it; and the counts of the :class:`~trailcheck.importing.importer.ImportSummary` are
kept.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Generic, TypeVar, cast

from trailcheck.bulk.chunks import DEFAULT_CHUNK_BYTES, LineChunk, chunk_lines, line_chunks
from trailcheck.bulk.pool import MapChunks, ordered_map
from trailcheck.importing.formats import (
    TRAILCHECK_FORMAT,
    TRAILCHECK_PARQUET_FORMAT,
    UTF8_BOM,
    is_parquet,
    refuse_empty,
)
from trailcheck.importing.importer import ImportSummary, already_imported
from trailcheck.importing.records import Rejection
from trailcheck.importing.trailcheck_jsonl import read_trace_line
from trailcheck.importing.trailcheck_parquet import RowGroupChunk, chunk_rows, row_group_chunks
from trailcheck.trace import Trace
from trailcheck.trace.content_gap import content_gap
from trailcheck.trace.incomplete import INCOMPLETE_KEY
from trailcheck.trace.jsonl import dump_trace

__all__ = ["LineResult", "trace_files_results"]

Output = TypeVar("Output")


# Not frozen: one is made for every line read, and a frozen dataclass takes twice as long to
# make; nothing changes one after it is made.
@dataclass(slots=True)
class LineResult(Generic[Output]):
    """What became of one line: its trace's id and what the caller's work made of it, or why it
    was rejected."""

    trace_id: str | None
    output: Output | Rejection
    spans: int = 0
    incomplete: bool = False
    gap_fix: str | None = None  # how to record the content a trace's instrumentation left out


@dataclass(frozen=True, slots=True)
class _ChunkResults(Generic[Output]):
    """A chunk's results. ``lines``: how many lines a JSONL chunk holds, its rejections numbered
    from 1 in it (``None`` for a Parquet row group, whose rows are numbered in the file);
    ``starts_file``: the chunk is the first of its file."""

    path: str
    results: list[LineResult[Output]]
    lines: int | None
    starts_file: bool


def trace_files_results(
    paths: Sequence[Path],
    work: Callable[[Trace], Output],
    summary: ImportSummary,
    *,
    workers: int,
    initializer: Callable[..., object] | None = None,
    initargs: tuple[Any, ...] = (),
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    map_chunks: MapChunks = ordered_map,
) -> Iterator[Output]:
    """``work(trace)`` for each trace of the trailcheck JSONL (or Parquet) files ``paths``, one
    file after the other, in order, over ``workers`` workers; rejections, and traces whose id
    came before (in any of the files), are recorded in ``summary`` instead. ``work`` (and
    ``initializer``) must be module-level functions. A file that holds nothing is refused
    (InputError) before any is read, as the import refuses it. ``map_chunks`` runs the
    chunks: this machine's processes by default, or another engine's tasks
    (``trailcheck.distributed``)."""
    chunked: list[Iterable[LineChunk | RowGroupChunk]] = []
    for path in paths:
        refuse_empty(path)
        if is_parquet(path):
            chunked.append(row_group_chunks(path))
            summary.formats[str(path)] = TRAILCHECK_PARQUET_FORMAT
        else:
            chunked.append(line_chunks(path, chunk_bytes, start=_past_byte_order_mark(path)))
            summary.formats[str(path)] = TRAILCHECK_FORMAT
    first_seen: dict[str, str] = {}
    lines_before = 0  # in the file of the chunk at hand, the lines of the chunks before it
    jobs = ((chunk, work) for chunks in chunked for chunk in chunks)
    for chunk in map_chunks(
        _chunk_results, jobs, workers=workers, initializer=initializer, initargs=initargs
    ):
        source = chunk.path
        if chunk.starts_file:
            lines_before = 0
        for result in chunk.results:
            summary.spans += result.spans
            if isinstance(result.output, Rejection):
                rejection = result.output
                if chunk.lines is not None and rejection.line is not None and lines_before:
                    rejection = replace(rejection, line=rejection.line + lines_before)
                summary.rejections.append(rejection)
                summary.rejected += 1
                continue
            assert result.trace_id is not None  # a trace was read
            if result.trace_id in first_seen:
                summary.rejections.append(
                    already_imported(source, result.trace_id, first_seen[result.trace_id])
                )
                summary.rejected += 1
                continue
            first_seen[result.trace_id] = source
            summary.imported += 1
            summary.incomplete += result.incomplete
            if result.gap_fix is not None:
                summary.gaps.by_fix[result.gap_fix] += 1
            yield result.output
        lines_before += chunk.lines or 0


def _past_byte_order_mark(path: Path) -> int:
    with path.open("rb") as stream:
        return len(UTF8_BOM) if stream.read(len(UTF8_BOM)) == UTF8_BOM else 0


def _records(chunk: LineChunk | RowGroupChunk) -> Iterator[tuple[int, bytes | Rejection]]:
    """The chunk's lines (rows) with their numbers, blank lines too; a row that holds no trace
    comes as its rejection."""
    return chunk_rows(chunk) if isinstance(chunk, RowGroupChunk) else chunk_lines(chunk)


def _chunk_results(
    job: tuple[LineChunk | RowGroupChunk, Callable[[Trace], Output]],
) -> _ChunkResults[Output]:
    chunk, work = job
    results: list[LineResult[Output]] = []
    number = 0
    for number, line in _records(chunk):
        if isinstance(line, Rejection):
            results.append(LineResult(None, line))
            continue
        if not line or line.isspace():  # blank (without copying the line, as strip would)
            continue
        read = read_trace_line(line, source=chunk.path, line_number=number)
        if isinstance(read, Rejection):
            results.append(LineResult(None, read))
            continue
        trace, written = read
        gap = content_gap(trace)
        results.append(
            LineResult(
                trace.trace_id,
                _output(work, trace, written),
                spans=len(trace.spans),
                incomplete=INCOMPLETE_KEY in trace.metadata,
                gap_fix=None if gap is None else gap.fix,
            )
        )
    if isinstance(chunk, RowGroupChunk):
        return _ChunkResults(chunk.path, results, None, starts_file=False)
    return _ChunkResults(chunk.path, results, number, chunk.starts_file)


def _output(work: Callable[[Trace], Output], trace: Trace, written: bytes) -> Output:
    """``work(trace)``; for an import, which writes each trace back (``work`` is
    :func:`~trailcheck.trace.jsonl.dump_trace`), the line reading encoded already."""
    if work is dump_trace:
        return cast(Output, written)
    return work(trace)
