"""A JSON Lines file as chunks of whole lines, each knowing the number of its first line.

The parent reads the file once, sequentially, in blocks, and cuts each chunk at the last newline
of its block, counting newlines as it goes (a byte search: the count is what lets a worker name a
bad record's line). A worker reads only its own byte range. A line longer than the chunk size
makes its chunk longer; no line is ever split.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["LineChunk", "chunk_lines", "line_chunks"]

DEFAULT_CHUNK_BYTES = 4 << 20


@dataclass(frozen=True, slots=True)
class LineChunk:
    """Bytes ``offset`` to ``offset + length`` of ``path``: whole lines, the first of which is
    line ``first_line`` (1-based) of the file."""

    path: str
    offset: int
    length: int
    first_line: int


def line_chunks(
    path: Path, chunk_bytes: int = DEFAULT_CHUNK_BYTES, *, start: int = 0
) -> Iterator[LineChunk]:
    """The chunks of ``path`` in order, from byte ``start`` (past a byte order mark, say) to the
    end; together they cover that part of the file exactly."""
    if chunk_bytes < 1:
        raise ValueError(f"chunk_bytes must be positive, not {chunk_bytes}")
    offset = start
    line = 1
    pending = b""
    with path.open("rb") as stream:
        stream.seek(start)
        while True:
            block = stream.read(chunk_bytes)
            data = pending + block
            if not block:
                if data:
                    yield LineChunk(str(path), offset, len(data), line)
                return
            cut = data.rfind(b"\n") + 1
            if cut == 0:
                pending = data  # one line longer than a block: read on
                continue
            yield LineChunk(str(path), offset, cut, line)
            line += data.count(b"\n", 0, cut)
            offset += cut
            pending = data[cut:]


def chunk_lines(chunk: LineChunk) -> Iterator[tuple[int, bytes]]:
    """``(line number, line)`` of each line of ``chunk``, its newline kept (as iterating over a
    file gives it). Lines end at ``\n`` only: a ``\r`` is JSON whitespace."""
    with open(chunk.path, "rb") as stream:
        stream.seek(chunk.offset)
        data = stream.read(chunk.length)
    start = 0
    number = chunk.first_line
    while start < len(data):
        end = data.find(b"\n", start) + 1 or len(data)
        yield number, data[start:end]
        start = end
        number += 1
