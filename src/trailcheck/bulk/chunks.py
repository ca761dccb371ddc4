"""A JSON Lines file as chunks of whole lines, for workers to read.

The parent finds where each chunk ends by seeking about ``chunk_bytes`` on and reading on to
the end of that line: it reads one line a chunk, never the whole file (reading and counting
every line there made the parent the slowest part of a one-core import). A worker reads only
its own byte range and numbers its lines from 1; whoever puts the chunks back in order adds
the lines of the chunks before (:func:`chunk_lines`'s last number is a chunk's line count). A
line longer than the chunk size makes its chunk longer; no line is ever split.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["LineChunk", "chunk_lines", "line_chunks"]

# A chunk's lines, and what a worker makes of them, stay in the processor's cache: a one-core
# import spent a tenth more a line in chunks of 4 MiB than of 1 MiB.
DEFAULT_CHUNK_BYTES = 1 << 20


@dataclass(frozen=True, slots=True)
class LineChunk:
    """Bytes ``offset`` to ``offset + length`` of ``path``: whole lines. ``starts_file``: no
    line of the file comes before it (its line numbers are the file's)."""

    path: str
    offset: int
    length: int
    starts_file: bool


def line_chunks(
    path: Path, chunk_bytes: int = DEFAULT_CHUNK_BYTES, *, start: int = 0
) -> Iterator[LineChunk]:
    """The chunks of ``path`` in order, from byte ``start`` (past a byte order mark, say) to the
    end; together they cover that part of the file exactly."""
    if chunk_bytes < 1:
        raise ValueError(f"chunk_bytes must be positive, not {chunk_bytes}")
    offset = start
    with path.open("rb") as stream:
        size = stream.seek(0, 2)
        while offset < size:
            # The chunk ends with the line that holds its last byte.
            stream.seek(offset + chunk_bytes - 1)
            end = min(stream.tell() + len(stream.readline()), size)
            yield LineChunk(str(path), offset, end - offset, starts_file=offset == start)
            offset = end


def chunk_lines(chunk: LineChunk) -> Iterator[tuple[int, bytes]]:
    """``(line number in the chunk, line)`` of each line of ``chunk``, from 1, its newline kept
    (as iterating over a file gives it). Lines end at ``\n`` only: a ``\r`` is JSON
    whitespace."""
    with open(chunk.path, "rb") as stream:
        stream.seek(chunk.offset)
        data = stream.read(chunk.length)
    start = 0
    number = 1
    while start < len(data):
        end = data.find(b"\n", start) + 1 or len(data)
        yield number, data[start:end]
        start = end
        number += 1
