"""Trailcheck traces in Parquet: one trace per row, its trailcheck JSON (what a line of
trailcheck JSONL holds) in a text or binary column named ``trace``; other columns are left alone.
It is how a table of traces leaves a warehouse or a data lake without a conversion step.

Each row is held to exactly the rules of a JSONL line (:func:`parse_trace_line`, or
:func:`parse_trace_line` on the bulk path), and a rejection names the row, counted from 1 across
the file's row groups, where JSONL names the line. A row group is what the bulk path hands a
worker (:class:`RowGroupChunk`), so a file is read in parallel without reading it twice.

pyarrow reads the files (the ``parquet`` extra).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from trailcheck.errors import InputError
from trailcheck.extras import needs_extra
from trailcheck.importing.records import Rejection
from trailcheck.importing.trailcheck_jsonl import parse_trace_line
from trailcheck.trace import Trace

__all__ = [
    "PARQUET_MAGIC",
    "TRACE_COLUMN",
    "RowGroupChunk",
    "chunk_rows",
    "looks_like_trailcheck_parquet",
    "read_trailcheck_parquet",
    "row_group_chunks",
]

PARQUET_MAGIC = b"PAR1"
TRACE_COLUMN = "trace"
BATCH_ROWS = 1024


def looks_like_trailcheck_parquet(head: bytes) -> bool:
    """A Parquet file (its column is checked when it is opened)."""
    return head.startswith(PARQUET_MAGIC)


@dataclass(frozen=True, slots=True)
class RowGroupChunk:
    """Row group ``row_group`` of the Parquet file ``path``, whose first row is row
    ``first_row`` (1-based) of the file."""

    path: str
    row_group: int
    first_row: int


def _open(source: str | BinaryIO, name: str) -> Any:
    """``source`` as a ``pyarrow.parquet.ParquetFile`` holding a text or binary ``trace``
    column; an InputError naming ``name`` otherwise."""
    with needs_extra("parquet", f"reading {name} (Parquet)"):
        import pyarrow as pa
        import pyarrow.parquet as pq
    try:
        # Pages written with a checksum are checked: a damaged value is refused, not read.
        parquet = pq.ParquetFile(source, page_checksum_verification=True)
    except (pa.ArrowException, OSError) as unreadable:
        raise InputError(f"{name}: not a readable Parquet file: {unreadable}") from None
    schema = parquet.schema_arrow
    problem = None
    if TRACE_COLUMN not in schema.names:
        problem = (
            f"no column {TRACE_COLUMN!r} (it has {', '.join(schema.names) or 'none'});"
            f" a Parquet file of traces holds each trace's trailcheck JSON in {TRACE_COLUMN!r}"
        )
    elif not any(
        is_kind(schema.field(TRACE_COLUMN).type)
        for is_kind in (
            pa.types.is_string,
            pa.types.is_large_string,
            pa.types.is_binary,
            pa.types.is_large_binary,
        )
    ):
        kind = schema.field(TRACE_COLUMN).type
        problem = f"column {TRACE_COLUMN!r} is {kind}; it holds each trace's JSON as text or binary"
    if problem is not None:
        parquet.close()
        raise InputError(f"{name}: {problem}")
    return parquet


def _rows(
    parquet: Any, row_group: int, first_row: int, name: str
) -> Iterator[tuple[int, bytes | Rejection]]:
    """Each row of the group with its number in the file: the trace's JSON as bytes (text is
    read as its bytes, so bad UTF-8 is the line reader's to reject), or the rejection of a row
    that holds none."""
    import pyarrow as pa

    # A batch of rows at a time: a row group may hold a million traces.
    batches = parquet.iter_batches(
        batch_size=BATCH_ROWS, row_groups=[row_group], columns=[TRACE_COLUMN]
    )
    row = first_row
    while True:
        try:
            batch = next(batches, None)
        except (pa.ArrowException, OSError) as unreadable:
            # From the batch on, since a damaged page cannot say which of its rows it held.
            raise InputError(
                f"{name}: rows {row}-{first_row + _rows_in(parquet, row_group) - 1}"
                f" (row group {row_group}) cannot be read: {unreadable}"
            ) from None
        if batch is None:
            return
        column = batch.column(0)
        if pa.types.is_string(column.type):
            column = column.view(pa.binary())
        elif pa.types.is_large_string(column.type):
            column = column.view(pa.large_binary())
        for value in column.to_pylist():
            yield row, value if value and value.strip() else _missing(name, row, value)
            row += 1


def _missing(source: str, row: int, value: bytes | None) -> Rejection:
    """A row whose ``trace`` is null or blank: unlike a blank JSONL line, a row is a record."""
    what = "null" if value is None else "empty"
    return Rejection(source, f"{what}: each row holds one trace", line=row, field=TRACE_COLUMN)


def _rows_in(parquet: Any, row_group: int) -> int:
    rows: int = parquet.metadata.row_group(row_group).num_rows
    return rows


def _first_rows(parquet: Any, name: str) -> list[int]:
    """The number of each row group's first row; an InputError when the file holds no rows
    (as an empty JSONL file is refused: most often an export that failed)."""
    first_rows: list[int] = []
    next_row = 1
    for row_group in range(parquet.num_row_groups):
        first_rows.append(next_row)
        next_row += _rows_in(parquet, row_group)
    if next_row == 1:
        raise InputError(f"{name}: the Parquet file holds no rows")
    return first_rows


def row_group_chunks(path: Path) -> list[RowGroupChunk]:
    """The row groups of ``path`` in order; an InputError when it is not a Parquet file of
    traces, or holds no rows."""
    parquet = _open(str(path), str(path))
    try:
        first_rows = _first_rows(parquet, str(path))
    finally:
        parquet.close()
    return [RowGroupChunk(str(path), group, first) for group, first in enumerate(first_rows)]


def chunk_rows(chunk: RowGroupChunk) -> Iterator[tuple[int, bytes | Rejection]]:
    """Each row of ``chunk`` with its number in the file: the trace's JSON, or the rejection
    of a row that holds none."""
    parquet = _open(chunk.path, chunk.path)
    try:
        yield from _rows(parquet, chunk.row_group, chunk.first_row, chunk.path)
    finally:
        parquet.close()


def read_trailcheck_parquet(stream: BinaryIO, source: str) -> Iterator[Trace | Rejection]:
    """Traces from a Parquet file of traces; bad rows become Rejections; a file with no rows is
    refused (InputError), as on the bulk path."""
    parquet = _open(stream, source)
    for row_group, first_row in enumerate(_first_rows(parquet, source)):
        for row, value in _rows(parquet, row_group, first_row, source):
            if isinstance(value, Rejection):
                yield value
            else:
                yield parse_trace_line(value, source=source, line_number=row)
