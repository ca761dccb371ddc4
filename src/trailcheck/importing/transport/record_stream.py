"""A file read record by record, with a bound on one record: memory follows the largest record,
not the file.

A record is what a reader decodes in one piece: a line of a JSON Lines file (a span of span
JSONL, an export of the collector's file exporter), an OTLP/JSON document that is not JSON
Lines, one ``resourceSpans`` (or ``resourceLogs``) entry of a protobuf export. One larger than
:data:`MAX_RECORD_BYTES` is not read: it is a Rejection naming the file, the line (where there
are lines), the byte offset where the record starts and its size, and the input goes on. Like
any part of an input that was not read, it may have held a span of any trace, so it withholds
every trace (:mod:`trailcheck.importing.complete_traces`). docs/traces.md documents the bound.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO, Final

from trailcheck.importing.records import Rejection

__all__ = [
    "MAX_RECORD_BYTES",
    "Line",
    "bounded_lines",
    "oversized_record",
    "remaining_bytes",
]

# 64 MiB: 16 times the largest message an OTLP/gRPC receiver takes by default (4 MiB), 3 times
# the largest body its OTLP/HTTP receiver does (20 MiB); reading one costs some ten times its size.
MAX_RECORD_BYTES: Final = 64 << 20
_SKIP_CHUNK: Final = 1 << 20


@dataclass(frozen=True, slots=True)
class Line:
    """One line of a file: its number (from 1), the byte offset where it starts, and its bytes
    with the line end (``\\n``) it has, if any."""

    number: int
    offset: int
    text: bytes


def bounded_lines(
    stream: BinaryIO, source: str, *, limit: int = MAX_RECORD_BYTES, advice: str = ""
) -> Iterator[Line | Rejection]:
    """Every line of ``stream`` from where it is, numbered as ``bytes.split(b"\\n")`` numbers
    them (blank lines too); a line longer than ``limit`` (its line end not counted) is skipped
    unread, and is a Rejection (:func:`oversized_record`)."""
    offset = stream.tell()
    number = 0
    while text := stream.readline(limit + 1):
        number += 1
        if len(text) > limit and not text.endswith(b"\n"):
            size = len(text) + _skip_line(stream)
            yield oversized_record(
                source,
                what="a line",
                offset=offset,
                size=size,
                limit=limit,
                line=number,
                advice=advice,
            )
            offset += size
            continue
        yield Line(number, offset, text)
        offset += len(text)


def _skip_line(stream: BinaryIO) -> int:
    """Read past the rest of a line, a chunk at a time; how many bytes that was."""
    skipped = 0
    while chunk := stream.readline(_SKIP_CHUNK):
        skipped += len(chunk)
        if chunk.endswith(b"\n"):
            break
    return skipped


def oversized_record(
    source: str,
    *,
    what: str,
    offset: int,
    size: int,
    limit: int = MAX_RECORD_BYTES,
    line: int | None = None,
    field: str | None = None,
    advice: str = "",
) -> Rejection:
    """The Rejection of a record over the bound: file, line, byte offset and size named. It
    names no trace, so it withholds every trace of the input."""
    return Rejection(
        source,
        f"{what} of {size} bytes at byte offset {offset} is over the {_size(limit)} one record"
        f" may hold, so it was not read{advice}",
        line=line,
        field=field,
    )


def remaining_bytes(stream: BinaryIO) -> int:
    """How many bytes ``stream`` holds from where it is (which it stays at)."""
    here = stream.tell()
    end = stream.seek(0, 2)
    stream.seek(here)
    return end - here


def _size(count: int) -> str:
    if count < 1 << 20:
        return f"{count} bytes"
    return f"{count} bytes ({count / (1 << 20):g} MiB)"
