"""The top-level fields of one protobuf message, read from a file one field at a time.

An OTLP export is one message whose records are its repeated field 1 (``resource_spans`` of an
``ExportTraceServiceRequest``, ``resource_logs`` of an ``ExportLogsServiceRequest``); a file of
2 GB may be one message (concatenating serialized requests makes one). The protobuf wire format
writes each field as a tag (a varint: field number and wire type) and, for a length-delimited
field, a varint length and that many bytes, so the records can be taken one by one with a small
varint reader, each then parsed by the generated class: memory follows the largest record. A
record longer than the bound is skipped unread
(:mod:`~trailcheck.importing.transport.record_stream`).

Fields of other numbers are skipped, as protobuf skips unknown fields. Where the framing itself
cannot be read (a varint or a field that runs past the end of the file, field number 0, a wire
type protobuf does not define, or a group, which no OTLP writer emits) the walk stops with a
:class:`BrokenWire` at that field.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO, Final

from trailcheck.importing.transport.record_stream import MAX_RECORD_BYTES, remaining_bytes

__all__ = ["BrokenWire", "FieldBytes", "message_fields"]

_VARINT: Final = 0
_FIXED64: Final = 1
_LENGTH_DELIMITED: Final = 2
_FIXED32: Final = 5
_MAX_VARINT_BYTES: Final = 10


@dataclass(frozen=True, slots=True)
class FieldBytes:
    """One occurrence of the wanted field: its index among them, the byte offset of its tag, its
    length, and its bytes (``None`` when the length is over the bound: not read)."""

    index: int
    offset: int
    size: int
    data: bytes | None


@dataclass(frozen=True, slots=True)
class BrokenWire:
    """The field at ``offset`` cannot be framed; nothing after it is read."""

    offset: int


class _UnframedError(Exception):
    """The field cannot be framed: cut off by the end of the file, or not a field at all."""


def message_fields(
    stream: BinaryIO, number: int, *, limit: int = MAX_RECORD_BYTES
) -> Iterator[FieldBytes | BrokenWire]:
    """Each length-delimited field ``number`` of the message ``stream`` holds from where it is,
    in order, or where its framing breaks (see the module docstring)."""
    end = stream.tell() + remaining_bytes(stream)
    index = 0
    while (offset := stream.tell()) < end:
        try:
            key = _varint(stream)
            wire_type, field_number = key & 0x7, key >> 3
            if field_number == 0:
                raise _UnframedError
            if wire_type != _LENGTH_DELIMITED:
                _skip_scalar(stream, wire_type, end)
                continue
            size = _varint(stream)
            if stream.tell() + size > end:
                raise _UnframedError
        except _UnframedError:
            yield BrokenWire(offset)
            return
        if field_number != number:
            stream.seek(size, 1)
            continue
        if size > limit:
            stream.seek(size, 1)
            yield FieldBytes(index, offset, size, None)
        else:
            yield FieldBytes(index, offset, size, stream.read(size))
        index += 1


def _varint(stream: BinaryIO) -> int:
    value = 0
    for shift in range(0, 7 * _MAX_VARINT_BYTES, 7):
        byte = stream.read(1)
        if not byte:
            raise _UnframedError
        value |= (byte[0] & 0x7F) << shift
        if not byte[0] & 0x80:
            return value
    raise _UnframedError


def _skip_scalar(stream: BinaryIO, wire_type: int, end: int) -> None:
    if wire_type == _VARINT:
        _varint(stream)
        return
    if wire_type not in (_FIXED64, _FIXED32):
        raise _UnframedError  # a group (3, 4), or a wire type protobuf does not define
    width = 8 if wire_type == _FIXED64 else 4
    if stream.tell() + width > end:
        raise _UnframedError
    stream.seek(width, 1)
