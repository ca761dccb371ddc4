"""Files read one bounded record at a time: lines, and the top-level fields of a protobuf
message."""

from __future__ import annotations

import io

from trailcheck.importing.records import Rejection
from trailcheck.importing.transport.proto_stream import BrokenWire, FieldBytes, message_fields
from trailcheck.importing.transport.record_stream import Line, bounded_lines, remaining_bytes


def test_lines_are_numbered_with_their_offsets_blank_ones_too() -> None:
    data = b'{"a": 1}\n\n{"b": 2}'
    lines = list(bounded_lines(io.BytesIO(data), "in.jsonl"))
    assert lines == [Line(1, 0, b'{"a": 1}\n'), Line(2, 9, b"\n"), Line(3, 10, b'{"b": 2}')]
    assert [line.number for line in lines] == [
        number for number, _ in enumerate(data.split(b"\n"), 1)
    ]


def test_a_line_over_the_bound_is_refused_naming_file_line_and_offset_and_the_next_is_read() -> (
    None
):
    data = b"short\n" + b"x" * 40 + b"\n" + b"after\n"
    lines = list(bounded_lines(io.BytesIO(data), "big.jsonl", limit=16))
    assert lines[0] == Line(1, 0, b"short\n")
    refusal = lines[1]
    assert isinstance(refusal, Rejection)
    assert (refusal.source, refusal.line, refusal.trace_id) == ("big.jsonl", 2, None)
    assert refusal.message == (
        "a line of 41 bytes at byte offset 6 is over the 16 bytes one record may hold, so it"
        " was not read"
    )
    assert lines[2] == Line(3, 47, b"after\n")


def test_a_line_exactly_at_the_bound_is_read() -> None:
    assert list(bounded_lines(io.BytesIO(b"x" * 16 + b"\n"), "f", limit=16)) == [
        Line(1, 0, b"x" * 16 + b"\n")
    ]


def test_remaining_bytes_leaves_the_stream_where_it_was() -> None:
    stream = io.BytesIO(b"0123456789")
    stream.seek(3)
    assert remaining_bytes(stream) == 7
    assert stream.tell() == 3


def _field(number: int, data: bytes) -> bytes:
    return bytes([number << 3 | 2, len(data)]) + data


def test_message_fields_are_the_wanted_field_in_order_others_skipped() -> None:
    # field 1 twice, a varint field 3 and a fixed32 field 4 and a length-delimited field 2 between.
    data = _field(1, b"one") + b"\x18\x96\x01" + b"\x25abcd" + _field(2, b"skip") + _field(1, b"")
    fields = list(message_fields(io.BytesIO(data), 1))
    assert fields == [FieldBytes(0, 0, 3, b"one"), FieldBytes(1, len(data) - 2, 0, b"")]


def test_a_field_over_the_bound_is_skipped_unread_with_its_size() -> None:
    data = _field(1, b"a" * 20) + _field(1, b"ok")
    assert list(message_fields(io.BytesIO(data), 1, limit=10)) == [
        FieldBytes(0, 0, 20, None),
        FieldBytes(1, 22, 2, b"ok"),
    ]


def test_framing_that_breaks_ends_the_walk_at_that_field() -> None:
    whole = _field(1, b"ok")
    cut = _field(1, b"longer")[:-2]
    assert list(message_fields(io.BytesIO(whole + cut), 1)) == [
        FieldBytes(0, 0, 2, b"ok"),
        BrokenWire(len(whole)),
    ]
    for broken in (b"\x00\x01", b"\x0b\x01", b"\x0f", b"\x0a\xff"):  # field 0, group, type 7, cut
        assert list(message_fields(io.BytesIO(whole + broken), 1))[-1] == BrokenWire(len(whole))
